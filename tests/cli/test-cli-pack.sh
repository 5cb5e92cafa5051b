#!/bin/bash
# test-cli-pack.sh — measurement packs through `bpw check` and `bpw profile import`, and
# `bpw validate`'s in-sample and leave-one-out figures
#
# SPDX-License-Identifier: GPL-3.0-or-later
BPW=$1
PACK_DIR=$2
. "$(dirname "$0")/tap-lib.sh"

PACK=$PACK_DIR/pack.json

expect_rc "check: the shared H200 pack is valid" 0 "$BPW" check "$PACK"
expect_stdout "check: recognised as a measurement pack" "pack.json: ok \(measurement pack\)$"

expect_rc "profile import PACK" 0 "$BPW" profile import "$PACK"
expect_stdout "import: the device" "device: NVIDIA H200 × 1, 132 SMs"
expect_stdout "import: matmul sweep per dtype with units" \
  "matmul sweep bf16: 56 shapes, m 1 … 16384, 0\.9 … 759\.8 TFLOP/s"
expect_stdout "import: copy bandwidth" "4235\.1 GB/s read \+ written"
expect_stdout "import: a run timed outside the profiler" \
  "prefill-4l: prefill, batch 1 × 4096 tokens, bf16 on llama3-8b-4-layers.config.json; step 15\.389 ms \(timed\)"
expect_stdout "import: a run without measured_ms takes its trace's span" \
  "train-4l: .*step [0-9.]+ ms \(trace span\)"

expect_rc "profile import PACK --json" 0 "$BPW" profile import --json "$PACK"
py "import --json: runs, sweeps and units" '
p = d["profiles"][0]
assert p["format"] == "bpw-measurement-pack", p["format"]
assert len(p["runs"]) == 6
assert abs(p["runs"][1]["step_s"] - 15.388959884643555e-3) < 1e-12
assert p["runs"][1]["step_source"] == "timed"
assert p["runs"][0]["step_source"] == "trace span" and p["runs"][0]["step_s"] > 0
sweeps = {s["dtype"]: s for s in p["matmul_sweeps"]}
assert sweeps["bf16"]["shapes"] == 56 and sweeps["fp8"]["shapes"] == 5
assert abs(p["matmul_peak"]["flops_per_s"] - 758.1249200112884e12) < 1e3
'

# Hostile packs beside the runs' files, so that only the spoiled value is wrong.
for f in "$PACK_DIR"/*; do cp "$f" "$TMP/"; done
spoil ()
{
  "$PYTHON" - "$PACK" "$TMP/bad.json" "$1" "$2" <<'PYEOF'
import sys
text = open(sys.argv[1]).read()
assert sys.argv[3] in text
open(sys.argv[2], "w").write(text.replace(sys.argv[3], sys.argv[4], 1))
PYEOF
}
hostile ()
{
  local desc=$1 from=$2 to=$3 where=$4
  if [ -z "$PYTHON" ]; then skip "$desc" "python3 not found"; skip "$desc" ""; return; fi
  rm -f "$TMP/bad.json"
  if ! spoil "$from" "$to" 2>/dev/null; then fail "$desc" "the text to spoil is not in the pack"; return; fi
  expect_rc "check refuses: $desc" 1 "$BPW" check "$TMP/bad.json"
  expect_stderr "check locates: $desc" "bad\.json:[0-9]+:[0-9]+: $where"
}
hostile "missing field" '"framework": "PyTorch 2.11.0+cu130",' '' \
  "stack: missing required field 'framework'"
hostile "wrong type" '"count": 1,' '"count": "one",' "device\.count"
hostile "negative time" '"measured_ms": 1.4796160459518433' '"measured_ms": -1.48' \
  "runs\[2\]\.measured_ms: expected a positive number"
hostile "unknown dtype" '"dtype": "bf16",
    "recompute"' '"dtype": "bf17",
    "recompute"' "runs\[0\]\.scenario\.dtype"
hostile "missing trace" '"trace": "train-gpt.trace.json.gz"' '"trace": "lost.trace.json.gz"' \
  "runs\[4\]\.trace: 'lost\.trace\.json\.gz' does not exist"
hostile "non-finite number" '"tflops": 758.1249200112884' '"tflops": 1e400' \
  "number 1e400 is out of range"
expect_rc "profile import refuses a hostile pack too" 1 "$BPW" profile import "$TMP/bad.json"
expect_stderr "profile import locates it" "bad\.json:[0-9]+:[0-9]+:"

# Every problem at once: three independent ones, three located lines.
if [ -n "$PYTHON" ]; then
  "$PYTHON" - "$PACK" "$TMP/bad.json" <<'PYEOF'
import sys
text = open(sys.argv[1]).read()
for old, new in (('"sms": 132', '"sms": "132"'), ('"phase": "train"', '"phase": "tune"'),
                 ('"seq": 4096', '"seq": -5')):
    assert old in text
    text = text.replace(old, new, 1)
open(sys.argv[2], "w").write(text)
PYEOF
  for cmd in check "profile import"; do
    expect_rc "$cmd names every problem: exit 1" 1 "$BPW" $cmd "$TMP/bad.json"
    if [ "$(grep -Ec 'bad\.json:[0-9]+:[0-9]+: ' "$TMP/err")" = 3 ]; then
      pass "$cmd names every problem: three located lines"
    else
      fail "$cmd names every problem: three located lines" "$(cat "$TMP/err")"
    fi
    expect_stderr "$cmd: the device's" "bad\.json:[0-9]+:[0-9]+: device\.sms: "
    expect_stderr "$cmd: the first run's" "bad\.json:[0-9]+:[0-9]+: runs\[0\]\.scenario\.phase: "
    expect_stderr "$cmd: the second run's" "bad\.json:[0-9]+:[0-9]+: runs\[1\]\.scenario\.seq: "
  done
else
  skip "every problem at once" "python3 not found"
fi

# The H200's hardware alone: the bundled blueprint's stack was estimated from this very pack,
# so it is no out-of-sample "before" for it: its error on the pack's runs is partly in
# sample, and calibrating on the pack again may fairly be refused against it.
HW=h200-sxm-141gb
if [ -n "$PYTHON" ]; then
  "$PYTHON" -c "
import json, sys
d = json.load(open(sys.argv[1])); d.pop('stack', None)
json.dump(d, open(sys.argv[2], 'w'))" "$(dirname "$0")/../../data/blueprints/h200-sxm-141gb.json" "$TMP/h200-hw.json"
  HW=$TMP/h200-hw.json
fi

# profile calibrate --pack: the blueprint calibrated for the pack's device and stack.
CAL=$TMP/cal.json
expect_rc "calibrate --pack" 0 "$BPW" profile calibrate --pack "$PACK" --blueprint "$HW" \
  --output "$CAL"
expect_stdout "calibrate --pack: bandwidth efficiency is the copy's over the datasheet" \
  "device-memory efficiency +0\.8823$"
expect_stdout "calibrate --pack: the report's leave-one-out column" "mean \|error\|"
py_file "calibrate --pack: provenance on what changed, the stack member" "$CAL" '
d = json.load(open(path))
hbm = [m for m in d["memory"] if m["kind"] == "device"][0]
assert abs(hbm["efficiency"]["points"][0][1] - 4.235066749956034 / 4.8) < 1e-12
assert hbm["efficiency"]["kind"] == "measured"
for needle in ("pack.json", "NVIDIA H200", "580.159.04", "CUDA 13.0", "PyTorch 2.11.0+cu130"):
    assert needle in hbm["efficiency"]["source"], needle
tc = d["engines"][0]
assert tc["efficiency"]["bf16"]["kind"] == "measured" and "matmul_bf16" in tc["efficiency"]["bf16"]["source"]
assert tc["overhead"]["kind"] == "calibrated"
s = d["stack"]
assert s["attention"] == "flash" and s["fusion"] == ["attention"]
assert s["precision"] == {"master_weights": "fp32", "logits": "fp32"}
assert s["optimizer"]["implementation"] == "foreach"
assert s["launch"]["decode"] == "graph" and s["launch"]["train"] == "eager"
for v in (s["launch"]["eager_gap"], s["launch"]["train_eager_gap"], s["launch"]["graph_gap"], s["optimizer"]["bytes_per_parameter"]):
    assert v["kind"] == "calibrated" and "pack.json" in v["source"]
assert s["moe_dispatch"]["implementation"] == "loop"
assert "attention_rates" not in s
assert "host issue time" in s["launch"]["eager_gap"]["source"]
assert "inference" in s["launch"]["eager_gap"]["source"]
assert "training" in s["launch"]["train_eager_gap"]["source"]
assert s["launch"]["train_eager_gap"]["value"] > s["launch"]["eager_gap"]["value"]
assert open(path).read().count(chr(34) + "stack" + chr(34)) == 1
'
expect_rc "calibrate --pack again" 0 "$BPW" profile calibrate --pack "$PACK" --blueprint "$HW" \
  --output "$TMP/cal2.json"
if cmp -s "$CAL" "$TMP/cal2.json"; then pass "calibrate --pack: same inputs, same bytes"
else fail "calibrate --pack: same inputs, same bytes" "the two files differ"; fi
expect_rc "evaluate on the calibrated blueprint" 0 "$BPW" evaluate "$PACK_DIR/llama3-8b-4-layers.config.json" \
  --blueprint "$CAL" --phase prefill --global-batch 1 --seq 4096

# --launch: the stack says decode replays a graph; the eager step of the same kernels waits
# for the host's launches.
expect_rc "evaluate --launch graph" 0 "$BPW" evaluate "$PACK_DIR/llama3-8b-4-layers.config.json" \
  --blueprint "$CAL" --phase decode --global-batch 16 --context 4096 --launch graph --json
cp "$TMP/out" "$TMP/graph.json"
expect_rc "evaluate --launch eager" 0 "$BPW" evaluate "$PACK_DIR/llama3-8b-4-layers.config.json" \
  --blueprint "$CAL" --phase decode --global-batch 16 --context 4096 --launch eager --json
py "evaluate --launch: the eager decode step waits for the host's launches" '
graph = json.load(open(sys.argv[1].replace("/out", "/graph.json")))
assert d["step_time_s"] > 2 * graph["step_time_s"], (d["step_time_s"], graph["step_time_s"])
'
expect_rc "evaluate --launch lazy" 2 "$BPW" evaluate "$PACK_DIR/llama3-8b-4-layers.config.json" \
  --blueprint "$CAL" --phase decode --launch lazy

expect_rc "report --pack --json" 0 "$BPW" profile report --pack "$PACK" --blueprint h200-sxm-141gb \
  --calibrated "$CAL" --json
py "report --pack: every run, before, after and leave-one-out, mean and max" '
runs = d["runs"]
assert [r["name"] for r in runs][:2] == ["train-4l", "prefill-4l"] and len(runs) == 6
assert runs[1]["measured_from"] == "measured_ms" and runs[0]["measured_from"] == "trace span"
for c in ("before", "after", "leave_one_out"):
    errs = [abs(r[c + "_error"]) for r in runs]
    assert abs(d[c]["mean_abs_error"] - sum(errs) / len(errs)) < 1e-12
    assert abs(d[c]["max_abs_error"] - max(errs)) < 1e-12
    for r in runs:
        assert abs(r[c + "_s"] / r["measured_s"] - 1 - r[c + "_error"]) < 1e-12
assert d["calibrated"] == "h200-sxm-141gb-calibrated"
'
py "report --pack: predicted peak memory per run, no error without a measured peak" '
for r in d["runs"]:
    m = r["peak_memory"]
    assert m["measured_bytes"] is None and "before_error" not in m
    assert m["before_bytes"] > 0 and m["after_bytes"] > 0 and m["leave_one_out_bytes"] > 0
assert "peak_memory_mean_abs_error" not in d["before"]
'
# A run with a measured peak: its error against each prediction, and the means over it.
if [ -n "$PYTHON" ]; then
  "$PYTHON" -c "
import sys
t = open(sys.argv[1]).read()
t = t.replace('\"note\": \"one whole step', '\"peak_memory_bytes\": 40000000000, \"note\": \"one whole step', 1)
open(sys.argv[2], 'w').write(t)" "$PACK" "$TMP/peak.json"
fi
expect_rc "report --pack with a measured peak" 0 "$BPW" profile report --pack "$TMP/peak.json" \
  --blueprint h200-sxm-141gb --json
py "report --pack: peak memory error where the pack measures it" '
m = d["runs"][0]["peak_memory"]
assert m["measured_bytes"] == 40000000000
for c in ("before", "after", "leave_one_out"):
    assert abs(m[c + "_bytes"] / 4e10 - 1 - m[c + "_error"]) < 1e-12
    assert abs(d[c]["peak_memory_mean_abs_error"] - abs(m[c + "_error"])) < 1e-12
assert d["runs"][1]["peak_memory"]["measured_bytes"] is None
'
expect_rc "report --pack text" 0 "$BPW" profile report --pack "$PACK" --blueprint h200-sxm-141gb
expect_stdout "report --pack text: a row per run" "^  decode-graph-4l +1\.480 "
expect_rc "report --pack needs --blueprint" 2 "$BPW" profile report --pack "$PACK"

# Refused: runs that contradict the microbenchmarks (measured ten times faster than the
# copy and matmul rates allow) get worse with calibration; nothing is written.
if [ -n "$PYTHON" ]; then
  "$PYTHON" - "$PACK" "$TMP/fast.json" <<'PYEOF'
import sys
text = open(sys.argv[1]).read()
for ms in ("15.388959884643555", "1.4796160459518433", "16.728992462158203", "110.2979507446289"):
    assert ms in text
    text = text.replace('"measured_ms": ' + ms, '"measured_ms": %r' % (float(ms) / 10))
open(sys.argv[2], "w").write(text)
PYEOF
  # The H200's hardware alone (above): its bundled (estimated, slower) stack would be
  # further off these times than any calibration.
  rm -f "$TMP/refused.json"
  expect_rc "calibrate --pack refuses a calibration that predicts worse" 1 "$BPW" profile calibrate \
    --pack "$TMP/fast.json" --blueprint "$TMP/h200-hw.json" --output "$TMP/refused.json"
  expect_stderr "calibrate --pack says why" "calibration refused: .*leave-one-run-out"
  if [ -e "$TMP/refused.json" ]; then fail "refused: nothing written" "the file exists"
  else pass "refused: nothing written"; fi
else
  skip "calibrate --pack refuses" "python3 not found"
fi

# A bad pack: located error, nothing written.
spoil '"count": 1,' '"count": "one",'
expect_rc "calibrate --pack refuses a bad pack" 1 "$BPW" profile calibrate --pack "$TMP/bad.json" \
  --blueprint h200-sxm-141gb --output "$TMP/never.json"
expect_stderr "calibrate --pack locates the problem" "bad\.json:[0-9]+:[0-9]+: device\.count"
if [ -e "$TMP/never.json" ]; then fail "bad pack: nothing written" "the file exists"
else pass "bad pack: nothing written"; fi

# bpw validate: both figures, labelled, with their means and maxima; leave-one-out different
# from in-sample (by half a point or more) on some row.
expect_rc "validate --json" 0 "$BPW" validate --json
py "validate: in-sample and leave-one-out per row, with mean and max" '
rows = d["rows"]
assert len(rows) == 10
assert "error_in_sample" in d and "error_leave_one_out" in d
for r in rows:
    assert r["error_in_sample"] == r["error"]
    assert "error_leave_one_out" in r and "predicted_tflops_leave_one_out" in r
loo = [abs(r["error_leave_one_out"]) for r in rows]
ins = [abs(r["error_in_sample"]) for r in rows]
assert abs(d["leave_one_out"]["mean_abs_error"] - sum(loo) / 10) < 1e-12
assert abs(d["leave_one_out"]["max_abs_error"] - max(loo)) < 1e-12
assert abs(d["in_sample"]["max_abs_error"] - max(ins)) < 1e-12
assert any(abs(a - b) > 0.005 for a, b in zip(loo, ins)), "no row moved when held out"
'
expect_rc "validate text" 0 "$BPW" validate
expect_stdout "validate: says which figure is in-sample" "^in-sample: mean \|error\|"
expect_stdout "validate: and which is leave-one-out" "^leave-one-out: mean \|error\|"
expect_rc "validate --in-sample-only" 0 "$BPW" validate --in-sample-only --json
py "in-sample only: no refits" 'assert "leave_one_out" not in d'

tap_finish
