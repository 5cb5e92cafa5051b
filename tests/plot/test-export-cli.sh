#!/bin/bash
# test-export-cli.sh — `bpw export --view roofline|assignment` in every format
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: test-export-cli.sh BPW. Checks what readers of the files see: PNG size from its
# header, SVG through an XML parser, PDF magic and (with poppler-utils) its text, and the
# CSV against closed forms and the mapping sheet.

BPW=$1
source "$(dirname "$0")/../cli/tap-lib.sh"

PNG_SIZE='
import struct
with open(path, "rb") as f:
    head = f.read(24)
assert head[:8] == b"\x89PNG\r\n\x1a\n", head[:8]
w, h = struct.unpack(">II", head[16:24])'

# ---- roofline ----
for fmt in png svg pdf csv; do
  expect_rc "roofline as $fmt" 0 \
    "$BPW" export default --view roofline --format $fmt --output "$TMP/roofline.$fmt"
done
py_file "roofline PNG is 720 × 405 pt at 144 dpi: 1440 × 810 pixels" "$TMP/roofline.png" "
$PNG_SIZE
assert (w, h) == (1440, 810), (w, h)"
py_file "roofline SVG parses as XML with an svg root" "$TMP/roofline.svg" "
import xml.etree.ElementTree as ET
root = ET.parse(path).getroot()
assert root.tag.endswith('svg'), root.tag
assert root.get('width') == '720pt', root.get('width')"
if head -c 5 "$TMP/roofline.pdf" | grep -q '%PDF-'; then pass "roofline PDF starts with %PDF-"
else fail "roofline PDF starts with %PDF-"; fi
if command -v pdftotext >/dev/null; then
  pdftotext "$TMP/roofline.pdf" "$TMP/roofline.txt"
  for want in "Arithmetic intensity (FLOP/B)" "Attained (FLOP/s)" "TFLOP/s" "ridge" "Layer type"; do
    if grep -qF "$want" "$TMP/roofline.txt"; then pass "roofline PDF text has “$want”"
    else fail "roofline PDF text has “$want”"; fi
  done
else
  skip "roofline PDF text" "pdftotext (poppler-utils) not installed"
fi
py_file "roofline CSV: intensity = FLOPs / bytes, attained ≤ the peak, shares ≤ 1" \
  "$TMP/roofline.csv" "
rows = list(csv.DictReader(open(path)))
ops = [r for r in rows if r['series'] == 'operation']
peaks = [float(r['ceiling_flop_per_s']) for r in rows
         if r['series'] == 'ceiling' and r['ceiling_flop_per_s']]
ridges = [r for r in rows if r['series'] == 'ridge']
assert ops and peaks and ridges
for r in ops:
    i = float(r['flops']) / float(r['device_bytes'])
    assert abs(i - float(r['intensity_flop_per_byte'])) <= 1e-12 * i, r
    assert float(r['attained_flop_per_s']) <= max(peaks) * (1 + 1e-12), r
assert 0.5 < sum(float(r['time_share']) for r in ops) <= 1 + 1e-9
assert sum(int(r['merged_ops']) for r in ops) > len(ops)"

# The sheet has every operation; the roofline's points are its tasks with FLOPs and bytes.
expect_rc "sheet CSV for comparison" 0 \
  "$BPW" export default --view sheet --format csv --output "$TMP/sheet.csv"
py_file "roofline CSV stands for every placeable task of the sheet" "$TMP/roofline.csv" "
rows = [r for r in csv.DictReader(open(path)) if r['series'] == 'operation']
sheet = list(csv.DictReader(open('$TMP/sheet.csv')))
tasks = [r for r in sheet
         if r['dtype'] and float(r['flops']) > 0 and float(r['device_bytes']) > 0]
merged = sum(int(r['merged_ops']) for r in rows)
assert merged == len(tasks), (merged, len(tasks))"

expect_rc "roofline with a baseline candidate and every precision" 0 \
  "$BPW" export default --view roofline --format csv --output "$TMP/base.csv" \
  --baseline "H100 SXM 80 GB" --all-precisions
py_file "the baseline's points and ceilings are in the CSV" "$TMP/base.csv" "
rows = list(csv.DictReader(open(path)))
assert any(r['series'] == 'baseline' for r in rows)
assert any(r['series'] == 'baseline-ceiling' for r in rows)
assert len({r['label'] for r in rows if r['series'] == 'ceiling' and r['ceiling_flop_per_s']}) >= 3"

# ---- assignment ----
for fmt in png svg pdf csv; do
  expect_rc "assignment as $fmt" 0 \
    "$BPW" export default --view assignment --format $fmt --output "$TMP/assignment.$fmt"
done
py_file "assignment PNG is 1440 × 810 pixels" "$TMP/assignment.png" "
$PNG_SIZE
assert (w, h) == (1440, 810), (w, h)"
py_file "assignment SVG parses as XML" "$TMP/assignment.svg" "
import xml.etree.ElementTree as ET
assert ET.parse(path).getroot().tag.endswith('svg')"
if command -v pdftotext >/dev/null; then
  pdftotext "$TMP/assignment.pdf" "$TMP/assignment.txt"
  for want in "tensor-cores" "nvlink" "Bottleneck" "Forward"; do
    if grep -qF "$want" "$TMP/assignment.txt"; then pass "assignment PDF text has “$want”"
    else fail "assignment PDF text has “$want”"; fi
  done
else
  skip "assignment PDF text" "pdftotext (poppler-utils) not installed"
fi
py_file "assignment CSV: one stage, every operation of it, end to end" "$TMP/assignment.csv" "
rows = list(csv.DictReader(open(path)))
stages = {r['stage'] for r in rows}
assert len(stages) == 1, stages
stage = stages.pop()
sheet = [r for r in csv.DictReader(open('$TMP/sheet.csv')) if r['stage'] == stage]
assert sum(int(r['merged_ops']) for r in rows) == len(sheet)
t = 0.0
for r in rows:
    assert abs(float(r['start_s']) - t) <= 1e-9 * max(t, 1), (r['start_s'], t)
    t += float(r['total_s'])
busy = sum(float(r['count_per_step']) * float(r['time_s']) for r in sheet)
# The sheet's CSV writes 9 significant digits: each time_s is within 5e-9 of itself.
assert abs(t - busy) <= 5e-9 * busy, (t, busy)
assert {r['lane_kind'] for r in rows} >= {'matrix', 'vector', 'link'}"
expect_rc "assignment of stage 0, small, at 72 dpi" 0 \
  "$BPW" export default --view assignment --format png --output "$TMP/small.png" \
  --stage 0 --width 400 --height 300 --dpi 72
py_file "a 400 × 300 pt PNG at 72 dpi is 400 × 300 pixels" "$TMP/small.png" "
$PNG_SIZE
assert (w, h) == (400, 300), (w, h)"

# ---- refusals ----
expect_rc "charts are not written as Markdown" 2 \
  "$BPW" export default --view roofline --format md --output "$TMP/x.md"
expect_rc "an unknown view is a usage error" 2 \
  "$BPW" export default --view nope --format png --output "$TMP/x.png"
expect_rc "a stage the plan does not have is invalid input" 1 \
  "$BPW" export default --view assignment --format png --output "$TMP/x.png" --stage 99
expect_stderr "the stage error says how many stages there are" "has 8 pipeline stages"
expect_rc "an unknown baseline is a usage error" 2 \
  "$BPW" export default --view roofline --format png --output "$TMP/x.png" --baseline nope
expect_rc "a baseline on the assignment is a usage error" 2 \
  "$BPW" export default --view assignment --format png --output "$TMP/x.png" --baseline nope
expect_rc "a dpi of 0 is a usage error" 2 \
  "$BPW" export default --view roofline --format png --output "$TMP/x.png" --dpi 0
expect_rc "a PNG over 32767 pixels a side is refused" 2 \
  "$BPW" export default --view roofline --format png --output "$TMP/x.png" --width 14000 --dpi 288
expect_rc "an unwritable output is an error" 1 \
  "$BPW" export default --view roofline --format pdf --output "$TMP/no/such/dir/x.pdf"
expect_stderr "the write error names the file" "x.pdf"

tap_finish
