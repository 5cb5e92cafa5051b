#!/bin/bash
# test-cli-serve-disagg.sh — `bpw serve --disaggregate`: prefill and decode pools, the KV tier
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: test-cli-serve-disagg.sh PATH/TO/bpw. Prints TAP.

set -u
BPW=${1:?usage: test-cli-serve-disagg.sh PATH/TO/bpw}
. "$(dirname "$0")/tap-lib.sh"

BASE="llama3-70b --blueprint h100-sxm-80gb --requests 400 --prompt-len fixed:2048"
BASE="$BASE --output-len fixed:128 --seed 3"
POOLS="--disaggregate --prefill-replicas 2 --prefill-tp 4 --decode-replicas 1 --decode-tp 8"

expect_rc "serve on prefill and decode pools" 0 \
  "$BPW" serve $BASE $POOLS --kv-tier infiniband --arrival-rate 2 --json
# Llama 3 70B: 80 layers × 2 × 8 KV heads × 128 × 2 bytes × 2048 tokens; split 4 ways
# (TP 4 on the prefill side is the narrower); InfiniBand's 400 Gb/s and 14 us.
py "its JSON carries the pools, their utilisation and the KV transfer" "
p, q, k = d['pools']['prefill'], d['pools']['decode'], d['kv_transfer']
assert p['replicas'] == 2 and p['devices_per_replica'] == 4, p
assert q['replicas'] == 1 and q['devices_per_replica'] == 8, q
assert 0 < p['utilisation'] < 1 and 0 < q['utilisation'] <= 1, (p, q)
assert d['devices'] == 16
assert k['tier'] == 'infiniband'
assert k['bytes_per_request'] == 80 * 2 * 8 * 128 * 2 * 2048, k
assert k['link_bytes_per_request'] == k['bytes_per_request'] / 4, k
assert abs(k['time_s'] - (14e-6 + k['link_bytes_per_request'] / 50e9)) < 1e-12, k
assert k['bytes'] == 400 * k['bytes_per_request']
assert d['requests'] == 400 and d['serving']['disaggregated'] is True
assert abs(d['throughput_tokens_per_s_per_device'] - d['throughput_tokens_per_s'] / 16) < 1e-9"

# A prefill replica of TP 4 × PP 2 against a decode replica of TP 8: the narrower TP (4
# shares) times the fewer stages (1) carry a cache at once.
expect_rc "pools of different shapes" 0 \
  "$BPW" serve $BASE --disaggregate --prefill-tp 4 --prefill-pp 2 --decode-tp 8 \
  --kv-tier infiniband --arrival-rate 1 --requests 20 --json
py "the links are the narrower pool's TP shares times the fewer stages" "
k = d['kv_transfer']
assert k['link_bytes_per_request'] * 4 == k['bytes_per_request'], k"

expect_rc "a sweep over the pools" 0 \
  "$BPW" serve $BASE $POOLS --kv-tier infiniband --sweep 1,4 --json
py "every point of the sweep has its pools" "
s = d['sweep']
assert len(s) == 2 and all('pools' in x and 'kv_transfer' in x for x in s)
assert s[0]['pools']['prefill']['utilisation'] < s[1]['pools']['prefill']['utilisation']"

expect_rc "serve on pools as a table" 0 \
  "$BPW" serve $BASE $POOLS --kv-tier nvlink --arrival-rate 2
expect_stdout "the table shows each pool's utilisation" "utilisation +prefill [0-9.]+ %, decode"
expect_stdout "and the KV transfer" "KV transfer +640 MiB per request"

expect_rc "an unknown tier is invalid input" 1 \
  "$BPW" serve $BASE $POOLS --kv-tier ethernet --arrival-rate 2
expect_stderr "naming the tier and the blueprint's tiers" "ethernet.*nvlink, infiniband"
expect_rc "--disaggregate without --kv-tier is a usage error" 2 \
  "$BPW" serve $BASE $POOLS --arrival-rate 2
expect_rc "--kv-tier without --disaggregate is a usage error" 2 \
  "$BPW" serve $BASE --kv-tier nvlink --arrival-rate 2
expect_rc "--tp with --disaggregate is a usage error (the pools set their own)" 2 \
  "$BPW" serve $BASE $POOLS --tp 8 --kv-tier nvlink --arrival-rate 2
expect_stderr "naming the pools' options" "--prefill-tp"
expect_rc "a pool of no replicas is a usage error" 2 \
  "$BPW" serve $BASE --disaggregate --decode-replicas 0 --kv-tier nvlink --arrival-rate 2
expect_stderr "naming the option" "--decode-replicas must be from 1"

# The memo's trade-curve figure is drawn with the scenario's serving settings: the
# disaggregated series and the pools in its note.
expect_rc "export disaggregated-serving --view memo" 0 \
  "$BPW" export disaggregated-serving --view memo --requests 50 -o "$TMP/memo.pdf"
if command -v pdftotext >/dev/null; then
  pdftotext "$TMP/memo.pdf" "$TMP/memo.txt"
  if tr '\n' ' ' <"$TMP/memo.txt" | grep -q "disaggregated 2P + 1D.*KV caches over infiniband"; then
    pass "the memo's trade curves have the disaggregated series and the pools"
  else
    fail "the memo's trade curves have the disaggregated series and the pools" "not in its text"
  fi
else
  skip "memo text" "pdftotext (poppler-utils) not installed"
fi

tap_finish
