#!/bin/bash
# test-cli-profile.sh — `bpw profile import|correlate|calibrate|report`
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: test-cli-profile.sh PATH/TO/bpw PATH/TO/tests/data/profiles. Prints TAP.

set -u
BPW=${1:?usage: test-cli-profile.sh PATH/TO/bpw PROFILES}
D=${2:?usage: test-cli-profile.sh PATH/TO/bpw PROFILES}
. "$(dirname "$0")/tap-lib.sh"

MODEL="$D/gpt2-block-config.json"
CPU="$D/cpu-epyc-1thread.json"
RUN=(--global-batch 2 --micro-batch 2 --seq 32 --dtype fp32 --optimizer adam)

# ---- import ----
expect_rc "import reads a kineto GPU trace and a Chrome trace" 0 \
  "$BPW" profile import "$D/kineto-gpu.json" "$D/chrome-events.json" --json
py "import --json: formats, metadata, devices, items" "
a, b = d['profiles']
assert a['format'] == 'pytorch' and b['format'] == 'chrome'
assert a['metadata']['hardware'] == 'NVIDIA A100-SXM4-80GB (sm_80) ×2'
assert a['metadata']['date'] == '2024-05-01T12:00:00Z'
assert [x['kind'] for x in a['items']] == ['matmul', 'softmax', 'communication', 'copy']
assert abs(a['items'][0]['duration_s'] - 130e-6) < 1e-12 and a['items'][0]['kernels'] == 2
assert len(b['warnings']) == 3 and len(b['devices']) == 2"
printf '{"traceEvents": [\n  {"ph": "X", "ts": "soon", "dur": 1}\n]}\n' > "$TMP/bad.json"
expect_rc "a malformed trace is refused with exit 1" 1 "$BPW" profile import "$TMP/bad.json"
expect_stderr "the refusal is located" "bad.json:2:21: traceEvents\[0\]\.ts: expected a number"
expect_rc "an unknown subcommand is a usage error" 2 "$BPW" profile frobnicate
expect_rc "profile --help lists the subcommands" 0 "$BPW" profile --help
expect_stdout "the help names calibrate" "calibrate MODEL --blueprint BP"

# ---- correlate: the real PyTorch run ----
expect_rc "correlate the PyTorch GPT-2 step" 0 \
  "$BPW" profile correlate "$MODEL" --blueprint "$CPU" "${RUN[@]}" \
  --profile "$D/gpt2-block.json" --json
py "correlate --json: ≥ 95 % on both sides, nothing unexplained" "
s = d['stats']
assert s['modelled_match_rate'] >= 0.95 and s['measured_match_rate'] >= 0.95, s
assert s['unexplained_items'] == 0
assert s['matched_ops'] + s['covered_ops'] + s['missing_ops'] == s['modelled_ops']
assert sum(r['status'] == 'missing' for r in d['rows']) == s['missing_ops']
ops = {o['name']: o for o in d['operations']}
assert any(o['class'] == 'matrix' and o['achieved_flops_per_s'] > 0 for o in d['operations'])
assert d['profile']['metadata']['framework'].startswith('PyTorch 1.13')"
expect_rc "correlate needs --profile" 2 \
  "$BPW" profile correlate "$MODEL" --blueprint "$CPU" "${RUN[@]}"

# ---- the workbench's own trace: matched one to one ----
expect_rc "evaluate writes a trace" 0 \
  "$BPW" evaluate "$MODEL" --blueprint "$CPU" "${RUN[@]}" --trace "$TMP/own.json"
expect_rc "correlate the workbench's own trace" 0 \
  "$BPW" profile correlate "$MODEL" --blueprint "$CPU" "${RUN[@]}" --profile "$TMP/own.json" --json
py "its own trace correlates fully" "
s = d['stats']
assert s['matched_ops'] == s['modelled_ops'] == s['measured_items'] == s['matched_items'], s
# Trace times are whole nanoseconds: sub-µs slices round by up to 1 %.
assert s['max_abs_error'] < 0.01 and s['time_weighted_error'] < 1e-4, s"

# ---- calibrate, reproducibly ----
expect_rc "calibrate the CPU blueprint" 0 \
  "$BPW" profile calibrate "$MODEL" --blueprint "$CPU" "${RUN[@]}" --profile "$D/gpt2-block.json" \
  --output "$TMP/cal1.json" --json
py "calibrate --json: tables fitted" "
assert d['blueprint'] == 'cpu-epyc-1thread-calibrated'
assert {t['table'] for t in d['tables']} >= {'fma fp32', 'dram'}
assert 'gpt2-block.json' in d['source'] and 'PyTorch' in d['source']"
expect_rc "calibrate again" 0 \
  "$BPW" profile calibrate "$MODEL" --blueprint "$CPU" "${RUN[@]}" --profile "$D/gpt2-block.json" \
  --output "$TMP/cal2.json"
if cmp -s "$TMP/cal1.json" "$TMP/cal2.json"; then pass "the same inputs give the same file"
else fail "the same inputs give the same file"; fi
expect_rc "the calibrated blueprint is a valid blueprint" 0 "$BPW" check "$TMP/cal1.json"
run "$PYTHON" -c "
import json, sys
b = json.load(open('$TMP/cal1.json'))
e = [x for x in b['engines'] if x['kind'] == 'matrix'][0]
t = e['efficiency']['fp32']
assert t['kind'] == 'calibrated' and 'AMD EPYC' in t['source'], t
assert e['peak']['fp32']['kind'] == 'estimate'"
if [ "$rc" -eq 0 ]; then pass "changed tables say calibrated, others keep their kind"
else fail "changed tables say calibrated, others keep their kind"; fi

# ---- report: the profile before and after, and Table 1 as bpw validate prints it ----
expect_rc "report with the calibrated blueprint and Table 1" 0 \
  "$BPW" profile report "$MODEL" --blueprint "$CPU" "${RUN[@]}" --profile "$D/gpt2-block.json" \
  --calibrated "$TMP/cal1.json" --megatron --json
cp "$TMP/out" "$TMP/report.json"
py "the calibrated blueprint predicts the measured work better" "
p = d['sections'][0]
e = p['end_to_end']
assert p['calibrated_weighted_error'] < p['weighted_error']
assert abs(e['calibrated_work_s'] / e['measured_work_s'] - 1) < 0.1
assert abs(e['calibrated_step_s'] / e['measured_step_s'] - 1) < abs(e['step_error'])"
expect_rc "validate --json" 0 "$BPW" validate --json
py "the report's Table 1 is the one bpw validate prints" "
r = json.load(open('$TMP/report.json'))['sections'][1]
assert r['reference'].startswith('Megatron-LM 2021 Table 1') and r['blueprint'] == d['blueprint']
assert len(r['entries']) == len(d['rows'])
for e, row in zip(r['entries'], d['rows']):
    assert e['predicted'] == row['predicted_tflops'] and e['measured'] == row['published_tflops']
    assert e['error'] == row['error']
assert r['mean_abs_error'] == d['mean_abs_error'] and r['max_abs_error'] == d['max_abs_error']"
expect_rc "report without MODEL is Table 1 alone" 0 "$BPW" profile report
expect_stdout "with its mean and max error" \
  "mean \|error\| [0-9.]+ %, max \|error\| [0-9.]+ % over 10 rows"
expect_rc "--calibrated needs a MODEL" 2 "$BPW" profile report --calibrated "$TMP/cal1.json"

tap_finish
