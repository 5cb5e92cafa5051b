#!/bin/bash
# test-cli-evaluate.sh — `bpw evaluate`, `bpw validate` and `bpw export --view sheet`
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: test-cli-evaluate.sh PATH/TO/bpw. Prints TAP.

set -u
BPW=${1:?usage: test-cli-evaluate.sh PATH/TO/bpw}
. "$(dirname "$0")/tap-lib.sh"

# ---- evaluate: the contract's keys, exit codes, and both paths agreeing ----

expect_rc "evaluate gpt3-175b on a100 (bound plan)" 0 \
  "$BPW" evaluate gpt3-175b --blueprint a100-sxm-80gb --tp 8 --pp 8 --dp 16 \
  --global-batch 1536 --recompute full --json
py "evaluate --json has the contract's keys" "
for k in ('step_time_s', 'mfu', 'hfu', 'bottleneck', 'legal', 'reasons',
          'memory_stall_fraction_by_layer_type'):
    assert k in d, k
assert 'peak_bytes' in d['memory']
for k in ('compute', 'memory_stall', 'exposed_communication', 'bubble', 'recompute', 'optimizer'):
    assert k in d['breakdown_s'], k
assert d['legal'] is True and d['reasons'] == []
assert abs(sum(d['breakdown_s'].values()) - d['step_time_s']) < 1e-9 * d['step_time_s']
assert d['bottleneck'] in ('compute', 'memory', 'communication', 'latency', 'capacity', 'bubble', 'dependency')"
py "evaluate --json splits the step by layer type: shares add up, MFU averages to the step's" "
t, m, c = d['time_s_by_layer_type'], d['mfu_by_layer_type'], d['bottleneck_by_layer_type']
assert set(t) == set(m) == set(c) and {'attention', 'mlp', 'other'} <= set(t), sorted(t)
assert abs(sum(t.values()) - d['step_time_s']) < 1e-12 * d['step_time_s']
mean = sum(t[k] / d['step_time_s'] * m[k] for k in t)
assert abs(mean - d['mfu']) < 1e-12 * d['mfu'], (mean, d['mfu'])
for k in t:
    assert set(c[k]) == {'compute', 'memory', 'latency', 'communication', 'bubble'}, c[k]
    assert abs(sum(c[k].values()) - t[k]) < 1e-12 * t[k], k
assert m['other'] == 0 and c['other']['bubble'] > 0
assert 'layer type' in d['mfu_convention'] and 'other' in d['mfu_convention']"
cp "$TMP/out" "$TMP/plan.json"
py "MFU is model FLOPs over step time x devices x 312 TFLOP/s" "
B, s, L, h, V = 1536, 2048, 96, 12288, 51200
model = 72 * B * s * L * h * h + 12 * B * L * s * s * h + 6 * B * s * h * V
mfu = model / (d['step_time_s'] * 1024 * 312e12)
assert abs(d['mfu'] - mfu) < 1e-9 * mfu, (d['mfu'], mfu)"

expect_rc "evaluate --analytic" 0 \
  "$BPW" evaluate gpt3-175b --blueprint a100-sxm-80gb --tp 8 --pp 8 --dp 16 \
  --global-batch 1536 --recompute full --analytic --json
py "the analytic estimate agrees with the bound plan's closed form" "
p = json.load(open('$TMP/plan.json'))
assert abs(d['step_time_s'] - p['analytic_step_time_s']) < 1e-9 * p['analytic_step_time_s']
a = p['simulated_vs_analytic']['analytic_peak_bytes']
assert abs(d['memory']['peak_bytes'] - a) < 1e-6 * a"
py "the simulated step stays within 5 % of the closed form" "
p = json.load(open('$TMP/plan.json'))
assert abs(p['step_time_s'] / p['analytic_step_time_s'] - 1) < 0.05"
py "the bundled stack's fp32 master weights, gradients and logits are in both peaks" "
p = json.load(open('$TMP/plan.json'))
m = p['plan']['memory_by_stage'][0]
assert abs(m['gradients'] - 2 * m['weights']) < 1e-6 * m['gradients'], m
assert p['simulated_vs_analytic']['analytic_peak_bytes'] > 56e9, p['simulated_vs_analytic']"

# The A100's hardware alone (its stack removed): the two paths agree there too.
python3 -c "
import json, sys
d = json.load(open(sys.argv[1])); d.pop('stack', None); d['name'] = 'a100-hw'
json.dump(d, open(sys.argv[2], 'w'))" "$(dirname "$0")/../../data/blueprints/a100-sxm-80gb.json" "$TMP/a100-hw.json"
expect_rc "evaluate on the A100's hardware alone (bound plan)" 0 \
  "$BPW" evaluate gpt3-175b --blueprint "$TMP/a100-hw.json" --tp 8 --pp 8 --dp 16 \
  --global-batch 1536 --recompute full --json
cp "$TMP/out" "$TMP/plan-hw.json"
expect_rc "evaluate on the A100's hardware alone (--analytic)" 0 \
  "$BPW" evaluate gpt3-175b --blueprint "$TMP/a100-hw.json" --tp 8 --pp 8 --dp 16 \
  --global-batch 1536 --recompute full --analytic --json
py "without the stack the analytic estimate agrees with the closed form, with less memory" "
p = json.load(open('$TMP/plan-hw.json'))
assert abs(d['step_time_s'] - p['analytic_step_time_s']) < 1e-9 * p['analytic_step_time_s']
a = p['simulated_vs_analytic']['analytic_peak_bytes']
assert abs(d['memory']['peak_bytes'] - a) < 1e-6 * a
assert a < 55e9, a"

expect_rc "decode reports the time per output token" 0 \
  "$BPW" evaluate llama3-70b --blueprint h200-sxm-141gb --tp 8 --phase decode \
  --global-batch 64 --context 4096 --json
py "decode: tpot = step, tokens/s = batch / step, no ttft" "
assert d['tpot_s'] == d['step_time_s'] and d['ttft_s'] is None
assert abs(d['tokens_per_s'] - 64 / d['step_time_s']) < 1e-9 * d['tokens_per_s']"

# ---- an illegal plan: exit 3 with the shortfall in GiB ----
cat > "$TMP/1t.json" <<JSON
{ "format": "bpw-workload", "version": 1,
  "model": { "name": "megatron-1t", "layers": 128, "hidden": 25600, "heads": 160,
             "ffn": 102400, "vocab": 51200, "max_positions": 2048 } }
JSON
expect_rc "a 1T model on 8 GPUs without ZeRO is refused with exit 3" 3 \
  "$BPW" evaluate "$TMP/1t.json" --blueprint a100-sxm-80gb --tp 8 --global-batch 8
expect_stderr "the reason names the shortfall per device in GiB" \
  "illegal plan: Pipeline stage 0 needs [0-9.]+ GiB .* [0-9.]+ GiB short"
expect_rc "an overfull tier is refused" 3 \
  "$BPW" evaluate gpt3-175b --blueprint a100-sxm-80gb --tp 16 --pp 8 --dp 8 \
  --global-batch 1536 --tp-tier 0
expect_stderr "the tier reason names the tier and the product" "Tier .nvlink. holds 8 devices"
expect_rc "evaluate without --blueprint is a usage error" 2 "$BPW" evaluate gpt3-175b
expect_rc "an unknown blueprint is invalid input" 1 \
  "$BPW" evaluate gpt3-175b --blueprint no-such-chip

# ---- Calculon's three inputs as they are ----
if [ -d "$CALCULON" ]; then
  for run in full:27.295 seqsel:21.422; do
    name=${run%%:*}; ref=${run##*:}
    expect_rc "evaluate Calculon's $name run" 0 \
      "$BPW" evaluate "$CALCULON"/models/gpt3-175B.json --blueprint "$CALCULON"/systems/a100_80g.json \
      --execution "$CALCULON"/runs/gpt3-175B_$name.execution.json --json
    py "Calculon $name: within 10 % of $ref s" "assert abs(d['step_time_s'] / $ref - 1) < 0.10, d['step_time_s']"
  done
else
  for t in full full-10 seqsel seqsel-10; do fail "Calculon $t" "tests/data/reference/calculon is missing"; done
fi

# ---- validate: Megatron-LM 2021 Table 1 ----
expect_rc "validate: every Table 1 row within 10 %" 0 "$BPW" validate --json
py "validate --json lists ten rows with errors under 10 %" "
assert len(d['rows']) == 10 and d['ok']
for r in d['rows']:
    assert abs(r['predicted_tflops'] / r['published_tflops'] - 1) < 0.10, r"

# ---- export --view sheet ----
expect_rc "export the default study's mapping sheet as CSV" 0 \
  "$BPW" export default --view sheet --format csv --output "$TMP/sheet.csv"
py_file "the sheet's CSV has one row per operation with the sheet's columns" "$TMP/sheet.csv" "
rows = list(csv.DictReader(open(path)))
need = {'lineage_id', 'layer_type', 'phase', 'engine', 'dtype', 'flops', 'device_bytes',
        'arithmetic_intensity_flop_per_byte', 'tile_m', 'fusion', 'time_s', 'bottleneck'}
assert need <= set(rows[0]), set(rows[0])
assert len(rows) > 1000
assert {r['phase'] for r in rows} >= {'forward', 'backward_activation', 'backward_weight', 'optimizer'}
for r in rows:
    if float(r['device_bytes']) > 0 and float(r['flops']) > 0:
        ai = float(r['flops']) / float(r['device_bytes'])
        assert abs(ai - float(r['arithmetic_intensity_flop_per_byte'])) <= 1e-5 * ai"
expect_rc "export the sheet as Markdown for one candidate and scenario" 0 \
  "$BPW" export default --view sheet --format md --output "$TMP/sheet.md" \
  --candidate "H100 SXM 80 GB" --scenario llama3-70b-decode
if grep -q "^| 0 | .* | attn.qkv |" "$TMP/sheet.md"; then pass "the Markdown sheet has the QKV row"
else fail "the Markdown sheet has the QKV row"; fi
expect_rc "export of an unknown candidate is a usage error" 2 \
  "$BPW" export default --view sheet --format csv --output "$TMP/x.csv" --candidate nope

# ---- export --view packet: JSON and Markdown, the format from the extension ----
STUDY=$(dirname "$0")/../data/studies/gpt2-cpu.bpw-study.json
expect_rc "export the review packet as JSON (format from the extension)" 0 \
  "$BPW" export "$STUDY" --view packet --output "$TMP/packet.json"
py_file "the packet has every key, the trace's versions and a recommendation" "$TMP/packet.json" "
d = json.load(open(path))
keys = ['metadata', 'quality_thresholds', 'precision_modes', 'baseline', 'candidates',
        'bottleneck_evidence', 'mitigations', 'rejected_alternatives', 'validation_matrix',
        'owners', 'recommendation']
assert all(k in d for k in keys), [k for k in keys if k not in d]
run = d['metadata']['measured_runs'][0]
assert run['framework'] == 'PyTorch 1.13.0a0' and run['firmware'] == 'not recorded', run
assert d['recommendation']['decision'] in ('go', 'conditional', 'no-go')
assert all(v['rollback_trigger'] for v in d['validation_matrix'])"
expect_rc "export the review packet as Markdown" 0 \
  "$BPW" export "$STUDY" --view packet --format md --output "$TMP/packet.md"
py_file "the Markdown has every section and the JSON's decision" "$TMP/packet.md" "
md = open(path).read()
d = json.load(open('$TMP/packet.json'))
for h in ['Metadata', 'Quality thresholds and evidence', 'Recommendation',
          'Baseline and candidates', 'Bottleneck evidence', 'Mitigations',
          'Rejected alternatives', 'Validation matrix', 'Owners']:
    assert '\\n## ' + h + '\\n' in md, h
assert 'Decision: ' + d['recommendation']['decision'] + ';' in md
for v in d['validation_matrix']:
    assert v['rollback_trigger'] in md, v"
expect_rc "the packet is not written as PDF" 2 \
  "$BPW" export "$STUDY" --view packet --format pdf --output "$TMP/packet.pdf"

# ---- --cost-model calculon: `calculon llm` on the same three files, to the last bit ----
CD=$(dirname "$0")/../data/calculon
for name in full seqsel; do
  expect_rc "evaluate --cost-model calculon: gpt3-175B $name" 0 \
    "$BPW" evaluate "$CD/gpt3-175B.json" --blueprint "$CD/../calculon-search/a100_80g.json" \
    --execution "$CD/gpt3-175B_$name.execution.json" --cost-model calculon --json
  py "gpt3-175B $name: every statistic and layer is Calculon's (calculon llm ... -l)" "
c = json.load(open('$CD/gpt3-175B_${name}_a100_80g.stats.json'))
assert len(d) == len(c) == 97 and list(d) == list(c)
assert d == c, [(k, d[k], c[k]) for k in c if d[k] != c[k]][:3]"
done
expect_rc "evaluate --cost-model calculon prints Calculon's report" 0 \
  "$BPW" evaluate "$CD/gpt3-175B.json" --blueprint "$CD/../calculon-search/a100_80g.json" \
  --execution "$CD/gpt3-175B_seqsel.execution.json" --cost-model calculon
expect_stdout "with its total" "total 21\\.4224"
expect_rc "evaluate --cost-model calculon needs --execution" 2 \
  "$BPW" evaluate "$CD/gpt3-175B.json" --blueprint "$CD/../calculon-search/a100_80g.json" \
  --cost-model calculon
expect_rc "evaluate --cost-model calculon: the execution file decides the parallelism" 2 \
  "$BPW" evaluate "$CD/gpt3-175B.json" --blueprint "$CD/../calculon-search/a100_80g.json" \
  --execution "$CD/gpt3-175B_seqsel.execution.json" --cost-model calculon --tp 4
if [ -n "$PYTHON" ]; then
  "$PYTHON" -c "
import json
e = json.load(open('$CD/gpt3-175B_seqsel.execution.json'))
e.update(tensor_par=16, data_par=8)
json.dump(e, open('$TMP/tp16.json', 'w'))"
  expect_rc "evaluate --cost-model calculon: an execution Calculon refuses is an illegal plan" \
    3 "$BPW" evaluate "$CD/gpt3-175B.json" --blueprint "$CD/../calculon-search/a100_80g.json" \
    --execution "$TMP/tp16.json" --cost-model calculon
  expect_stderr "with Calculon's reason" "Calculon refuses the execution: Network tier0 isn't big"
else
  skip "evaluate --cost-model calculon: a refused execution" "python3 not found"
  skip "with Calculon's reason" "python3 not found"
fi

# Blocks that PP x interleave does not divide: Calculon gives the first stages one more and
# prices stage 0 (gopher-280B: 80 blocks, PP 24 x 2; turing-530B: 105 blocks, PP 10 x 11).
for run in gopher-280B:pp24v2 turing-530B:pp10v11; do
  model=${run%%:*} tag=${run#*:}
  expect_rc "evaluate --cost-model calculon: $model $tag, blocks not a multiple of PP x v" 0 \
    "$BPW" evaluate "$CD/$model.json" --blueprint "$CD/../calculon-search/a100_80g.json" \
    --execution "$CD/${model}_$tag.execution.json" --cost-model calculon --json
  py "$model $tag: every statistic is Calculon's (calculon llm)" "
c = json.load(open('$CD/${model}_${tag}_a100_80g.stats.json'))
assert d == {**d, **c}, [(k, d.get(k), c[k]) for k in c if d.get(k) != c[k]][:3]"
done

# bf16 on a system that lists float16 only: Calculon's Processor refuses the datatype.
if [ -n "$PYTHON" ]; then
  "$PYTHON" -c "
import json
e = json.load(open('$CD/gpt3-175B_seqsel.execution.json'))
e.update(datatype='bfloat16')
json.dump(e, open('$TMP/bf16.json', 'w'))"
  expect_rc "evaluate --cost-model calculon: bfloat16 on a float16-only system is refused" 1 \
    "$BPW" evaluate "$CD/gpt3-175B.json" --blueprint "$CD/../calculon-search/a100_80g.json" \
    --execution "$TMP/bf16.json" --cost-model calculon
  expect_stderr "saying the system has no bfloat16 entry" "a100_80g.*no bfloat16 entry"
else
  skip "evaluate --cost-model calculon: bfloat16 refused" "python3 not found"
  skip "saying the system has no bfloat16 entry" "python3 not found"
fi

# Options Calculon's model has no use for are refused by name, not ignored.
for opt in "--tp-overlap ring" --dp-overlap --no-dp-overlap "--fusion none" "--tiling auto" \
           "--tp-tier 0" "--ep-tier 1" "--optimizer sgd" "--context 100" "--vocab 50000"; do
  # shellcheck disable=SC2086
  expect_rc "evaluate --cost-model calculon refuses $opt" 2 \
    "$BPW" evaluate "$CD/gpt3-175B.json" --blueprint "$CD/../calculon-search/a100_80g.json" \
    --execution "$CD/gpt3-175B_seqsel.execution.json" --cost-model calculon $opt
  expect_stderr "naming ${opt%% *}" "calculon: ${opt%% *} has no place"
done

# A placement at a memory level the blueprint lacks is the mapping file's error, located;
# one on an on-chip level it does not fit makes the plan illegal.
cat > "$TMP/no-level.json" <<JSON
{
  "format": "bpw-mapping",
  "version": 1,
  "placement": { "activation": 7 }
}
JSON
expect_rc "evaluate --mapping placing at a missing memory level" 1 \
  "$BPW" evaluate llama3-8b --blueprint h100-sxm-80gb --mapping "$TMP/no-level.json"
expect_stderr "located at the placement" "no-level.json:4:32: placement.activation: .*from 0 to 2"
cat > "$TMP/in-sram.json" <<JSON
{
  "format": "bpw-mapping",
  "version": 1,
  "placement": { "activation": 0 }
}
JSON
expect_rc "evaluate: the same plan with activations in device memory fits" 0 \
  "$BPW" evaluate llama3-8b --blueprint h100-sxm-80gb --tp 8 --global-batch 8 --micro-batch 1
expect_rc "evaluate --mapping placing activations in SRAM" 3 \
  "$BPW" evaluate llama3-8b --blueprint h100-sxm-80gb --tp 8 --global-batch 8 --micro-batch 1 \
  --mapping "$TMP/in-sram.json"
expect_stderr "saying what does not fit where" "activation: .* placed in sram “smem” of"

# Levels by name: the blueprint's own names place as their indices do; a name it lacks is
# refused at the field with the names it has.
cat > "$TMP/by-name.json" <<JSON
{
  "format": "bpw-mapping",
  "version": 1,
  "placement": { "activation": "smem" }
}
JSON
expect_rc "evaluate --mapping placing activations in SRAM by name" 3 \
  "$BPW" evaluate llama3-8b --blueprint h100-sxm-80gb --tp 8 --global-batch 8 --micro-batch 1 \
  --mapping "$TMP/by-name.json"
expect_stderr "as the index does" "activation: .* placed in sram “smem” of"
sed -i 's/"smem"/"hbm"/' "$TMP/by-name.json"
expect_rc "evaluate --mapping placing activations in HBM by name" 0 \
  "$BPW" evaluate llama3-8b --blueprint h100-sxm-80gb --tp 8 --global-batch 8 --micro-batch 1 \
  --mapping "$TMP/by-name.json"
sed -i 's/"hbm"/"scratchpad"/' "$TMP/by-name.json"
expect_rc "evaluate --mapping placing at a level name the blueprint lacks" 1 \
  "$BPW" evaluate llama3-8b --blueprint h100-sxm-80gb --mapping "$TMP/by-name.json"
expect_stderr "listing the blueprint's levels" \
  "by-name.json:4:32: placement.activation: .*memory levels \(smem, l2, hbm\), .*got \"scratchpad\""

# ---- context parallelism ----
expect_rc "evaluate with context parallelism (ring)" 0 \
  "$BPW" evaluate llama3-8b --blueprint h100-sxm-80gb --seq 8192 --tp 2 --cp 4 --zero 1 --json
cp "$TMP/out" "$TMP/cp-ring.json"
py "tp 2 x cp 4: eight devices, the CP group on a tier" "
assert d['plan']['devices'] == 8, d['plan']['devices']
assert 'cp' in d['plan']['tiers'], d['plan']['tiers']"
expect_rc "evaluate with context parallelism (all-gather)" 0 \
  "$BPW" evaluate llama3-8b --blueprint h100-sxm-80gb --seq 8192 --tp 2 --cp 4 --zero 1 \
  --cp-algorithm allgather --json
py "the all-gather waits before attention, the ring hides behind it: it is no faster" "
r = json.load(open('$TMP/cp-ring.json'))
assert d['breakdown_s']['exposed_communication'] >= r['breakdown_s']['exposed_communication']"
expect_rc "evaluate without context parallelism names no CP tier" 0 \
  "$BPW" evaluate llama3-8b --blueprint h100-sxm-80gb --seq 8192 --tp 8 --json
py "no cp tier" "assert 'cp' not in d['plan']['tiers'], d['plan']['tiers']"
expect_rc "decode refuses context parallelism" 3 \
  "$BPW" evaluate llama3-8b --blueprint h100-sxm-80gb --phase decode --cp 2
expect_stderr "and says why" "decode processes one token per sequence, so use cp 1"
expect_rc "a sequence that does not cut into 2 cp chunks" 3 \
  "$BPW" evaluate llama3-8b --blueprint h100-sxm-80gb --seq 1000 --cp 8
expect_stderr "names the multiple" "the sequence must be a multiple of 16"
expect_rc "an unknown CP algorithm is a usage error" 2 \
  "$BPW" evaluate llama3-8b --blueprint h100-sxm-80gb --cp-algorithm rin
expect_stderr "listing the choices" "ring or allgather"
# ---- uneven pipelines ----
# Llama 3 405B as Meta trained it at 8 K tokens: TP 8, PP 16 interleaved over 2 chunks with
# the first and last stage one layer lighter, DP 128, 16 M tokens a step.
# On the H100's hardware alone: the bundled eager stack's fp32 gradients and logits take it
# past 80 GB with no recomputation, as both paths now say (below).
python3 -c "
import json, sys
d = json.load(open(sys.argv[1])); d.pop('stack', None); d['name'] = 'h100-hw'
json.dump(d, open(sys.argv[2], 'w'))" "$(dirname "$0")/../../data/blueprints/h100-sxm-80gb.json" "$TMP/h100-hw.json"
expect_rc "evaluate llama3-405b in Meta's configuration (--pp-layers lighter:1)" 0 \
  "$BPW" evaluate llama3-405b --blueprint "$TMP/h100-hw.json" --tp 8 --sp --pp 16 --dp 128 \
  --zero 1 --interleave 2 --pp-layers lighter:1 --seq 8192 --global-batch 2048 \
  --micro-batch 1 --recompute none --analytic --json
py "it is legal, with an MFU between 0 and 1" "
assert d['legal'] is True, d['reasons']
assert 0 < d['mfu'] < 1"
for path in "" --analytic; do
  expect_rc "with the bundled stack it does not fit, on either path ${path:-(bound plan)}" 3 \
    "$BPW" evaluate llama3-405b --blueprint h100-sxm-80gb --tp 8 --sp --pp 16 --dp 128 \
    --zero 1 --interleave 2 --pp-layers lighter:1 --seq 8192 --global-batch 2048 \
    --micro-batch 1 --recompute none $path --json
  expect_stderr "naming the shortfall ${path:-(bound plan)}" "Pipeline stage 15 needs 83.71 GiB"
done
expect_rc "--pp-layers refuses a list with a stage of no layers" 2 \
  "$BPW" evaluate llama3-8b --blueprint h100-sxm-80gb --pp 4 --pp-layers 8,0,12,12
expect_stderr "naming the option" "--pp-layers: expected a comma list"
cat > "$TMP/uneven.json" <<JSON
{
  "format": "bpw-mapping", "version": 1,
  "parallel": { "pp": 4,
    "pp_layers": [8, 8, 8, 9] }
}
JSON
expect_rc "a mapping whose stages do not hold the model's layers is refused" 1 \
  "$BPW" evaluate llama3-8b --blueprint h100-sxm-80gb --mapping "$TMP/uneven.json"
expect_stderr "at the list, with the sum" "uneven.json:4:18: parallel.pp_layers: the stages hold 33 layers, the model has 32"

# ---- precision policy and 2:4 sparsity ----
expect_rc "evaluate --precision-policy: fp8 and 2:4 MLP, per-block projections" 0 \
  "$BPW" evaluate llama3-8b --blueprint h100-sxm-80gb --phase prefill --global-batch 8 \
  --precision-policy '{"mlp": {"format": "fp8-e4m3", "sparsity": "2:4"},
                       "attention_projection": {"format": "fp8-e4m3", "scaling": "per-block",
                                                "block": 96}}' --json
py "the precision section: time by precision, a shape fallback, two modes with gains" "
p = d['precision']
assert p['policy'] == 'mapping'
names = {(x['precision'], x['sparsity']) for x in p['by_precision']}
assert ('fp8-e4m3', '2:4') in names and ('bf16', 'dense') in names, names
f = p['fallbacks']
assert len(f) == 1 and f[0]['class'] == 'attention_projection' and f[0]['reason'] == 'shape'
assert f[0]['operations'] == 2 * 32, f
assert [m['mode'] for m in p['modes']] == ['fp8-e4m3', 'sparsity-2:4'], p['modes']
assert all(m['time_ratio'] > 1 for m in p['modes'])"
expect_rc "evaluate --dtype fp8 without a policy: the scenario's, one mode" 0 \
  "$BPW" evaluate llama3-8b --blueprint h100-sxm-80gb --phase prefill --global-batch 8 \
  --dtype fp8 --json
py "--dtype fp8 is every matmul fp8-e4m3, no fallback" "
p = d['precision']
assert p['policy'] == 'scenario' and p['fallbacks'] == []
assert [m['mode'] for m in p['modes']] == ['fp8-e4m3'] and p['modes'][0]['time_ratio'] > 1"
expect_rc "2:4 sparsity on a blueprint without it is refused with exit 3" 3 \
  "$BPW" evaluate llama3-8b --blueprint mi300x --phase prefill --global-batch 8 \
  --precision-policy '{"mlp": {"sparsity": "2:4"}}'
expect_stderr "saying the blueprint lacks 2:4" "mi300x.* no 2:4 structured sparsity"
expect_rc "an unknown format in --precision-policy is invalid input" 1 \
  "$BPW" evaluate llama3-8b --blueprint h100-sxm-80gb --precision-policy '{"mlp": {"format": "fp9"}}'
expect_stderr "located in the option" "--precision-policy:1:20: precision.mlp.format: .*\"fp9\""
expect_rc "--analytic with a precision policy" 0 \
  "$BPW" evaluate llama3-8b --blueprint h100-sxm-80gb --phase prefill --global-batch 8 \
  --analytic --precision-policy '{"mlp": {"format": "fp8-e4m3"}}' --json
cp "$TMP/out" "$TMP/policy-analytic.json"
expect_rc "the bound plan with the same policy" 0 \
  "$BPW" evaluate llama3-8b --blueprint h100-sxm-80gb --phase prefill --global-batch 8 \
  --precision-policy '{"mlp": {"format": "fp8-e4m3"}}' --json
py "the estimate prices the policy's step as the plan does" "
a = json.load(open('$TMP/policy-analytic.json'))
assert abs(a['step_time_s'] / d['step_time_s'] - 1) < 1e-9, (a['step_time_s'], d['step_time_s'])"

# ---- weight-only quantisation ----
expect_rc "evaluate --weights int4: a batch-1 decode with weight-only MLP and projections" 0 \
  "$BPW" evaluate llama3-8b --blueprint h100-sxm-80gb --phase decode --global-batch 1 \
  --micro-batch 1 --context 1024 --weights int4 --json
py "its precision, mode, dequantisation and bytes" "
p = d['precision']
names = {x['precision'] for x in p['by_precision']}
assert 'int4 w/ g128 (bf16 compute)' in names and 'bf16' in names, names
assert [m['mode'] for m in p['modes']] == ['weights-int4-g128'], p['modes']
assert p['modes'][0]['time_ratio'] > 1.5, p['modes']
t = {x['name']: x for x in d['plan']['transformations']}
assert t['weight_dequant']['kind'] == 'implementation' and t['weight_dequant']['flops'] > 0
assert t['weight-only']['bytes'] < 0"
cp "$TMP/out" "$TMP/woq-plan.json"
expect_rc "--analytic with --weights int4" 0 \
  "$BPW" evaluate llama3-8b --blueprint h100-sxm-80gb --phase decode --global-batch 1 \
  --micro-batch 1 --context 1024 --weights int4 --analytic --json
py "the estimate prices weight-only as the plan does" "
a = json.load(open('$TMP/woq-plan.json'))
assert abs(a['step_time_s'] / d['step_time_s'] - 1) < 1e-9, (a['step_time_s'], d['step_time_s'])"
cp "$TMP/out" "$TMP/woq-analytic.json"
for how in plan analytic; do
  expect_rc "the same decode with native weights ($how)" 0 \
    "$BPW" evaluate llama3-8b --blueprint h100-sxm-80gb --phase decode --global-batch 1 \
    --micro-batch 1 --context 1024 $([ $how = analytic ] && echo --analytic) --json
  cp "$TMP/out" "$TMP/native-$how.json"
done
py "the weights free the same bytes in the estimate as in the plan" "
peak = lambda f: json.load(open('$TMP/' + f + '.json'))['memory']['peak_bytes']
plan = peak('native-plan') - peak('woq-plan')
analytic = peak('native-analytic') - peak('woq-analytic')
assert plan > 0 and plan == analytic, (plan, analytic)"
expect_rc "--weights int8 --group-size 96: k not a multiple of the group" 0 \
  "$BPW" evaluate llama3-8b --blueprint h100-sxm-80gb --phase decode --global-batch 1 \
  --micro-batch 1 --context 1024 --weights int8 --group-size 96 --json
py "every weight matmul falls back with the reason group" "
f = d['precision']['fallbacks']
assert {x['reason'] for x in f} == {'group'} and len(f) == 2, f
assert d['precision']['modes'] == []"
expect_rc "--weights int3 is a usage error" 2 \
  "$BPW" evaluate llama3-8b --blueprint h100-sxm-80gb --weights int3
expect_stderr "naming the choices" "--weights: expected native, int8 or int4, got 'int3'"
expect_rc "--group-size without --weights is a usage error" 2 \
  "$BPW" evaluate llama3-8b --blueprint h100-sxm-80gb --group-size 64
expect_rc "--group-size 0 is a usage error" 2 \
  "$BPW" evaluate llama3-8b --blueprint h100-sxm-80gb --weights int4 --group-size 0
expect_rc "--weights int4 with --dtype fp8 is a usage error" 2 \
  "$BPW" evaluate llama3-8b --blueprint h100-sxm-80gb --weights int4 --dtype fp8
expect_stderr "saying why" "computes at the activation precision"

tap_finish
