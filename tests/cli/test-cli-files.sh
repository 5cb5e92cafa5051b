#!/bin/bash
# test-cli-files.sh — `bpw` reads only regular files and replaces the files it writes safely
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: test-cli-files.sh PATH/TO/bpw. A FIFO, /dev/zero, a directory and a link to a
# directory, given on the command line or named by a study, are refused with exit 1 and a
# message that names the file and what it is (a FIFO opened for reading would hang here).
# Exports and traces write over a symbolic link into its target, refuse /dev/null and FIFOs
# without touching them, and on a failure (a read-only folder; a full disk, simulated with
# `ulimit -f` and SIGXFSZ ignored, so that write() fails with EFBIG) exit 1 and leave the old
# file byte for byte.

BPW=$1
# The script changes folders; meson passes the binary relative to the build folder.
case $BPW in /*) ;; */*) BPW=$PWD/$BPW ;; esac
source "$(dirname "$0")/../cli/tap-lib.sh"
DATA=${BPW_SOURCE_ROOT:?}/tests/data

# expect_refused DESCRIPTION FILE WHAT CMD...: exit 1, and "FILE: is WHAT" on stderr.
expect_refused ()
{
  local desc=$1 file=$2 what=$3
  shift 3
  run "$@"
  if [ "$rc" -ne 1 ]; then
    fail "$desc" "exit $rc, expected 1"
  elif ! grep -qF -- "$file: is $what, not a regular file" "$TMP/err"; then
    fail "$desc" "stderr does not say: $file: is $what, not a regular file"
  else
    pass "$desc"
  fi
}

# ---- reading ----------------------------------------------------------------------------
mkfifo "$TMP/fifo.json"
mkdir "$TMP/folder.json"
ln -s folder.json "$TMP/folder-link.json"
cp "$DATA/profiles/cpu-epyc-1thread.json" "$TMP/bp.json"
cp "$DATA/profiles/gpt2-block-config.json" "$TMP/model.json"
cp "$DATA/profiles/gpt2-block.json" "$TMP/profile.json"

# study MODEL BLUEPRINT PROFILE: a study of one workload, candidate and measurement.
study ()
{
  cat <<EOF
{
  "format": "bpw-study", "version": 1, "name": "files",
  "workloads": [ { "name": "w", "model": "$1" } ],
  "scenarios": [ { "name": "s", "workload": "w", "phase": "train", "global_batch": 2,
                   "micro_batch": 2, "seq": 32, "dtype": "fp32", "optimizer": "adam" } ],
  "candidates": [ { "name": "c", "blueprint": "$2", "mapping": {} } ],
  "measurements": [ { "name": "m", "candidate": "c", "scenario": "s", "profile": "$3" } ]
}
EOF
}

study model.json bp.json profile.json >"$TMP/ok.bpw-study.json"
expect_rc "the study of regular files is fine" 0 "$BPW" check "$TMP/ok.bpw-study.json"

for kind in "fifo.json|a FIFO (named pipe)" "/dev/zero|a device" "folder.json|a directory" \
            "folder-link.json|a directory"; do
  name=${kind%%|*} what=${kind#*|}
  case $name in /*) file=$name ;; *) file=$TMP/$name ;; esac
  expect_refused "check $name" "$file" "$what" "$BPW" check "$file"
  expect_refused "facts $name (a model)" "$file" "$what" "$BPW" facts "$file"
  expect_refused "evaluate --blueprint $name" "$file" "$what" \
    "$BPW" evaluate llama3-8b --blueprint "$file"
  expect_refused "evaluate --mapping $name" "$file" "$what" \
    "$BPW" evaluate llama3-8b --blueprint h100-sxm-80gb --mapping "$file"
  expect_refused "search-merge $name" "$file" "$what" "$BPW" search-merge "$file"

  study "$name" bp.json profile.json >"$TMP/w.bpw-study.json"
  expect_refused "a study whose workload is $name" "$file" "$what" \
    "$BPW" check "$TMP/w.bpw-study.json"
  study model.json "$name" profile.json >"$TMP/b.bpw-study.json"
  expect_refused "a study whose candidate's blueprint is $name" "$file" "$what" \
    "$BPW" export "$TMP/b.bpw-study.json" --view sheet --format csv --output "$TMP/sheet.csv"
  study model.json bp.json "$name" >"$TMP/p.bpw-study.json"
  run "$BPW" check "$TMP/p.bpw-study.json"
  if grep -qF -- "$file: is $what, not a regular file" "$TMP/err"; then
    pass "a study whose profile is $name: the warning says what it is"
  else
    fail "a study whose profile is $name: the warning says what it is"
  fi
done

# ---- writing ----------------------------------------------------------------------------
cd "$TMP" || exit 1

# Over a symbolic link: the link stays, the file it names gets the export.
echo old >real.csv
ln -s real.csv link.csv
expect_rc "export over a symbolic link" 0 \
  "$BPW" export default --view sheet --format csv --output link.csv
if [ -L link.csv ] && head -n 1 real.csv | grep -q ','; then
  pass "the link survives and its target has the sheet"
else
  fail "the link survives and its target has the sheet"
fi

# Over a device node or a FIFO: refused, the node untouched.
for node in /dev/null "$TMP/fifo.json"; do
  before=$(stat -c '%F %i %t:%T' "$node")
  expect_rc "export over $node is refused" 1 \
    "$BPW" export default --view roofline --format png --output "$node"
  expect_stderr "the refusal names $node" "$node: is a"
  if [ "$(stat -c '%F %i %t:%T' "$node")" = "$before" ]; then pass "$node is untouched"
  else fail "$node is untouched"; fi
done

# Into a read-only folder (as an unprivileged user when running as root, who may write
# anywhere): exit 1, the old file stays.
mkdir ro
"$BPW" export default --view sheet --format md --output ro/sheet.md >/dev/null 2>&1
cp ro/sheet.md sheet.ref
chmod 0555 ro
chmod 0755 "$TMP"
as_user=()
if [ "$(id -u)" -eq 0 ]; then
  as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  command -v setpriv >/dev/null || as_user=()
fi
if [ "$(id -u)" -eq 0 ] && [ ${#as_user[@]} -eq 0 ]; then
  skip "export into a read-only folder" "running as root without setpriv"
else
  expect_rc "export into a read-only folder exits 1" 1 \
    "${as_user[@]}" "$BPW" export default --view sheet --format md --output ro/sheet.md
  expect_stderr "the error names the file" "ro/sheet.md: cannot create a file in its folder"
  if cmp -s ro/sheet.md sheet.ref; then pass "the old file in the read-only folder stays"
  else fail "the old file in the read-only folder stays"; fi
fi
chmod 0755 ro

# A full disk: files may not grow past 1 KiB. Every kind of file the exports write.
full_disk ()
{
  ( trap '' XFSZ; ulimit -f 1; exec "$@" )
}
for case in "roofline png" "roofline svg" "roofline pdf" "roofline csv" "sheet csv" \
            "sheet md" "memo pdf"; do
  set -- $case
  out=old-$1.$2
  expect_rc "$1 as $2 (before the disk fills)" 0 \
    "$BPW" export default --view "$1" --format "$2" --output "$out" --requests 30
  cp "$out" ref
  [ "$(stat -c %s ref)" -gt 1024 ] || fail "$1 as $2 is larger than the limit" "too small"
  run full_disk "$BPW" export default --view "$1" --format "$2" --output "$out" --requests 30
  if [ "$rc" -eq 1 ]; then pass "$1 as $2 on a full disk exits 1"
  else fail "$1 as $2 on a full disk exits 1" "exit $rc"; fi
  expect_stderr "$1 as $2: the error names the file and the reason" "$out: cannot write: "
  if cmp -s "$out" ref; then pass "$1 as $2: the old file is byte for byte the same"
  else fail "$1 as $2: the old file is byte for byte the same"; fi
done

# The Chrome trace of a simulated step, the same way.
expect_rc "a trace (before the disk fills)" 0 \
  "$BPW" evaluate llama3-8b --blueprint h100-sxm-80gb --phase decode --trace trace.json
cp trace.json ref
run full_disk "$BPW" evaluate llama3-8b --blueprint h100-sxm-80gb --phase decode \
  --trace trace.json
if [ "$rc" -eq 1 ] && cmp -s trace.json ref; then
  pass "a trace on a full disk exits 1 and leaves the old trace"
else
  fail "a trace on a full disk exits 1 and leaves the old trace" "exit $rc"
fi

# No temporary file is left behind by the failures.
leftover=$(find "$TMP" -name '.*.??????' | head -n 3)
if [ -z "$leftover" ]; then pass "no temporary file is left behind"
else fail "no temporary file is left behind" "$leftover"; fi

tap_finish
