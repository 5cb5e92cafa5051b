#!/bin/bash
# test-cli.sh — the `bpw` command-line contract: exit codes, --json keys, located errors
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: test-cli.sh PATH/TO/bpw
# Prints TAP. Expected numbers are derived here from closed forms (Megatron/Narayanan),
# never copied from the program's output. Calculon inputs come from tests/data/reference/calculon;
# their tests fail when it is absent.

set -u

BPW=${1:?usage: test-cli.sh PATH/TO/bpw}
. "$(dirname "$0")/tap-lib.sh"

# Closed forms shared by the JSON checks. Parameters: every weight, bias and norm of a
# decoder-only Transformer from the echoed dimensions. Model FLOPs (Megatron/PaLM): per
# token 2 x (block matmul weights + logits V h) + 4 s a d per layer for QK^T and AV over the
# full matrix, times 3 for forward plus backward, times the tokens of the step.
CLOSED_FORMS='
def closed_parameters(m):
    L, h, a, kv, dh, f, V = (m[k] for k in ("layers", "hidden", "heads", "kv_heads",
                                            "head_dim", "ffn", "vocab"))
    norm = 2 * h if m["norm"] == "layernorm" else h
    mats = 3 if m["ffn_kind"] == "swiglu" else 2
    block = h * a * dh + 2 * h * kv * dh + a * dh * h + mats * h * f + 2 * norm
    if m["qkv_bias"]:
        block += a * dh + 2 * kv * dh
    if m["linear_bias"]:
        block += h + (mats - 1) * f + h
    total = L * block + V * h + norm
    if m["positions"] == "learned":
        total += m["max_positions"] * h
    if not m["tied_embeddings"]:
        total += V * h
    return total

def closed_model_flops(m, s, tokens):
    L, h, a, kv, dh, f, V = (m[k] for k in ("layers", "hidden", "heads", "kv_heads",
                                            "head_dim", "ffn", "vocab"))
    mats = 3 if m["ffn_kind"] == "swiglu" else 2
    matmul = L * (h * a * dh + 2 * h * kv * dh + a * dh * h + mats * h * f)
    per_token = 2 * matmul + 2 * V * h + L * 4 * s * a * dh
    return 3 * per_token * tokens
'

CONTRACT_KEYS='
def get(path):
    node = d
    for part in path.split("."):
        assert isinstance(node, dict) and part in node, "missing key " + path
        node = node[part]
    return node

ints = ["parameters", "active_parameters", "tokens_per_step", "micro_batches",
        "flops.model", "flops.hardware", "flops.semantic", "kv_bytes_per_token",
        "memory.stage", "memory.activation_per_layer",
        "conservation.semantic_flops", "conservation.distributed_flops"]
ints += ["flops.by_phase." + p for p in
         ("forward", "recompute", "backward_activation", "backward_weight", "optimizer")]
ints += ["memory.per_device." + k for k in
         ("weights", "gradients", "optimizer_state", "activations", "kv_cache", "total")]
for k in ints:
    v = get(k)
    assert isinstance(v, int) and not isinstance(v, bool) and v >= 0, k + " is not an integer"
assert isinstance(get("conservation.ok"), bool)
assert isinstance(get("conservation.additions"), list)
for a in get("conservation.additions"):
    for k in ("name", "description", "flops", "bytes"):
        assert k in a, "addition without " + k
for k in ("model.name", "model.layers", "model.hidden", "scenario.phase",
          "scenario.global_batch", "scenario.seq", "parallel.tp", "parallel.pp", "parallel.dp"):
    get(k)
'

# ---- usage and dispatch --------------------------------------------------------------

expect_rc "no arguments is a usage error" 2 "$BPW"
expect_rc "--help succeeds" 0 "$BPW" --help
expect_stdout "--help lists facts, check and list" 'bpw facts.*' 
expect_rc "unknown command is a usage error" 2 "$BPW" frobnicate
expect_stderr "unknown command is named" "unknown command 'frobnicate'"
expect_rc "commands not yet implemented are unknown" 2 "$BPW" evaluate gpt3-175b
expect_rc "facts without MODEL is a usage error" 2 "$BPW" facts
expect_rc "facts with two models is a usage error" 2 "$BPW" facts gpt3-175b gpt2
expect_rc "unknown option is a usage error" 2 "$BPW" facts gpt3-175b --frobnicate
expect_rc "non-numeric --tp is a usage error" 2 "$BPW" facts gpt3-175b --tp eight
expect_rc "--tp 0 is a usage error" 2 "$BPW" facts gpt3-175b --tp 0
expect_stderr "--tp 0 message names the option" '^bpw: --tp: '
expect_rc "--zero 4 is a usage error" 2 "$BPW" facts gpt3-175b --zero 4
expect_rc "unknown --phase is a usage error" 2 "$BPW" facts gpt3-175b --phase sleep
expect_rc "unknown --recompute is a usage error" 2 "$BPW" facts gpt3-175b --recompute some
expect_rc "facts --help succeeds" 0 "$BPW" facts --help
expect_stdout "facts --help documents the parallel options" '--interleave'

# ---- list -----------------------------------------------------------------------------

expect_rc "list models succeeds" 0 "$BPW" list models
expect_stdout "list models has gpt3-175b" '^gpt3-175b$'
expect_stdout "list models has llama3-405b" '^llama3-405b$'
expect_rc "list blueprints succeeds" 0 "$BPW" list blueprints
expect_stdout "list blueprints has h100-sxm-80gb" '^h100-sxm-80gb$'
expect_rc "list studies succeeds" 0 "$BPW" list studies
expect_stdout "list studies has default" '^default$'
expect_rc "list of an unknown kind is a usage error" 2 "$BPW" list gadgets
expect_rc "list without a kind is a usage error" 2 "$BPW" list

# ---- facts: human output --------------------------------------------------------------

expect_rc "facts gpt3-175b succeeds" 0 "$BPW" facts gpt3-175b
expect_stdout "human output shows model FLOPs with a unit" \
  '^  model \(MFU numerator\) +[0-9.]+ [kMGTPEZ]?FLOP +[0-9]+$'
expect_stdout "human output shows memory in GiB with bytes" '^  weights +[0-9.]+ GiB +[0-9]+ B$'
expect_stdout "human output shows the conservation line" '^Conservation +ok'
# A multimodal model: its vision tower, projector and FLOPs per image, a line each, with
# the exact figures of facts --json.
expect_rc "facts llava-1.5-7b --json succeeds" 0 "$BPW" facts llava-1.5-7b --json
cp "$TMP/out" "$TMP/llava.json"
expect_rc "facts llava-1.5-7b succeeds" 0 "$BPW" facts llava-1.5-7b
for key in "vision_parameters:Vision tower parameters" "projector_parameters:Projector parameters" \
           "vision_flops_per_image:Vision FLOPs per image \\(forward\\)"; do
  value=$("${PYTHON:-python3}" -c "import json,sys; print(json.load(open(sys.argv[1]))['${key%%:*}'])" \
          "$TMP/llava.json")
  expect_stdout "human output shows ${key%%:*} ($value)" "^${key#*:} +[0-9.]+ [kMGTPEZ]?[A-Z]* *$value$"
done
# A cross-attention model: Hugging Face's count of Llama-3.2-11B-Vision, its cross-attention
# layers and the images' K/V in the decode cache, in the text and the JSON alike.
expect_rc "facts llama3.2-11b-vision --json succeeds" 0 "$BPW" facts llama3.2-11b-vision --json \
  --phase decode --context 1023
py "llama3.2-11b-vision: 10 670 220 835 parameters, 8 cross-attention layers, image K/V cached" "
assert d['parameters'] == 10670220835, d['parameters']
assert d['cross_attention_layers'] == [3, 8, 13, 18, 23, 28, 33, 38]
assert d['cross_attention_tokens_per_image'] == 4 * 1601
assert d['image_kv_bytes_per_sequence'] == 8 * 6404 * 2 * 8 * 128 * 2
assert d['kv_bytes_per_sequence'] == 32 * 1024 * 2 * 8 * 128 * 2 + d['image_kv_bytes_per_sequence']"
expect_rc "facts llama3.2-11b-vision succeeds" 0 "$BPW" facts llama3.2-11b-vision
expect_stdout "human output lists the cross-attention layers" \
  '^Cross-attention layers +3, 8, 13, 18, 23, 28, 33, 38 \(8 of 40\)$'
expect_rc "facts gpt3-175b again" 0 "$BPW" facts gpt3-175b
if grep -q "Vision" "$TMP/out"; then fail "a text model shows no vision lines"
else pass "a text model shows no vision lines"; fi

# ---- facts --json: contract keys and closed forms -------------------------------------

expect_rc "facts gpt3-175b --json succeeds" 0 "$BPW" facts gpt3-175b --json
py "facts --json parses and has every contract key" "$CONTRACT_KEYS"
py "parameters follow the closed form" "$CLOSED_FORMS
want = closed_parameters(d['model'])
assert d['parameters'] == want, (d['parameters'], want)
assert d['active_parameters'] == d['parameters']"
py "defaults: train, seq 2048 from the learned positions, one sequence" "
s = d['scenario']; p = d['parallel']
assert (s['phase'], s['seq'], s['micro_batch'], s['global_batch']) == ('train', 2048, 1, 1), s
assert (p['tp'], p['pp'], p['dp']) == (1, 1, 1), p
assert d['tokens_per_step'] == 2048"
py "model FLOPs follow the Megatron closed form" "$CLOSED_FORMS
want = closed_model_flops(d['model'], d['scenario']['seq'], d['tokens_per_step'])
assert d['flops']['model'] == want, (d['flops']['model'], want)"
py "phases add up to the hardware FLOPs" "
assert sum(d['flops']['by_phase'].values()) == d['flops']['hardware']"
py "conservation: distributed = semantic + named additions" "
c = d['conservation']
assert c['ok'] is True, c.get('message')
assert c['distributed_flops'] == c['semantic_flops'] + sum(a['flops'] for a in c['additions'])"
py "memory total is the sum of its parts" "
m = d['memory']['per_device']
parts = ('weights', 'gradients', 'optimizer_state', 'activations', 'kv_cache')
assert m['total'] == sum(m[k] for k in parts)"

expect_rc "facts llama3-8b --json (GQA, SwiGLU, untied) succeeds" 0 \
  "$BPW" facts llama3-8b --json --seq 4096 --global-batch 8 --micro-batch 2 --dp 2 --tp 4
py "llama3-8b parameters follow the closed form (8030261248)" "$CLOSED_FORMS
assert d['parameters'] == closed_parameters(d['model']) == 8030261248, d['parameters']"
py "llama3-8b options are honoured" "
s = d['scenario']; p = d['parallel']
assert (s['seq'], s['global_batch'], s['micro_batch'], p['dp'], p['tp']) == (4096, 8, 2, 2, 4)
assert d['micro_batches'] == 2 and d['tokens_per_step'] == 8 * 4096"
py "llama3-8b model FLOPs follow the closed form" "$CLOSED_FORMS
assert d['flops']['model'] == closed_model_flops(d['model'], 4096, 8 * 4096)"

expect_rc "pp 4 without --global-batch defaults to 4 x pp micro-batches" 0 \
  "$BPW" facts gpt3-13b --json --pp 4 --dp 2
py "default global batch = dp x micro-batch x 4 pp" "
assert d['scenario']['global_batch'] == 2 * 1 * 16, d['scenario']
assert d['micro_batches'] == 16"

expect_rc "full recompute succeeds" 0 "$BPW" facts gpt3-13b --json --recompute full
py "recompute adds hardware FLOPs but not model FLOPs" "$CLOSED_FORMS
f = d['flops']
assert f['by_phase']['recompute'] > 0
assert f['model'] == closed_model_flops(d['model'], d['scenario']['seq'], d['tokens_per_step'])
assert any(a['name'] == 'recompute' for a in d['conservation']['additions']), d['conservation']"

expect_rc "decode succeeds with the default context" 0 "$BPW" facts llama3-8b --phase decode --json
py "decode: context defaults to 2048 (rotary model), one new token per sequence" "
assert d['scenario']['context'] == 2048 and d['tokens_per_step'] == d['scenario']['global_batch']"
py "decode: KV bytes per token = 2 L n_kv d_head x 2 bytes; weights = 2 bytes x parameters" "
m = d['model']
per_token = 2 * m['layers'] * m['kv_heads'] * m['head_dim'] * 2
assert d['kv_bytes_per_token'] == per_token, (d['kv_bytes_per_token'], per_token)
ctx = d['scenario']['context'] * d['scenario']['global_batch']
kv = d['memory']['per_device']['kv_cache']
assert per_token * ctx <= kv <= per_token * (ctx + d['scenario']['global_batch'])
assert d['memory']['per_device']['weights'] == 2 * d['parameters']
assert d['flops']['by_phase']['backward_weight'] == 0 and d['flops']['by_phase']['optimizer'] == 0"
expect_rc "recompute in inference is an illegal plan" 3 \
  "$BPW" facts llama3-8b --phase prefill --recompute full

# A small Llama in Hugging Face form: GQA, SwiGLU, untied head, no biases.
cat >"$TMP/config.json" <<'EOF2'
{
  "architectures": ["LlamaForCausalLM"],
  "model_type": "llama",
  "hidden_size": 512,
  "intermediate_size": 1376,
  "num_attention_heads": 8,
  "num_key_value_heads": 2,
  "num_hidden_layers": 4,
  "vocab_size": 1000,
  "max_position_embeddings": 2048,
  "rms_norm_eps": 1e-05,
  "tie_word_embeddings": false
}
EOF2
expect_rc "facts on a Hugging Face config.json succeeds" 0 "$BPW" facts "$TMP/config.json" --json
py "HF config: dimensions are read and parameters follow the closed form" "$CLOSED_FORMS
m = d['model']
dims = tuple(m[k] for k in ('hidden', 'layers', 'heads', 'kv_heads', 'ffn', 'vocab'))
assert dims == (512, 4, 8, 2, 1376, 1000), m
kinds = tuple(m[k] for k in ('ffn_kind', 'norm', 'positions', 'tied_embeddings'))
assert kinds == ('swiglu', 'rmsnorm', 'rotary', False), m
# 4 (512*512*2 + 2*512*128 + 3*512*1376 + 2*512) + 2 * 1000*512 + 512
want = 4 * (524288 + 131072 + 2113536 + 1024) + 1024000 + 512
assert d['parameters'] == closed_parameters(m) == want"
expect_rc "check on a Hugging Face config.json" 0 "$BPW" check "$TMP/config.json"
expect_stdout "HF config is recognised" 'config\.json: ok \(workload, Hugging Face config\)'

# The same model as Mistral with a 16-token sliding window: decode at context 40 attends 16
# keys per layer and its cache holds 16 positions per layer (a rolling buffer).
sed -e 's/"llama"/"mistral"/' -e 's/LlamaForCausalLM/MistralForCausalLM/' \
    -e 's/"tie_word_embeddings": false/"tie_word_embeddings": false, "sliding_window": 16/' \
    "$TMP/config.json" >"$TMP/mistral-window.json"
expect_rc "facts on a Mistral config with a sliding window" 0 \
  "$BPW" facts "$TMP/mistral-window.json" --phase decode --context 40 --global-batch 2 --json
py "sliding window: echoed, and the KV cache holds min(context + 1, W) positions" "
m = d['model']
assert m['sliding_window'] == 16 and m['window_layers'] == 4, m
assert d['kv_bytes_per_sequence'] == 2 * 4 * 16 * 2 * 64 * 2, d['kv_bytes_per_sequence']
assert d['memory']['per_device']['kv_cache'] == 2 * d['kv_bytes_per_sequence']"
expect_rc "facts text on a Mistral config with a sliding window" 0 \
  "$BPW" facts "$TMP/mistral-window.json" --phase decode --context 40
expect_stdout "the window is named" 'sliding window 16 tokens \(all layers\)'
expect_rc "evaluate a Mistral config with a sliding window" 0 \
  "$BPW" evaluate "$TMP/mistral-window.json" --blueprint h100-sxm-80gb --phase prefill \
  --seq 64 --json
py "evaluate: the plan names the window; model FLOPs count 64 rows x 16 keys per head" "
assert d['plan']['sliding_window'] == {'tokens': 16, 'first_layer': 0, 'layers': 4}, d['plan']
h, a, kv, dh, f, V, L, s, W = 512, 8, 2, 64, 1376, 1000, 4, 64, 16
block = h * (a + 2 * kv) * dh + a * dh * h + 3 * h * f
# Prefill: every position through the blocks, logits for the last position only.
want = 2 * s * L * block + 2 * V * h + L * 2 * 2 * a * dh * s * min(s, W)
assert d['model_flops'] == want, (d['model_flops'], want)"

# ---- illegal plans and invalid input ----------------------------------------------------

expect_rc "tp that does not divide the heads is an illegal plan" 3 "$BPW" facts gpt3-175b --tp 7
expect_stderr "illegal plan message on stderr" '^bpw: .*7'
expect_rc "global batch not divisible by dp is an illegal plan" 3 \
  "$BPW" facts gpt3-13b --global-batch 3 --dp 2
expect_rc "unknown model is invalid input" 1 "$BPW" facts no-such-model
expect_stderr "unknown model message starts with bpw:" '^bpw: '

cat >"$TMP/broken-syntax.json" <<'EOF'
{
  "format": "bpw-workload",
  "version": 1,
  "model": {
    "name": "broken",
    "layers": 4,
  }
}
EOF
expect_rc "facts on a JSON syntax error is invalid input" 1 "$BPW" facts "$TMP/broken-syntax.json"
expect_stderr "syntax error is located FILE:LINE:COL" \
  '^bpw: [^ ]*broken-syntax\.json:[0-9]+:[0-9]+: '

cat >"$TMP/bad-layers.json" <<'EOF'
{
  "format": "bpw-workload",
  "version": 1,
  "model": {
    "name": "bad",
    "vocab": 51200,
    "hidden": 1024,
    "layers": -4,
    "heads": 16,
    "ffn": 4096
  }
}
EOF
expect_rc "facts on a negative layer count is invalid input" 1 "$BPW" facts "$TMP/bad-layers.json"
expect_stderr "bad field is located FILE:8:COL: model.layers" \
  '^bpw: [^ ]*bad-layers\.json:8:[0-9]+: model\.layers: '

expect_rc "check on a broken file fails with 1" 1 "$BPW" check "$TMP/bad-layers.json"
expect_stderr "check prints the located error" 'bad-layers\.json:8:[0-9]+: model\.layers: '
echo '[1, 2]' >"$TMP/array.json"
expect_rc "check on a JSON file of no known kind fails with 1" 1 "$BPW" check "$TMP/array.json"
expect_stderr "unknown kind is located" 'array\.json:1:1: '
expect_rc "check without FILE is a usage error" 2 "$BPW" check
expect_rc "check on a missing file fails with 1" 1 "$BPW" check "$TMP/missing.json"

# ---- mapping files -----------------------------------------------------------------------

cat >"$TMP/mapping.json" <<'EOF'
{
  "format": "bpw-mapping",
  "version": 1,
  "parallel": { "tp": 8, "pp": 8, "dp": 16, "sp": true },
  "fusion": ["attention", "bias_activation"],
  "overlap": { "dp": true, "tp": "ring" },
  "tilling": "auto"
}
EOF
expect_rc "check on a mapping file" 0 "$BPW" check "$TMP/mapping.json"
expect_stdout "mapping file is recognised" 'mapping\.json: ok \(mapping\)'
expect_stderr "unknown mapping field is a located warning" \
  '^bpw: warning: [^ ]*mapping\.json:7:14: tilling: unknown field'
cat >"$TMP/bad-mapping.json" <<'EOF'
{
  "format": "bpw-mapping",
  "version": 1,
  "parallel": {
    "tp": -4,
    "pp": 8
  }
}
EOF
expect_rc "check on a mapping with tp -4 fails with 1" 1 "$BPW" check "$TMP/bad-mapping.json"
expect_stderr "bad mapping is located FILE:5:11: parallel.tp" \
  '^bpw: [^ ]*bad-mapping\.json:5:11: parallel\.tp: expected a positive integer, got -4'
SAMPLES=${BPW_SOURCE_ROOT:-/nonexistent}/tests/data/mappings
if [ -n "$(ls "$SAMPLES"/*.json 2>/dev/null)" ]; then
  expect_rc "check on the sample mappings" 0 "$BPW" check "$SAMPLES"/*.json
else
  skip "check on the sample mappings" "no tests/data/mappings under BPW_SOURCE_ROOT"
fi

# ---- bundled data files ------------------------------------------------------------------

STUDIES=${BPW_SOURCE_ROOT:-/nonexistent}/data/studies
if [ -n "$(ls "$STUDIES"/*.json 2>/dev/null)" ]; then
  expect_rc "check on the bundled studies" 0 "$BPW" check "$STUDIES"/*.json
  expect_stdout "the default study is recognised" 'default\.bpw-study\.json: ok \(study\)'
else
  skip "check on the bundled studies" "no data/studies under BPW_SOURCE_ROOT"
  skip "the default study is recognised" "no data/studies under BPW_SOURCE_ROOT"
fi

# ---- Calculon inputs (reference data) ---------------------------------------------------

if [ -d "$CALCULON" ]; then
  expect_rc "check on every Calculon model, system and execution file" 0 \
    "$BPW" check "$CALCULON"/models/*.json "$CALCULON"/systems/*.json \
    "$CALCULON"/runs/*.execution.json
  want=$(ls "$CALCULON"/models/*.json "$CALCULON"/systems/*.json \
    "$CALCULON"/runs/*.execution.json | wc -l)
  got=$(grep -c ': ok (' "$TMP/out")
  if [ "$got" -eq "$want" ]; then pass "check prints one ok line per file ($want)"
  else fail "check prints one ok line per file" "got $got, want $want"; fi
  expect_stdout "execution file is recognised" \
    'gpt3-175B_full\.execution\.json: ok \(Calculon execution\)'
  expect_stdout "system file is recognised" 'a100_80g\.json: ok \(blueprint, Calculon system\)'
  expect_stdout "model file is recognised" 'gpt3-175B\.json: ok \(workload, Calculon model\)'

  expect_rc "check with one broken file among valid ones fails with 1" 1 \
    "$BPW" check "$CALCULON"/models/gpt3-175B.json "$TMP/bad-layers.json"
  expect_stdout "the valid file is still reported ok" 'gpt3-175B\.json: ok'

  expect_rc "facts on Calculon's three inputs (model + execution)" 0 \
    "$BPW" facts "$CALCULON"/models/gpt3-175B.json \
    --execution "$CALCULON"/runs/gpt3-175B_full.execution.json --json
  py "execution maps to tp 8, pp 8, dp 16, batch 1536, full recompute, seq_size 2048" "
s = d['scenario']; p = d['parallel']
assert (p['tp'], p['pp'], p['dp'], p['devices']) == (8, 8, 16, 1024), p
assert (s['global_batch'], s['micro_batch'], s['seq'], s['recompute']) == (1536, 1, 2048, 'full'), s
assert d['micro_batches'] == 96"
  py "Calculon gpt3-175B model FLOPs = 72 B s L h^2 (1 + s/6h + V/12Lh)" "
L, h, s, B, V = 96, 12288, 2048, 1536, 51200
assert d['model']['vocab'] == V
assert d['flops']['model'] == 72 * B * s * L * h * h + 12 * B * s * s * L * h + 6 * B * s * V * h
assert d['conservation']['ok'] is True"
  expect_rc "options override the execution file" 0 \
    "$BPW" facts "$CALCULON"/models/gpt3-175B.json \
    --execution "$CALCULON"/runs/gpt3-175B_full.execution.json --recompute none --json
  py "--recompute none wins over the file" "assert d['scenario']['recompute'] == 'none'"
  expect_rc "--vocab replaces a Calculon model's default vocabulary" 0 \
    "$BPW" facts "$CALCULON"/models/gpt3-175B.json --vocab 50304 --json
  py "--vocab is echoed" "assert d['model']['vocab'] == 50304"
else
  for t in check-calculon ok-lines execution system model mixed mixed-ok facts-exec \
           exec-map exec-flops override override-echo vocab vocab-echo; do
    fail "Calculon $t" "tests/data/reference/calculon is missing"
  done
fi

tap_finish
