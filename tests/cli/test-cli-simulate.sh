#!/bin/bash
# test-cli-simulate.sh — `bpw evaluate` (simulated by default), `--trace FILE`, `bpw serve`
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: test-cli-simulate.sh PATH/TO/bpw. Prints TAP.

set -u
BPW=${1:?usage: test-cli-simulate.sh PATH/TO/bpw}
. "$(dirname "$0")/tap-lib.sh"

GPT3="gpt3-175b --blueprint a100-sxm-80gb --tp 8 --pp 8 --dp 16 --global-batch 1536"
GPT3="$GPT3 --recompute full"

# Checks of a Chrome trace shared by the small and the full-step traces: well-formed JSON,
# complete slices with the required args and non-negative durations, B/E balanced, every
# flow an "s" and an "f" with one id, metadata naming every process and thread used,
# counter tracks for memory and link utilisation, microsecond timestamps.
TRACE_CHECK='
import collections
d = json.load(open(path))
ev = d["traceEvents"]
step_us = d["otherData"]["step_time_s"] * 1e6
xs = [e for e in ev if e["ph"] == "X"]
assert xs, "no slices"
end = 0
for e in xs:
    assert e["dur"] >= 0 and e["ts"] >= 0, e
    for k in ("name", "pid", "tid", "cat"):
        assert k in e, (k, e)
    for k in ("lineage", "flops", "bytes", "bottleneck", "micro_batch"):
        assert k in e["args"], (k, e)
    assert e["args"]["bottleneck"] in ("compute", "memory", "communication", "latency")
    end = max(end, e["ts"] + e["dur"])
assert abs(end - step_us) <= 1e-3 * step_us + 1, (end, step_us)
be = collections.Counter((e["pid"], e.get("tid"), e["ph"]) for e in ev if e["ph"] in "BE")
for (pid, tid, ph), n in be.items():
    assert n == be[(pid, tid, "E" if ph == "B" else "B")]
s = collections.Counter(e["id"] for e in ev if e["ph"] == "s")
f = collections.Counter(e["id"] for e in ev if e["ph"] == "f")
assert s == f and all(n == 1 for n in s.values()), "unpaired flows"
assert all(e["bp"] == "e" for e in ev if e["ph"] == "f")
named = {(e["pid"], e.get("tid")) for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
procs = {e["pid"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
for e in xs:
    assert (e["pid"], e["tid"]) in named and e["pid"] in procs
counters = {e["name"] for e in ev if e["ph"] == "C"}
assert {"device memory (bytes)", "link utilisation"} <= counters, counters
mem = [e for e in ev if e["ph"] == "C" and e["name"].startswith("device memory")]
assert all(set(e["args"]) >= {"weights", "checkpoints", "temporaries", "kv_cache"} for e in mem)
'

# ---- evaluate simulates by default ----
expect_rc "evaluate gpt3-175b simulates the schedule" 0 "$BPW" evaluate $GPT3 --json
cp "$TMP/out" "$TMP/sim.json"
py "the simulated step keeps the contract and names the difference from the analytic one" "
for k in ('step_time_s', 'analytic_step_time_s', 'simulated_vs_analytic', 'mfu', 'hfu',
          'breakdown_s', 'memory', 'simulation', 'memory_stall_fraction_by_layer_type'):
    assert k in d, k
s, a = d['step_time_s'], d['analytic_step_time_s']
assert abs(s / a - 1) < 0.10, (s, a)
v = d['simulated_vs_analytic']
assert abs(v['difference_s'] - (s - a)) < 1e-9 * a
assert abs(sum(v['by_effect_s'].values()) - v['difference_s']) < 1e-6 * a
assert set(v['by_effect_s']) == {'bubble', 'overlap', 'contention', 'work'}
assert abs(sum(d['breakdown_s'].values()) - s) < 1e-9 * s
assert d['memory']['peak_bytes'] <= v['analytic_peak_bytes']
sim = d['simulation']
assert 0 < sim['bubble_fraction'] < 1 and sim['critical_path']['events'] > 0
for m in sim['memory_by_stage']:
    assert abs(sum(m['live_at_peak'].values()) - m['peak_bytes']) < 1e-6 * m['peak_bytes']
    assert m['peak_bytes'] <= m['analytic_bytes']"
py "MFU is model FLOPs over the simulated step x devices x 312 TFLOP/s" "
B, s, L, h, V = 1536, 2048, 96, 12288, 51200
model = 72 * B * s * L * h * h + 12 * B * L * s * s * h + 6 * B * s * h * V
mfu = model / (d['step_time_s'] * 1024 * 312e12)
assert abs(d['mfu'] - mfu) < 1e-9 * mfu, (d['mfu'], mfu)"
expect_rc "evaluate --analytic" 0 "$BPW" evaluate $GPT3 --analytic --json
py "the analytic estimate is the step the simulation compares with" "
p = json.load(open('$TMP/sim.json'))
assert abs(d['step_time_s'] - p['analytic_step_time_s']) < 1e-9 * d['step_time_s']
assert 'simulated_vs_analytic' not in d"
expect_rc "evaluate prints the comparison as text" 0 "$BPW" evaluate $GPT3
expect_stdout "the text names the analytic step and the effects" "analytic step time .* s"
expect_stdout "the text gives the bubble fraction" "bubble fraction"
expect_rc "--trace with --analytic is a usage error" 2 \
  "$BPW" evaluate $GPT3 --analytic --trace "$TMP/x.json"

expect_rc "decode is simulated: the time per output token is the step" 0 \
  "$BPW" evaluate llama3-70b --blueprint h200-sxm-141gb --tp 8 --phase decode \
  --global-batch 64 --context 4096 --json
py "decode: tpot = step, no ttft, agrees with the analytic step" "
assert d['tpot_s'] == d['step_time_s'] and d['ttft_s'] is None
assert abs(d['step_time_s'] / d['analytic_step_time_s'] - 1) < 1e-9"

# ---- traces ----
expect_rc "a small interleaved step as a trace of every rank" 0 \
  "$BPW" evaluate gpt3-13b --blueprint h100-sxm-80gb --tp 2 --pp 4 --dp 2 --global-batch 16 \
  --schedule interleaved --interleave 2 --sp --all-ranks --trace "$TMP/small.json" --json
py_file "the small trace is valid and shows every rank" "$TMP/small.json" "
import json
$TRACE_CHECK
assert len(procs) == 16, procs
# Slices of one thread never overlap partially (they are disjoint).
by = collections.defaultdict(list)
for e in xs:
    by[(e['pid'], e['tid'])].append((e['ts'], e['ts'] + e['dur']))
for k, v in by.items():
    v.sort()
    for (a0, a1), (b0, b1) in zip(v, v[1:]):
        assert b0 >= a1 - 1e-3, (k, a0, a1, b0, b1)"

expect_rc "a full gpt3-175B step as a trace" 0 "$BPW" evaluate $GPT3 --trace "$TMP/full.json"
py_file "the full-step trace is valid" "$TMP/full.json" "
import json
$TRACE_CHECK
assert len(xs) > 500000, len(xs)"
rm -f "$TMP/full.json"

# ---- serve ----
SERVE="llama3-70b --blueprint h200-sxm-141gb --tp 8 --requests 3000"
SERVE="$SERVE --prompt-len lognormal:1024:0.8 --output-len uniform:64:512"
expect_rc "serve a seeded stream" 0 "$BPW" serve $SERVE --arrival-rate 4 --seed 7 --json
cp "$TMP/out" "$TMP/serve1.json"
py "serve --json has the contract's keys, ordered quantiles, and Little's law" "
for k in ('ttft_s', 'tpot_s', 'e2e_s'):
    q = d[k]
    assert set(q) >= {'mean', 'p50', 'p95', 'p99'}, q
    assert 0 < q['p50'] <= q['p95'] <= q['p99'], q
assert d['requests'] == 3000 and d['throughput_tokens_per_s'] > 0
assert abs(d['mean_in_system'] / (4 * d['e2e_s']['mean']) - 1) < 0.05"
expect_rc "the same seed again" 0 "$BPW" serve $SERVE --arrival-rate 4 --seed 7 --json
if cmp -s "$TMP/out" "$TMP/serve1.json"; then pass "a fixed seed reproduces the run bit for bit"
else fail "a fixed seed reproduces the run bit for bit"; fi
expect_rc "serve --sweep" 0 "$BPW" serve $SERVE --sweep 1,8,32 --json
py "the sweep lists one result per rate; p99 grows with load" "
w = d['sweep']
assert [r['arrival_rate'] for r in w] == [1, 8, 32]
assert w[0]['e2e_s']['p99'] < w[1]['e2e_s']['p99'] < w[2]['e2e_s']['p99']
assert w[0]['throughput_tokens_per_s'] < w[1]['throughput_tokens_per_s']"
expect_rc "serve prints a table" 0 "$BPW" serve $SERVE --arrival-rate 2
expect_stdout "the table has the time to first token" "time to first token"
expect_rc "a bad length distribution is a usage error" 2 \
  "$BPW" serve $SERVE --arrival-rate 2 --prompt-len normal:5
expect_stderr "the message names the option" "--prompt-len"
expect_rc "serve without a rate is a usage error" 2 "$BPW" serve $SERVE
expect_rc "serve an unknown model is invalid input" 1 \
  "$BPW" serve no-such-model --blueprint h200-sxm-141gb --arrival-rate 1 --requests 10
expect_rc "a model that leaves no room for a KV cache is refused with exit 3" 3 \
  "$BPW" serve llama3-405b --blueprint a100-sxm-80gb --tp 8 --arrival-rate 1 --requests 10
expect_stderr "the reason names the memory" "no room for a KV cache"
# Modern serving: expert parallelism, the paged KV cache, prefix caching, an FP8 KV cache.
expect_rc "serve with expert parallelism" 0 "$BPW" serve mixtral-8x7b --blueprint h100-sxm-80gb \
  --tp 2 --dp 2 --ep 2 --requests 200 --arrival-rate 5 --json
py "EP 2: one replica of 4 devices; all-to-all bytes per token 2 x 32 layers x top-2 x 4096 x 2 B / TP 2" "
assert d['serving']['ep'] == 2 and d['serving']['devices_per_replica'] == 4, d['serving']
assert d['ep_bytes_per_token'] == 2 * 32 * 2 * 4096 * 2 / 2, d['ep_bytes_per_token']
assert d['stream']['replicas'] == 1"
KV="llama3-8b --blueprint h100-sxm-80gb --requests 3000 --arrival-rate 100000 --max-batch 4096"
KV="$KV --prompt-len fixed:500 --output-len uniform:1:300 --json"
expect_rc "serve with a contiguous KV cache" 0 "$BPW" serve $KV --kv-contiguous
cp "$TMP/out" "$TMP/contiguous.json"
expect_rc "serve with a paged KV cache" 0 "$BPW" serve $KV --kv-block 16
py "contiguous reserves the longest request; paging runs more sequences at once" "
c = json.load(open('$TMP/contiguous.json'))
assert c['serving']['kv_layout'] == 'contiguous' and d['serving']['kv_block'] == 16
assert c['peak_batch'] == c['kv_capacity_tokens'] // c['kv_reserve_tokens'], c
assert d['peak_batch'] > c['peak_batch'] and d['kv_waste_tokens'] <= 15, (d['peak_batch'], c['peak_batch'])"
expect_rc "serve with half of every prompt cached" 0 "$BPW" serve $KV --prefix-hit 0.5
py "prefix caching computes half the prompt tokens" "
assert d['prefill_tokens'] * 2 == d['prompt_tokens'], d"
expect_rc "serve with an FP8 KV cache" 0 "$BPW" serve $KV --kv-dtype fp8
py "an FP8 KV cache holds twice the tokens" "
c = json.load(open('$TMP/contiguous.json'))
assert d['serving']['kv_dtype'] == 'fp8'
assert abs(d['kv_capacity_tokens'] / c['kv_capacity_tokens'] - 2) < 1e-3"
expect_rc "a prefix hit rate of 1 is a usage error" 2 "$BPW" serve $KV --prefix-hit 1
expect_stderr "the message names the option" "--prefix-hit"
expect_rc "a KV block of 0 tokens is a usage error" 2 "$BPW" serve $KV --kv-block 0
expect_rc "an unknown KV dtype is a usage error" 2 "$BPW" serve $KV --kv-dtype int3
expect_rc "serve with chunked prefill" 0 "$BPW" serve $KV --chunked-prefill 256
py "no step prefills more than a chunk of 256 prompt tokens" "
assert d['serving']['chunk_tokens'] == 256 and d['prefills'] * 256 >= d['prefill_tokens'], d"
expect_rc "serve with speculative decoding and a draft model" 0 "$BPW" serve $KV \
  --spec-tokens 3 --spec-accept 0.8 --draft llama3-8b
py "tokens per verify step near (1 - a^(k+1)) / (1 - a)" "
assert d['serving']['draft'] == 'model'
assert abs(d['tokens_per_verify'] / ((1 - 0.8 ** 4) / 0.2) - 1) < 0.02, d['tokens_per_verify']"
expect_rc "a draft without draft tokens is a usage error" 2 "$BPW" serve $KV --draft llama3-8b
expect_rc "MTP speculation on a model without MTP heads is a usage error" 2 "$BPW" serve $KV \
  --spec-tokens 4 --spec-accept 0.8
expect_stderr "the message names the option and the missing heads" "--spec-tokens 4: .*MTP.*--draft"
expect_rc "an acceptance rate of 1 is a usage error" 2 "$BPW" serve $KV --spec-tokens 2 \
  --spec-accept 1
# Images per request: a multimodal model's prompts gain 576 tokens per image (prompt lengths
# count text); images 0 is the text-only run.
MM="llava-1.5-7b --blueprint h100-sxm-80gb --requests 40 --arrival-rate 0.5 --prompt-len fixed:200"
MM="$MM --output-len fixed:16 --json"
expect_rc "serve a multimodal model with its default image per request" 0 "$BPW" serve $MM
cp "$TMP/out" "$TMP/mm1.json"
py "one image of 576 tokens per request; the encoder's share of TTFT" "
s = d['serving']
assert s['images_per_request'] == 1 and s['image_tokens_per_request'] == 576, s
assert d['stream']['prompt_counts'] == 'text tokens'
assert d['prompt_tokens'] == 40 * 200, d['prompt_tokens']
assert 0 < d['encoder_ttft_share'] < 1 and d['encoder_s'] > 0, d"
expect_rc "serve it with --images 0" 0 "$BPW" serve $MM --images 0
py "no image: no encoder, and a shorter time to first token" "
m = json.load(open('$TMP/mm1.json'))
assert d['serving']['images_per_request'] == 0 and d['encoder_s'] == 0, d['serving']
assert d['ttft_s']['mean'] < m['ttft_s']['mean'] - m['encoder_s'], (d['ttft_s'], m['ttft_s'])"
expect_rc "serve it with --images 2" 0 "$BPW" serve $MM --images 2
py "two images: 1152 image tokens and more encoder time, at most twice" "
m = json.load(open('$TMP/mm1.json'))
assert d['serving']['image_tokens_per_request'] == 1152
assert m['encoder_s'] < d['encoder_s'] <= 2 * m['encoder_s'] * (1 + 1e-9), (d['encoder_s'], m['encoder_s'])"
expect_rc "serve a multimodal model as a table" 0 "$BPW" serve ${MM% --json}
expect_stdout "the table gives the images per request" "^Images: 1 per request, 576 tokens"
expect_stdout "the table gives the encoder's share of TTFT" \
  "^  vision encoder +[0-9.]+ ms per request \\([0-9.]+ % of the mean time to first token\\)"
# Serve ignores the scenario's --seq: four images (2304 tokens) are not weighed against it.
expect_rc "serve --images 4 beyond the default seq of 2048" 0 "$BPW" serve $MM --images 4
py "four images: 2304 image tokens per request" "
assert d['serving']['image_tokens_per_request'] == 4 * 576, d['serving']"
expect_rc "--images 1 on a text-only model is refused" 1 "$BPW" serve llama3-8b \
  --blueprint h100-sxm-80gb --requests 10 --arrival-rate 1 --images 1
expect_stderr "the reason names the missing encoder" "has no vision encoder"
expect_rc "chunked prefill with images is refused" 1 "$BPW" serve $MM --chunked-prefill 256
expect_stderr "the reason names the images" "images"
expect_rc "serve --help says prompt lengths count text" 0 "$BPW" serve --help
expect_stdout "the help names --images" "counts text tokens only"
# A stream is held whole (exact quantiles): its length is bounded before anything runs.
expect_rc "more requests than a run simulates is a usage error" 2 \
  "$BPW" serve llama3-8b --blueprint h200-sxm-141gb --arrival-rate 1 --requests 100000000
expect_stderr "the message gives the maximum" "from 1 to 1000000"

tap_finish
