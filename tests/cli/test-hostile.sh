#!/bin/bash
# test-hostile.sh — hostile inputs: every broken file is refused with a located reason, and
# derived counts are exact or refused, never wrapped
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: test-hostile.sh PATH/TO/bpw HOSTILE_DIR
# HOSTILE_DIR/expected.txt lists FILE<TAB>EXPECTED; `bpw check FILE` must exit 1 with
# "FILE:EXPECTED" on stderr. Prints TAP. The expected counts below are closed forms
# computed here with Python's exact integers, not copied from bpw's output.

set -u

BPW=${1:?usage: test-hostile.sh PATH/TO/bpw HOSTILE_DIR}
DIR=${2:?usage: test-hostile.sh PATH/TO/bpw HOSTILE_DIR}
# The script changes folders; meson passes the binary relative to the build folder.
case $BPW in /*) ;; */*) BPW=$PWD/$BPW ;; esac
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

n=0
pass () { n=$((n + 1)); echo "ok $n - $1"; }
fail ()
{
  n=$((n + 1)); echo "not ok $n - $1"
  shift
  for line in "$@"; do printf '%s\n' "$line" | sed 's/^/# /'; done
  sed 's/^/# stderr: /' "$TMP/err" | head -n 5
}
run () { "$@" >"$TMP/out" 2>"$TMP/err"; rc=$?; }

# check_refused DESCRIPTION FILE EXPECTED: exit 1 and EXPECTED (fixed string) on stderr.
check_refused ()
{
  local desc=$1 file=$2 expected=$3
  run "$BPW" check "$file"
  if [ "$rc" -ne 1 ]; then
    fail "$desc" "exit $rc, expected 1"
  elif ! grep -qF -- "$expected" "$TMP/err"; then
    fail "$desc" "stderr does not contain: $expected"
  else
    pass "$desc"
  fi
}

# ---- the corpus -------------------------------------------------------------------------
# Run from inside the folder so that messages name the file as the manifest does.
cd "$DIR" || { echo "1..0 # SKIP no $DIR"; exit 0; }
HOSTILE=$PWD
listed=0
while IFS=$'\t' read -r file expected; do
  case $file in ''|'#'*) continue ;; esac
  listed=$((listed + 1))
  if [ ! -f "$file" ]; then
    fail "$file" "listed in expected.txt but missing"
    continue
  fi
  check_refused "$file" "$file" "$file:$expected"
done <expected.txt

# Every corpus file is in the manifest: a file added without its message is an error.
for file in *; do
  case $file in expected.txt|README.md) continue ;; esac
  # A folder is a class of its own with its own manifest (test-hostile-classes.sh).
  [ -d "$file" ] && continue
  if ! cut -f1 expected.txt | grep -qxF -- "$file"; then
    fail "$file is listed in expected.txt" "add its expected message"
  fi
done
if [ "$listed" -ge 40 ]; then pass "the manifest lists $listed files"; else
  fail "the manifest lists $listed files" "expected at least 40"; fi

# ---- limits generated at run time -------------------------------------------------------
cd "$TMP" || exit 1

# Size: one byte over 64 MiB of whitespace, then a valid document.
head -c $((64 * 1024 * 1024)) /dev/zero | tr '\0' ' ' >big.json
echo '{}' >>big.json
check_refused "a document over 64 MiB is refused before parsing" big.json \
  "big.json: the document is larger than the 64 MiB limit"

# Depth: 64 levels parse (and are then not a known format), 65 do not.
printf '%s1%s\n' "$(printf '{"a":%.0s' $(seq 64))" "$(printf '}%.0s' $(seq 64))" >d64.json
printf '%s1%s\n' "$(printf '{"a":%.0s' $(seq 65))" "$(printf '}%.0s' $(seq 65))" >d65.json
check_refused "64 levels of nesting parse" d64.json "d64.json:1:1: not a workload"
check_refused "65 levels of nesting are refused at the 65th" d65.json \
  "d65.json:1:321: nesting deeper than 64 levels"

# Unknown fields are warnings with their location, not errors.
cat >unknown.json <<'EOF'
{"format": "bpw-workload", "version": 1,
 "model": {"vocab": 50304, "hidden": 4096, "layers": 32, "heads": 32, "ffn": 16384,
           "positions": "rotary", "colour": "blue"}}
EOF
run "$BPW" check unknown.json
# The location is that of the member's value.
if [ "$rc" -eq 0 ] && grep -qF "warning: unknown.json:3:45: model.colour: unknown field" "$TMP/err"
then pass "an unknown field is a located warning"
else fail "an unknown field is a located warning" "exit $rc"; fi

# A valid trace passes the same check; what a viewer would skip is a warning naming the file.
cp "$HOSTILE/../profiles/chrome-events.json" trace.json
run "$BPW" check trace.json
if [ "$rc" -eq 0 ] && grep -qF "trace.json: ok (profile trace)" "$TMP/out" &&
   grep -qF 'warning: trace.json: traceEvents[7]: an "X" slice without "dur"' "$TMP/err"
then pass "a valid trace is checked, with located warnings"
else fail "a valid trace is checked, with located warnings" "exit $rc"; fi

# ---- derived counts: exact or refused ---------------------------------------------------
# model(LAYERS): hidden 12288 = 96 heads x 128, MHA, rotary, bf16 KV cache. Per token and
# sequence a decode step keeps K and V of every layer: 2 L n_kv d_head 2 bytes, for the
# context and the new token (context + 1 tokens).
model ()
{
  cat >"model-$1.json" <<EOF
{"format": "bpw-workload", "version": 1,
 "model": {"name": "wide", "vocab": 50304, "hidden": 12288, "layers": $1, "heads": 96,
           "ffn": 49152, "positions": "rotary"}}
EOF
}
kv_json () { sed -n 's/.*"kv_cache": *\([0-9]*\).*/\1/p' "$TMP/out" | head -n 1; }
U64_MAX=18446744073709551615
PYTHON=$(command -v python3 || true)
calc () { "$PYTHON" -c "print($1)"; }

# check_kv DESCRIPTION LAYERS CONTEXT: the KV cache is the closed form, or refused when the
# closed form exceeds 2^64 - 1.
check_kv ()
{
  local desc=$1 layers=$2 context=$3 want
  want=$(calc "2 * $layers * 96 * 128 * 2 * ($context + 1)")
  run "$BPW" facts "model-$layers.json" --phase decode --global-batch 1 --seq 1 \
    --context "$context" --json
  if [ "$(calc "int($want > $U64_MAX)")" = 1 ]; then
    if [ "$rc" -eq 1 ] && grep -q "exceeds 2^64" "$TMP/err"; then pass "$desc"
    else fail "$desc" "exit $rc, expected 1 and a 2^64 overflow message for $want bytes"; fi
  elif [ "$rc" -eq 0 ] && [ "$(kv_json)" = "$want" ]; then
    pass "$desc"
  else
    fail "$desc" "exit $rc, kv_cache $(kv_json), expected $want"
  fi
}

if [ -z "$PYTHON" ]; then
  for d in 1 2 3 4; do echo "ok $((n + d)) - derived counts # SKIP python3 not found"; done
  n=$((n + 4))
else
  model 4096
  model 1000
  check_kv "4096 layers (the most a model may have), 10^9-token context: KV cache exact" \
    4096 1000000000
  # 1000 layers: 49,152,000 bytes per token; 2^64 - 1 holds 375,299,968,947 tokens.
  last=$(calc "$U64_MAX // (2 * 1000 * 96 * 128 * 2) - 1")
  check_kv "the largest context whose KV cache fits 64 bits is exact" 1000 "$last"
  check_kv "one more token is refused, not wrapped" 1000 $((last + 1))
  # Training 4096 layers on 2^24 tokens stores about 2^67 bytes of attention scores.
  run "$BPW" facts model-4096.json --phase train --global-batch 1 --seq 16777216
  if [ "$rc" -eq 1 ] && grep -q "exceeds 2^64" "$TMP/err"; then
    pass "activations beyond 2^64 bytes are refused"
  else
    fail "activations beyond 2^64 bytes are refused" "exit $rc"
  fi
fi

echo "1..$n"
