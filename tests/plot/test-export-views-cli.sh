#!/bin/bash
# test-export-views-cli.sh — `bpw export --view timeline|lifetimes|trade|compare|memo`
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: test-export-views-cli.sh BPW. Every view of the default study in every format, as
# the files' readers see them: PNG size from its header, SVG through an XML parser, PDF
# through poppler when installed, and the CSV against what the view must hold.

BPW=$1
source "$(dirname "$0")/../cli/tap-lib.sh"

PNG_SIZE='
import struct
with open(path, "rb") as f:
    head = f.read(24)
assert head[:8] == b"\x89PNG\r\n\x1a\n", head[:8]
w, h = struct.unpack(">II", head[16:24])'

for view in timeline lifetimes trade compare; do
  extra=()
  [ $view = trade ] && extra=(--requests 40)
  for fmt in png svg pdf csv; do
    expect_rc "$view as $fmt" 0 \
      "$BPW" export default --view $view --format $fmt --output "$TMP/$view.$fmt" "${extra[@]}"
  done
  py_file "$view PNG is 1440 × 810 pixels" "$TMP/$view.png" "
$PNG_SIZE
assert (w, h) == (1440, 810), (w, h)"
  py_file "$view SVG parses as XML with an svg root" "$TMP/$view.svg" "
import xml.etree.ElementTree as ET
root = ET.parse(path).getroot()
assert root.tag.endswith('svg'), root.tag"
  if head -c 5 "$TMP/$view.pdf" | grep -q '%PDF-'; then pass "$view PDF starts with %PDF-"
  else fail "$view PDF starts with %PDF-"; fi
done

if command -v pdftotext >/dev/null; then
  pdftotext "$TMP/timeline.pdf" "$TMP/timeline.txt"
  # Lanes are named by what runs there: the stage's blocks and the engine.
  for want in "Timeline: gpt3-175b-train" "Time in the step" "stage 0" "Phase" \
              "embedding + layers 0–" "+ head"; do
    if grep -qF "$want" "$TMP/timeline.txt"; then pass "timeline PDF text has “$want”"
    else fail "timeline PDF text has “$want”"; fi
  done
  # The latency ticks carry their units ("10 ms"): the axis title must not say seconds.
  pdftotext "$TMP/trade.pdf" "$TMP/trade.txt"
  if grep -qF "p50 and p99 (log scale)" "$TMP/trade.txt" && grep -qE "[0-9] ms" "$TMP/trade.txt" &&
     ! grep -qF "(s, log scale)" "$TMP/trade.txt"
  then pass "trade PDF latency axis: title without a unit, ticks with theirs"
  else fail "trade PDF latency axis: title without a unit, ticks with theirs" "$(grep -F "log scale" "$TMP/trade.txt")"; fi
  expect_rc "timeline of two stages as pdf" 0 \
    "$BPW" export default --view timeline --stages 0-1 --output "$TMP/two-stages.pdf"
  pdftotext "$TMP/two-stages.pdf" "$TMP/two-stages.txt"
  if grep -qF "matrix engine" "$TMP/two-stages.txt"; then pass "timeline lanes name their engine"
  else fail "timeline lanes name their engine"; fi
  pdftotext "$TMP/lifetimes.pdf" "$TMP/lifetimes.txt"
  for want in "Buffer lifetimes" "Device memory" "Checkpoints" "Peak"; do
    if grep -qF "$want" "$TMP/lifetimes.txt"; then pass "lifetimes PDF text has “$want”"
    else fail "lifetimes PDF text has “$want”"; fi
  done
  # Memory sizes in GiB unless --units gb asks for GB; the A100's capacity is 80 GiB.
  # (The candidate is named "A100 SXM 80 GB": that is a name, not a size the chart shows.)
  if grep -qF "capacity 80 GiB" "$TMP/lifetimes.txt" &&
     ! sed 's/A100 SXM 80 GB//' "$TMP/lifetimes.txt" | grep -q "[0-9] GB"
  then pass "lifetimes PDF sizes are in GiB by default"
  else fail "lifetimes PDF sizes are in GiB by default" "$(grep -o '[0-9.]* Gi*B' "$TMP/lifetimes.txt" | head -3)"; fi
  expect_rc "lifetimes as pdf with --units gb" 0 \
    "$BPW" export default --view lifetimes --format pdf --output "$TMP/lifetimes-gb.pdf" --units gb
  pdftotext "$TMP/lifetimes-gb.pdf" "$TMP/lifetimes-gb.txt"
  if grep -qF "capacity 85.9 GB" "$TMP/lifetimes-gb.txt" && ! grep -qF "GiB" "$TMP/lifetimes-gb.txt"
  then pass "lifetimes PDF sizes are in GB with --units gb"
  else fail "lifetimes PDF sizes are in GB with --units gb" "$(grep -o '[0-9.]* Gi*B' "$TMP/lifetimes-gb.txt" | head -3)"; fi
else
  skip "chart PDF text" "pdftotext (poppler-utils) not installed"
fi

# The simulation of the study's first candidate and scenario, through `bpw evaluate`: the
# timeline's merged marks must account for each of its events.
"$BPW" evaluate gpt3-175b --blueprint a100-sxm-80gb --global-batch 1536 --micro-batch 1 \
  --seq 2048 --recompute selective --dtype bf16 --tp 8 --pp 8 --dp 16 --sp --zero 1 --json \
  > "$TMP/evaluate.json"
EVENTS=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['simulation']['events'])" \
  "$TMP/evaluate.json" 2>/dev/null || echo 0)
py_file "timeline CSV: merged counts add up to every simulated event ($EVENTS)" "$TMP/timeline.csv" "
rows = list(csv.DictReader(open(path)))
events = [r for r in rows if r['series'] in ('event', 'merged')]
assert $EVENTS > 0
assert sum(int(r['events']) for r in events) == $EVENTS, sum(int(r['events']) for r in events)
assert all(float(r['start_s']) <= float(r['end_s']) for r in events)
mem = [r for r in rows if r['series'] == 'memory_bytes_max']
assert mem and max(float(r['value']) for r in mem) <= 80e9"
py_file "lifetimes CSV: buffers per category at the peak add up to the peak" "$TMP/lifetimes.csv" "
rows = list(csv.DictReader(open(path)))
peak = [r for r in rows if r['series'] == 'peak'][0]
t = float(peak['start_s'])
live = sum(float(r['bytes']) for r in rows if r['series'] in ('buffer', 'persistent')
           and r['level'] == 'device' and float(r['start_s']) <= t < float(r['end_s']))
assert abs(live - float(peak['bytes'])) <= 1e-6 * live, (live, peak['bytes'])"
py_file "trade CSV: 4 candidates × 10 rates, p50 ≤ p99, a Pareto front" "$TMP/trade.csv" "
rows = list(csv.DictReader(open(path)))
assert len(rows) == 40, len(rows)
assert all(float(r['tpot_p50_s']) <= float(r['tpot_p99_s']) for r in rows)
assert any(r['pareto'] == 'true' for r in rows)"
py_file "compare CSV: a fit per candidate and scenario, breakdowns add up to step time" \
  "$TMP/compare.csv" "
rows = list(csv.DictReader(open(path)))
fits = [r for r in rows if r['series'] == 'fit']
assert len(fits) == 12, len(fits)
for f in fits:
    if f['scenario'] != 'gpt3-175b-train':
        continue
    parts = sum(float(r['value']) for r in rows if r['series'] == 'breakdown'
                and r['candidate'] == f['candidate'])
    assert abs(parts - float(f['step_time_s'])) <= 1e-9 * parts, (parts, f['step_time_s'])"

# ---- a timeline excerpt: two stages, 8 ms, a selection with its dependencies ----
expect_rc "timeline excerpt of stages 0-1 with a selection" 0 \
  "$BPW" export default --view timeline --format csv --output "$TMP/excerpt.csv" \
    --stages 0-1 --time 10.1:10.108 --select 4903 --color-by bottleneck
py_file "the excerpt's marks lie in the range and on stages 0 and 1" "$TMP/excerpt.csv" "
rows = [r for r in csv.DictReader(open(path)) if r['series'] in ('event', 'merged')]
assert rows
assert {r['stage'] for r in rows} == {'0', '1'}, {r['stage'] for r in rows}
assert all(float(r['end_s']) >= 10.1 and float(r['start_s']) <= 10.108 for r in rows)
assert all(r['color_bottleneck'] for r in rows)"

# ---- the memo ----
expect_rc "memo as pdf" 0 \
  "$BPW" export default --view memo --format pdf --output "$TMP/memo.pdf" --requests 30
if head -c 5 "$TMP/memo.pdf" | grep -q '%PDF-'; then pass "memo starts with %PDF-"
else fail "memo starts with %PDF-"; fi
if command -v pdfinfo >/dev/null; then
  pages=$(pdfinfo "$TMP/memo.pdf" | awk '/^Pages:/ { print $2 }')
  if [ "${pages:-0}" -ge 3 ]; then pass "memo has at least three pages ($pages)"
  else fail "memo has at least three pages" "pdfinfo says $pages"; fi
  pdftotext "$TMP/memo.pdf" "$TMP/memo.txt"
  for want in "Headline numbers" "Candidates side by side" "Roofline and assignment" \
              "Arithmetic intensity (FLOP/B)" "Buffer lifetimes" "Trade curves" \
              "Assumptions and provenance" "Validation" "SHA-256"; do
    if grep -qF "$want" "$TMP/memo.txt"; then pass "memo text has “$want”"
    else fail "memo text has “$want”"; fi
  done
  # Figures for people: "152.8 k", never "1.528e+05".
  if grep -qE '[0-9]e[+-][0-9]' "$TMP/memo.txt"; then
    fail "memo prints no number in exponent notation" "$(grep -oE '[0-9.]+e[+-][0-9]+' "$TMP/memo.txt" | head -3)"
  else pass "memo prints no number in exponent notation"; fi
  if grep -qE '[0-9] k$|[0-9] k ' "$TMP/memo.txt"; then pass "memo writes large rates with a prefix"
  else fail "memo writes large rates with a prefix"; fi
else
  skip "memo pages and text" "poppler-utils not installed"
fi

# ---- the format from the output file's extension; the memo's default is pdf ----
expect_rc "memo without --format" 0 \
  "$BPW" export default --view memo --output "$TMP/memo-default" --requests 30
if head -c 5 "$TMP/memo-default" | grep -q '%PDF-'; then pass "the memo without --format is a PDF"
else fail "the memo without --format is a PDF"; fi
expect_rc "timeline without --format, to an .SVG file" 0 \
  "$BPW" export default --view timeline --output "$TMP/inferred.SVG"
py_file "the .SVG file is an SVG" "$TMP/inferred.SVG" "
import xml.etree.ElementTree as ET
assert ET.parse(path).getroot().tag.endswith('svg')"
expect_rc "compare without --format, to a .csv file" 0 \
  "$BPW" export default --view compare --output "$TMP/inferred.csv"
py_file "the .csv file is the comparison's CSV" "$TMP/inferred.csv" "
rows = list(csv.DictReader(open(path)))
assert rows and 'candidate' in rows[0], rows[:1]"
expect_rc "a chart without --format to a file with no known extension is a usage error" 2 \
  "$BPW" export default --view roofline --output "$TMP/roofline.out"
expect_stderr "the usage error names the missing --format" "--format is required"

# ---- refusals ----
expect_rc "an unknown --units is a usage error" 2 \
  "$BPW" export default --view lifetimes --format png --output "$TMP/x.png" --units tb
expect_rc "the memo is pdf only" 2 \
  "$BPW" export default --view memo --format png --output "$TMP/x.png"
expect_rc "a malformed --time is a usage error" 2 \
  "$BPW" export default --view timeline --format png --output "$TMP/x.png" --time 5:1
expect_rc "--stages LAST before FIRST is a usage error" 2 \
  "$BPW" export default --view timeline --format png --output "$TMP/x.png" --stages 3-1
expect_rc "an unknown --color-by is a usage error" 2 \
  "$BPW" export default --view timeline --format png --output "$TMP/x.png" --color-by nope
expect_rc "an unknown --y is a usage error" 2 \
  "$BPW" export default --view trade --format png --output "$TMP/x.png" --y nope
expect_rc "a stage the plan does not have is invalid input" 1 \
  "$BPW" export default --view timeline --format png --output "$TMP/x.png" --stage 99
expect_stderr "the stage error says how many stages there are" "8 pipeline stages"
expect_rc "trade curves of a training scenario are refused" 1 \
  "$BPW" export default --view trade --format png --output "$TMP/x.png" \
    --scenario gpt3-175b-train --requests 10
expect_rc "an unknown compare baseline is invalid input" 1 \
  "$BPW" export default --view compare --format png --output "$TMP/x.png" --baseline nope
rm -f "$TMP/dollar.png"
expect_rc "a per-dollar chart without prices is refused" 1 \
  "$BPW" export default --view trade --format png --output "$TMP/dollar.png" --y per-dollar \
    --requests 10
expect_stderr "the refusal says no price is given and for which candidate" \
  "No price given for candidate"
if [ -e "$TMP/dollar.png" ]; then fail "no per-dollar chart is written without prices"
else pass "no per-dollar chart is written without prices"; fi

tap_finish
