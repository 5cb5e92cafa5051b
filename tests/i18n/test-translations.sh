#!/bin/bash
# test-translations.sh — every user-visible string is in po/POTFILES.in and translated in each
# language of po/LINGUAS (issue 5: "one complete translation of every user-visible string").
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Extracts the strings the way meson's i18n "glib" preset does, into a fresh template, so a
# string added to a source file without a translation fails here rather than showing up in
# English in a German session.

ROOT=${BPW_SOURCE_ROOT:?}
source "$(dirname "$0")/../cli/tap-lib.sh"

cd "$ROOT" || exit 1

# 1. Every file with a marked string is listed (C: _(), N_(), C_(); builder: translatable).
listed=$(grep -v '^#' po/POTFILES.in | sed '/^$/d')
unlisted=()
for f in $(grep -lE '(^|[^A-Za-z0-9_])(N?C?_) ?\("' app/*.c ui/*.c; \
           grep -l 'translatable="yes"' ui/*.ui ui/gtk/*.ui 2>/dev/null); do
  grep -qxF "$f" <<<"$listed" || unlisted+=("$f")
done
if [ ${#unlisted[@]} -eq 0 ]; then
  pass "every file with translatable strings is in po/POTFILES.in"
else
  fail "every file with translatable strings is in po/POTFILES.in" "missing: ${unlisted[*]}"
fi

# 2. Every listed file exists (a stale entry breaks the translators' update-po).
missing=()
for f in $listed; do [ -e "$f" ] || missing+=("$f"); done
if [ ${#missing[@]} -eq 0 ]; then pass "every file in po/POTFILES.in exists"
else fail "every file in po/POTFILES.in exists" "stale: ${missing[*]}"; fi

# 3. The template of today's sources, then per language: complete and nothing fuzzy.
sources=()
for f in $listed; do [ -e "$f" ] && sources+=("$f"); done
run xgettext --from-code=UTF-8 --add-comments --keyword=_ --keyword=N_ --keyword=C_:1c,2 \
  --keyword=NC_:1c,2 --keyword=g_dngettext:2,3 --keyword=g_dpgettext2:2c,3 \
  --keyword=ngettext:1,2 --output="$TMP/bpw.pot" "${sources[@]}"
if [ "$rc" -eq 0 ]; then pass "xgettext extracts the template"
else fail "xgettext extracts the template" "xgettext exit $rc"; fi

for lang in $(grep -v '^#' po/LINGUAS); do
  po=po/$lang.po
  run msgmerge --quiet --no-fuzzy-matching --output-file="$TMP/$lang.po" "$po" "$TMP/bpw.pot"
  untranslated=$(msgattrib --untranslated --no-obsolete "$TMP/$lang.po" | grep -c '^msgid "' )
  # msgattrib prints the header entry (msgid "") whenever it prints anything.
  [ "$untranslated" -gt 0 ] && untranslated=$((untranslated - 1))
  if [ "$untranslated" -eq 0 ]; then
    pass "$lang: every string is translated"
  else
    fail "$lang: every string is translated" "$untranslated untranslated:" \
      "$(msgattrib --untranslated --no-obsolete "$TMP/$lang.po" | grep '^msgid "' | head -n 15)"
  fi
  fuzzy=$(msgattrib --only-fuzzy --no-obsolete "$po" | grep -c '^msgid "')
  if [ "$fuzzy" -eq 0 ]; then pass "$lang: no fuzzy entries"
  else fail "$lang: no fuzzy entries" "$fuzzy fuzzy"; fi
  run msgfmt --check --output-file=/dev/null "$po"
  if [ "$rc" -eq 0 ]; then pass "$lang: msgfmt --check accepts it"
  else fail "$lang: msgfmt --check accepts it" "$(cat "$TMP/err")"; fi
done

echo "1..$n"
[ "$failed" -eq 0 ]
