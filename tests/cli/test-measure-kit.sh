#!/bin/bash
# test-measure-kit.sh — the measurement kit's tests that need no GPU (tools/measure/tests),
# with Debian's python3-torch; among them a toy CPU run whose pack `bpw check` must accept.
#
# SPDX-License-Identifier: GPL-3.0-or-later
BPW=$(realpath "$1")
ROOT=$2
PY=/usr/bin/python3

echo "1..1"
if [ ! -x "$PY" ] || ! "$PY" -c 'import torch' >/dev/null 2>&1; then
  echo "ok 1 - tools/measure/tests # SKIP python3-torch is not installed"
  exit 0
fi
out=$(cd "$ROOT" && BPW="$BPW" "$PY" -m unittest discover tools/measure/tests 2>&1)
if [ $? -eq 0 ]; then
  echo "ok 1 - tools/measure/tests"
else
  echo "not ok 1 - tools/measure/tests"
  printf '%s\n' "$out" | sed 's/^/# /'
  exit 1
fi
