#!/bin/bash
# tap-lib.sh — TAP helpers shared by the CLI test scripts (source it after setting BPW)
#
# SPDX-License-Identifier: GPL-3.0-or-later

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

n=0
failed=0
# Calculon's public models, systems and runs, copied into the tests' data with their notice.
CALCULON=${BPW_SOURCE_ROOT:-$(dirname "${BASH_SOURCE[0]}")/../..}/tests/data/reference/calculon
PYTHON=$(command -v python3 || true)

pass () { n=$((n + 1)); echo "ok $n - $1"; }
fail ()
{
  n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"
  shift
  for line in "$@"; do printf '%s\n' "$line" | sed 's/^/# /'; done
  sed 's/^/# stdout: /' "$TMP/out" | head -n 20
  sed 's/^/# stderr: /' "$TMP/err" | head -n 20
}
skip () { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

# run CMD...: stdout in $TMP/out, stderr in $TMP/err, status in $rc.
run () { "$@" >"$TMP/out" 2>"$TMP/err"; rc=$?; }

# expect_rc DESCRIPTION CODE CMD...
expect_rc ()
{
  local desc=$1 want=$2
  shift 2
  run "$@"
  if [ "$rc" -eq "$want" ]; then pass "$desc"; else fail "$desc" "exit $rc, expected $want"; fi
}

expect_stderr ()
{
  if grep -Eq -- "$2" "$TMP/err"; then pass "$1"; else fail "$1" "stderr does not match /$2/"; fi
}

expect_stdout ()
{
  if grep -Eq -- "$2" "$TMP/out"; then pass "$1"; else fail "$1" "stdout does not match /$2/"; fi
}

# py DESCRIPTION SCRIPT: SCRIPT runs with the last stdout parsed as JSON in `d`.
py ()
{
  local desc=$1 script=$2
  if [ -z "$PYTHON" ]; then skip "$desc" "python3 not found"; return; fi
  if "$PYTHON" - "$TMP/out" >"$TMP/py" 2>&1 <<PYEOF
import json, sys
d = json.load(open(sys.argv[1]))
$script
PYEOF
  then pass "$desc"
  else fail "$desc" "$(tail -n 3 "$TMP/py")"
  fi
}

# py_file DESCRIPTION FILE SCRIPT: SCRIPT runs with FILE's path in `path`.
py_file ()
{
  local desc=$1 file=$2 script=$3
  if [ -z "$PYTHON" ]; then skip "$desc" "python3 not found"; return; fi
  if "$PYTHON" - "$file" >"$TMP/py" 2>&1 <<PYEOF
import csv, json, sys
path = sys.argv[1]
$script
PYEOF
  then pass "$desc"
  else fail "$desc" "$(tail -n 3 "$TMP/py")"
  fi
}

tap_finish () { echo "1..$n"; [ "$failed" -eq 0 ]; }
