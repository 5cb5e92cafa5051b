#!/bin/bash
# test-translations.sh — every user-visible string is in POTFILES.in and translated in each
# language of LINGUAS, for both gettext domains: the application's (po/) and the core's
# (po-core/) (issue 5: "one complete translation of every user-visible string").
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Extracts the strings the way meson's i18n "glib" preset does, into a fresh template, so a
# string added to a source file without a translation fails here rather than showing up in
# English in a German session.

ROOT=${BPW_SOURCE_ROOT:?}
source "$(dirname "$0")/../cli/tap-lib.sh"

cd "$ROOT" || exit 1

# check_domain PODIR FILE...: every FILE with a marked string is listed in PODIR/POTFILES.in,
# every listed file exists, and each language of PODIR/LINGUAS translates all of them.
check_domain ()
{
  local podir=$1 f lang po untranslated fuzzy
  shift
  local listed unlisted=() missing=() sources=()
  listed=$(grep -v '^#' "$podir/POTFILES.in" | sed '/^$/d')

  # 1. Every file with a marked string is listed (C: _(), N_(), C_(); builder: translatable).
  for f in "$@"; do
    grep -qE '(^|[^A-Za-z0-9_])(N?C?_) ?\("|translatable="yes"' "$f" || continue
    grep -qxF "$f" <<<"$listed" || unlisted+=("$f")
  done
  if [ ${#unlisted[@]} -eq 0 ]; then
    pass "$podir: every file with translatable strings is in POTFILES.in"
  else
    fail "$podir: every file with translatable strings is in POTFILES.in" "missing: ${unlisted[*]}"
  fi

  # 2. Every listed file exists (a stale entry breaks the translators' update-po).
  for f in $listed; do [ -e "$f" ] || missing+=("$f"); done
  if [ ${#missing[@]} -eq 0 ]; then pass "$podir: every file in POTFILES.in exists"
  else fail "$podir: every file in POTFILES.in exists" "stale: ${missing[*]}"; fi

  # 3. The template of today's sources, then per language: complete and nothing fuzzy.
  for f in $listed; do [ -e "$f" ] && sources+=("$f"); done
  run xgettext --from-code=UTF-8 --add-comments --keyword=_ --keyword=N_ --keyword=C_:1c,2 \
    --keyword=NC_:1c,2 --keyword=g_dngettext:2,3 --keyword=g_dpgettext2:2c,3 \
    --keyword=ngettext:1,2 --output="$TMP/template.pot" "${sources[@]}"
  if [ "$rc" -eq 0 ]; then pass "$podir: xgettext extracts the template"
  else fail "$podir: xgettext extracts the template" "xgettext exit $rc"; fi

  for lang in $(grep -v '^#' "$podir/LINGUAS"); do
    po=$podir/$lang.po
    run msgmerge --quiet --no-fuzzy-matching --output-file="$TMP/$lang.po" "$po" "$TMP/template.pot"
    untranslated=$(msgattrib --untranslated --no-obsolete "$TMP/$lang.po" | grep -c '^msgid "' )
    # msgattrib prints the header entry (msgid "") whenever it prints anything.
    [ "$untranslated" -gt 0 ] && untranslated=$((untranslated - 1))
    if [ "$untranslated" -eq 0 ]; then
      pass "$po: every string is translated"
    else
      fail "$po: every string is translated" "$untranslated untranslated:" \
        "$(msgattrib --untranslated --no-obsolete "$TMP/$lang.po" | grep '^msgid "' | head -n 15)"
    fi
    fuzzy=$(msgattrib --only-fuzzy --no-obsolete "$po" | grep -c '^msgid "')
    if [ "$fuzzy" -eq 0 ]; then pass "$po: no fuzzy entries"
    else fail "$po: no fuzzy entries" "$fuzzy fuzzy"; fi
    run msgfmt --check --output-file=/dev/null "$po"
    if [ "$rc" -eq 0 ]; then pass "$po: msgfmt --check accepts it"
    else fail "$po: msgfmt --check accepts it" "$(cat "$TMP/err")"; fi
  done
}

# The application's domain: the window, its pages and dialogs, the charts and the memo.
check_domain po $(find app ui -name '*.c' -o -name '*.ui' | sort)
# The core's own domain (core/base/bpw-i18n.h): its errors, warnings and plan reasons.
check_domain po-core $(find core -name '*.c' | sort)

echo "1..$n"
[ "$failed" -eq 0 ]
