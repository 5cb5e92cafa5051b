#!/bin/bash
# test-german.sh BPW BUILD_ROOT — `bpw` speaks German with the build tree's catalogues
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# LANGUAGE=de: a core error (the core's domain), a chart's title and axis and the memo's
# headings (the application's domain, bound by `bpw` for ui/plot) come out in German,
# and the same commands without LANGUAGE stay English. The catalogues are the ones this
# build compiled (po/ and po-core/), laid out as a LOCALEDIR and named by BPW_LOCALEDIR.

BPW=${1:?usage: test-german.sh BPW BUILD_ROOT}
BUILD_ROOT=${2:?usage: test-german.sh BPW BUILD_ROOT}
source "$(dirname "$0")/../cli/tap-lib.sh"

mkdir -p "$TMP/locale/de/LC_MESSAGES"
for mo in po/de/LC_MESSAGES/blueprint-workbench.mo \
          po-core/de/LC_MESSAGES/blueprint-workbench-core.mo; do
  if [ -f "$BUILD_ROOT/$mo" ]; then
    pass "the build compiled $mo"
    cp "$BUILD_ROOT/$mo" "$TMP/locale/de/LC_MESSAGES/"
  else
    fail "the build compiled $mo" "missing: $BUILD_ROOT/$mo"
  fi
done

# C.UTF-8 as in the tests: LANGUAGE needs no German locale installed.
german () { LANGUAGE=de LC_ALL=C.UTF-8 BPW_LOCALEDIR="$TMP/locale" "$@"; }

# A located core error: JSON syntax and a missing field.
printf '{"format": "bpw-workload", "version": 1, "model": {"name": "x", "vocab": 1000}}\n' \
  >"$TMP/model.json"
run german "$BPW" facts "$TMP/model.json"
if [ "$rc" -eq 1 ] && grep -q "model.json:1:[0-9]*: model: Pflichtfeld 'hidden' fehlt" "$TMP/err"; then
  pass "a core error is German, still located"
else
  fail "a core error is German, still located" "exit $rc"
fi
run env -u LANGUAGE LC_ALL=C.UTF-8 BPW_LOCALEDIR="$TMP/locale" "$BPW" facts "$TMP/model.json"
if grep -q "missing required field 'hidden'" "$TMP/err"; then pass "without LANGUAGE it is English"
else fail "without LANGUAGE it is English"; fi

# A translated line of the facts: the sliding window of a Mistral-style config.
printf '%s\n' '{"model_type": "mistral", "hidden_size": 64, "num_hidden_layers": 2,' \
  '"num_attention_heads": 2, "intermediate_size": 128, "vocab_size": 100,' \
  '"sliding_window": 16}' >"$TMP/config.json"
run german "$BPW" facts "$TMP/config.json"
if [ "$rc" -eq 0 ] && grep -q "gleitendes Fenster von 16 Token (alle Schichten)" "$TMP/out"; then
  pass "the sliding window is described in German"
else
  fail "the sliding window is described in German" "exit $rc"
fi

if ! command -v pdftotext >/dev/null; then
  skip "a chart's title and axes are German" "pdftotext (poppler-utils) is not installed"
  skip "the memo's headings are German" "pdftotext (poppler-utils) is not installed"
else
  run german "$BPW" export --view roofline --format pdf -o "$TMP/roofline.pdf" default
  pdftotext "$TMP/roofline.pdf" "$TMP/roofline.txt" 2>/dev/null
  if [ "$rc" -eq 0 ] && grep -q "^Roofline: .* auf .*, alle [0-9]* Stufen" "$TMP/roofline.txt" \
     && grep -q "Arithmetische Intensität (FLOP/B)" "$TMP/roofline.txt" \
     && grep -q "Schichttyp" "$TMP/roofline.txt"; then
    pass "a chart's title, axis and legend are German"
  else
    fail "a chart's title, axis and legend are German" "exit $rc" "$(head -n 5 "$TMP/roofline.txt")"
  fi

  run german "$BPW" export --view memo --format pdf -o "$TMP/memo.pdf" default
  # Headings that open a page follow the form feed pdftotext puts between pages.
  pdftotext "$TMP/memo.pdf" - 2>/dev/null | tr -d '\f' >"$TMP/memo.txt"
  missing=()
  for heading in Empfehlung Szenarien "Kandidaten und Suite-Punktzahlen" Eingaben Kennzahlen \
                 "Annahmen und Herkunft"; do
    grep -qx "$heading" "$TMP/memo.txt" || missing+=("$heading")
  done
  if [ "$rc" -eq 0 ] && [ ${#missing[@]} -eq 0 ]; then pass "the memo's headings are German"
  else fail "the memo's headings are German" "exit $rc; missing: ${missing[*]}"; fi
fi

echo "1..$n"
[ "$failed" -eq 0 ]
