#!/bin/bash
# test-export-measured-cli.sh — `bpw export` of a study with a measurement: the memo's
# validation section and the roofline's measured points
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: test-export-measured-cli.sh BPW. The study is tests/data/studies/gpt2-cpu.bpw-study.json
# (a real PyTorch run of a tiny GPT-2 on one CPU thread). The memo's Table 1 must show the
# errors `bpw validate --json` reports, and its measurement section the correlation.

BPW=$1
source "$(dirname "$0")/../cli/tap-lib.sh"

STUDY=${BPW_SOURCE_ROOT:?}/tests/data/studies/gpt2-cpu.bpw-study.json

expect_rc "memo of a study with a measurement" 0 \
  "$BPW" export "$STUDY" --view memo --format pdf --output "$TMP/memo.pdf"
if command -v pdftotext >/dev/null; then
  pdftotext -raw "$TMP/memo.pdf" "$TMP/memo.txt"
  for want in "Megatron-LM 2021 Table 1 (Narayanan et al., SC'21) on a100-sxm-80gb" \
              "Measurement “gpt2-block-cpu”: epyc-1thread on train-2x32" \
              "0 measured items unexplained" "Unmatched"; do
    if grep -qF -- "$want" "$TMP/memo.txt"; then pass "memo says: $want"
    else fail "memo says: $want" "$(grep -n Validation -A5 "$TMP/memo.txt" | head -n 8)"; fi
  done
  if grep -qF "The study holds no measurements" "$TMP/memo.txt"; then
    fail "memo does not call the study unvalidated"
  else
    pass "memo does not call the study unvalidated"
  fi
  # Table 1 as bpw validate prints it, row by row.
  expect_rc "bpw validate --json" 0 "$BPW" validate --json
  py "memo shows every Table 1 error bpw validate reports" "
text = open('$TMP/memo.txt').read()
for r in d['rows']:
    want = '%+.1f %%' % (100 * r['error'])
    assert want in text, (r['parameters_b'], want)"
else
  skip "memo text" "pdftotext not installed"
fi

expect_rc "roofline CSV of the measured candidate" 0 \
  "$BPW" export "$STUDY" --view roofline --format csv --output "$TMP/roofline.csv"
measured=$(grep -c '^measured,' "$TMP/roofline.csv")
predicted=$(grep -c '^operation,' "$TMP/roofline.csv")
if [ "$measured" -gt 0 ] && [ "$measured" -le "$predicted" ]; then
  pass "roofline has measured points beside the predicted ones ($measured, $predicted)"
else
  fail "roofline has measured points beside the predicted ones" "$measured measured, $predicted predicted"
fi
expect_rc "roofline PNG with the measured points" 0 \
  "$BPW" export "$STUDY" --view roofline --format png --output "$TMP/roofline.png"

echo "1..$n"
[ "$failed" -eq 0 ]
