#!/bin/bash
# test-hostile-classes.sh — hostile inputs by class: each is refused with a located reason
# and the documented exit status, never priced
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: test-hostile-classes.sh PATH/TO/bpw HOSTILE_DIR
# Every folder HOSTILE_DIR/CLASS with a cases.txt is one class. Each line of cases.txt is
# FILE<TAB>EXIT<TAB>EXPECTED<TAB>COMMAND: run from the class folder, `bpw COMMAND` (words
# split on spaces, {} replaced by FILE) must exit EXIT and print EXPECTED on stderr, prefixed
# by "FILE:" when FILE is not "-" (a command-line case has no file). Nothing on stdout may
# read nan or inf. Prints TAP.

set -u

BPW=${1:?usage: test-hostile-classes.sh PATH/TO/bpw HOSTILE_DIR}
DIR=${2:?usage: test-hostile-classes.sh PATH/TO/bpw HOSTILE_DIR}
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

cd "$DIR" || { echo "1..0 # SKIP no $DIR"; exit 0; }
for class in */; do
  class=${class%/}
  [ -f "$class/cases.txt" ] || continue
  (
    cd "$class" || exit 1
    # Every file of the class is replayed and described.
    for file in *; do
      case $file in cases.txt|README.md) continue ;; esac
      cut -f1 cases.txt | grep -qxF -- "$file" || echo "$class/$file: not in cases.txt"
      grep -qF -- "\`$file\`" README.md || echo "$class/$file: not in README.md"
    done
  ) >"$TMP/unlisted"
  if [ -s "$TMP/unlisted" ]; then
    : >"$TMP/err"
    fail "$class: every file is in cases.txt and README.md" "$(cat "$TMP/unlisted")"
  else
    pass "$class: every file is in cases.txt and README.md"
  fi
  while IFS=$'\t' read -r file status expected command; do
    case $file in ''|'#'*) continue ;; esac
    words=()
    for word in $command; do
      [ "$word" = "{}" ] && word=$file
      words+=("$word")
    done
    prefix=""
    [ "$file" != "-" ] && prefix="$file:"
    (cd "$class" && "$BPW" "${words[@]}") >"$TMP/out" 2>"$TMP/err"
    rc=$?
    desc="$class: bpw $command ($file)"
    if [ "$rc" -ne "$status" ]; then
      fail "$desc" "exit $rc, expected $status"
    elif ! grep -qF -- "$prefix$expected" "$TMP/err"; then
      fail "$desc" "stderr does not contain: $prefix$expected"
    elif grep -qiwE 'nan|inf' "$TMP/out"; then
      fail "$desc" "stdout prints nan or inf"
    else
      pass "$desc"
    fi
  done <"$class/cases.txt"
done
echo "1..$n"
