#!/bin/bash
# test-cli-input.sh — defaults the command line shares with studies, usage errors that name
# their option, and what reaches the terminal from hostile names and numbers
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: test-cli-input.sh PATH/TO/bpw. Prints TAP.

BPW=${1:?usage: test-cli-input.sh PATH/TO/bpw}
# One case changes folders; meson passes the binary relative to the build folder.
case $BPW in /*) ;; */*) BPW=$PWD/$BPW ;; esac
. "$(dirname "$0")/tap-lib.sh"
CD=$(dirname "$0")/../data/calculon

# ---- the micro-batch default: inference runs the whole per-replica batch ----------------
# facts_mb DESCRIPTION EXPECTED ARGS...: the scenario's micro-batch in `facts --json`.
facts_mb ()
{
  local desc=$1 want=$2
  shift 2
  run "$BPW" facts llama3-70b "$@" --json
  if [ "$rc" -ne 0 ]; then fail "$desc" "exit $rc"; return; fi
  py "$desc" "assert d['scenario']['micro_batch'] == $want, d['scenario']"
}
facts_mb "decode, batch 64, dp 1: one micro-batch of 64" 64 \
  --phase decode --global-batch 64 --context 4096 --tp 8
facts_mb "prefill, batch 64, dp 4: the replica's 16" 16 --phase prefill --global-batch 64 --dp 4
facts_mb "decode, batch 64, pp 4: pp micro-batches of 16 fill the pipeline" 16 \
  --phase decode --global-batch 64 --context 128 --pp 4
facts_mb "decode, batch 6, pp 4 (4 does not divide 6): micro-batches of 1" 1 \
  --phase decode --global-batch 6 --context 128 --pp 4
facts_mb "training keeps micro-batches of 1" 1 --global-batch 64
facts_mb "--micro-batch still decides" 8 --phase decode --global-batch 64 --context 128 \
  --micro-batch 8

# The same scenario in a study: the study's default is the same function's.
cat >"$TMP/study.json" <<JSON
{ "format": "bpw-study", "version": 1, "name": "defaults",
  "workloads": [ { "name": "llama", "model": "llama3-70b" } ],
  "scenarios": [ { "name": "decode", "workload": "llama", "phase": "decode",
                   "global_batch": 64, "context": 128, "parallel": { "dp": 2, "pp": 4 } } ],
  "candidates": [ { "name": "h100", "blueprint": "h100-sxm-80gb" } ] }
JSON
run "$BPW" check "$TMP/study.json"
if [ "$rc" -eq 0 ]; then pass "a study with dp 2 and no micro_batch is valid"
else fail "a study with dp 2 and no micro_batch is valid" "exit $rc"; fi
expect_rc "help states the inference default" 0 "$BPW" evaluate --help
expect_stdout "in --help" "for prefill and decode the whole per-replica batch"

# ---- usage errors name their option (exit 2) --------------------------------------------
expect_rc "--tp 4294967296 is a usage error" 2 "$BPW" facts gpt3-175b --tp 4294967296
expect_stderr "naming --tp" "^bpw: --tp: expected an integer from 1 to 16777216"
expect_rc "--global-batch 10^18 is a usage error" 2 \
  "$BPW" facts gpt3-175b --global-batch 1000000000000000000
expect_stderr "naming --global-batch" "^bpw: --global-batch: expected an integer from 1"
expect_rc "--global-batch 1e18 is a usage error" 2 "$BPW" facts gpt3-175b --global-batch 1e18
expect_stderr "naming --global-batch" "for --global-batch"
expect_rc "--tp x --pp x --dp over 2^24 devices is a usage error" 2 \
  "$BPW" facts gpt3-175b --tp 4096 --pp 4096 --dp 4096
expect_stderr "naming the four" "^bpw: --tp × --cp × --pp × --dp"
expect_rc "--tp x --cp over 2^24 devices is a usage error" 2 \
  "$BPW" facts gpt3-175b --tp 8192 --cp 4096
expect_stderr "naming --cp too" "^bpw: --tp × --cp × --pp × --dp"
for bad in "nope=1" "hbm_bandwidth=" "hbm_bandwidth=abc" "link_bandwidth.99=1"; do
  expect_rc "--sweep-param $bad is a usage error" 2 \
    "$BPW" search gpt3-175b --blueprint a100-sxm-80gb --devices 64 --sweep-param "$bad"
  expect_stderr "naming --sweep-param" "^bpw: --sweep-param"
done

# ---- "--" ends the options ---------------------------------------------------------------
cp "$CD/gpt3-175B.json" "$TMP/-model.json"
(cd "$TMP" && "$BPW" check -- -model.json >"$TMP/out" 2>"$TMP/err"); rc=$?
if [ "$rc" -eq 0 ]; then pass "check -- -model.json reads the file"
else fail "check -- -model.json reads the file" "exit $rc"; fi
expect_stdout "and not '--'" "^-model.json: ok"

# ---- long numbers are cut, control characters escaped ------------------------------------
digits=$(printf '1%0100000d' 0)
expect_rc "a 100001-digit --tp is a usage error" 2 "$BPW" facts gpt3-175b --tp "$digits"
if [ "$(wc -c <"$TMP/err")" -lt 400 ]; then pass "its echo is cut"
else fail "its echo is cut" "stderr has $(wc -c <"$TMP/err") bytes"; fi
expect_stderr "to a prefix and the digit count" "10000000000000000000… \\(100001 digits\\)"
printf '{"hidden": %s, "feedforward": 4, "seq_size": 8, "attn_heads": 1, "attn_size": 4, "num_blocks": 1}\n' \
  "$digits" >"$TMP/long.json"
expect_rc "a 100001-digit number in a file is refused" 1 "$BPW" check "$TMP/long.json"
if [ "$(wc -c <"$TMP/err")" -lt 400 ]; then pass "and its echo is cut"
else fail "and its echo is cut" "stderr has $(wc -c <"$TMP/err") bytes"; fi

# The model's name is its file's: escapes in it are shown, not obeyed.
evil=$TMP/$(printf 'evil\033]0;owned\007\033[2J.json')
printf '{ "hidden": 64, "feedforward": 256, "seq_size": 8, "attn_heads": 4, "attn_size": 16, "num_blocks": 2 }\n' \
  >"$evil"
expect_rc "a model named with terminal escapes is read" 0 \
  "$BPW" evaluate "$evil" --blueprint a100-sxm-80gb --analytic
if grep -q $'\x1b' "$TMP/out" "$TMP/err" || grep -q $'\x07' "$TMP/out" "$TMP/err"; then
  fail "no escape character reaches the terminal"
else pass "no escape character reaches the terminal"; fi
expect_stdout "the name is shown escaped" 'evil\\u001b\]0;owned\\u0007'
run "$BPW" check "$evil"
if grep -q $'\x1b' "$TMP/out" "$TMP/err"; then fail "a file name's escapes are escaped in check"
else pass "a file name's escapes are escaped in check"; fi
expect_stdout "and shown" 'evil\\u001b.*: ok'
run "$BPW" check "$TMP/$(printf 'gone\033[2J.json')"
if grep -q $'\x1b' "$TMP/err"; then fail "and in its error messages"
else pass "and in its error messages"; fi

# ---- the mapping file's micro_batch is located -------------------------------------------
printf '{ "format": "bpw-mapping", "version": 1,\n  "micro_batch": 16 }\n' >"$TMP/map.json"
expect_rc "a mapping's micro_batch over the batch is invalid input" 1 \
  "$BPW" evaluate gpt3-175b --blueprint a100-sxm-80gb --mapping "$TMP/map.json" --global-batch 8
expect_stderr "located at the file's member" "map\\.json:2:[0-9]+: micro_batch: 16 sequences"
expect_rc "and one that does not divide it" 1 \
  "$BPW" evaluate gpt3-175b --blueprint a100-sxm-80gb --mapping "$TMP/map.json" --global-batch 24
expect_stderr "located too" "map\\.json:2:[0-9]+: micro_batch:"

# ---- --cost-model calculon ----------------------------------------------------------------
# Calculon's README search: turing-530B on 5128 GPUs, batch 2520 (micro-batches of at most 3).
expect_rc "search --cost-model calculon: Calculon's README example runs" 0 \
  "$BPW" search "$CD/turing-530B.json" --blueprint "$CD/../calculon-search/a100_80g.json" \
  --devices 5128 --global-batch 2520 --dtype fp16 --cost-model calculon --top 1 --json
# Calculon's llm-optimal-execution (caa4b11) on the same inputs: best sample rate
# 111.1604995663596, TP 8, PP 1, DP 641, batch 1923, micro-batch 3.
py "its best is Calculon's" "
b = d['best'][0]
e = b['execution']
assert b['sample_rate'] == 111.1604995663596, b['sample_rate']
assert (e['tensor_par'], e['pipeline_par'], e['data_par'], e['batch_size'],
        e['microbatch_size']) == (8, 1, 641, 1923, 3), e"
for opt in "--fusion none" "--tiling auto" "--dp-tier 0" "--optimizer adam" "--context 8"; do
  # shellcheck disable=SC2086
  expect_rc "search --cost-model calculon refuses $opt" 2 \
    "$BPW" search "$CD/gpt3-175B.json" --blueprint "$CD/../calculon-search/a100_80g.json" \
    --devices 64 --global-batch 64 --dtype fp16 --cost-model calculon $opt
  expect_stderr "naming ${opt%% *}" "calculon: ${opt%% *} is not a choice"
done
expect_rc "search --cost-model calculon: bf16 on a float16-only system is refused" 1 \
  "$BPW" search "$CD/gpt3-175B.json" --blueprint "$CD/../calculon-search/a100_80g.json" \
  --devices 64 --global-batch 64 --dtype bf16 --cost-model calculon
expect_stderr "saying why" "no bfloat16 entry"

tap_finish
