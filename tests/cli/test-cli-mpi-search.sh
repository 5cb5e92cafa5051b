#!/bin/bash
# test-cli-mpi-search.sh — bpw-mpi-search over 2 ranks equals the threaded `bpw search`
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: test-cli-mpi-search.sh PATH/TO/bpw PATH/TO/bpw-mpi-search. Prints TAP.
# Registered only when meson's `mpi` option is enabled.

set -u
BPW=${1:?usage: test-cli-mpi-search.sh PATH/TO/bpw PATH/TO/bpw-mpi-search}
MPI_SEARCH=${2:?usage: test-cli-mpi-search.sh PATH/TO/bpw PATH/TO/bpw-mpi-search}
. "$(dirname "$0")/tap-lib.sh"

MPIRUN=(mpirun -n 2 --oversubscribe)
# Open MPI refuses to run as root (CI containers) unless told to.
[ "$(id -u)" -eq 0 ] && MPIRUN+=(--allow-run-as-root)
PROBLEM=(llama3-8b --blueprint a100-sxm-80gb --devices 8 --global-batch 16 --seq 1024)

expect_rc "threaded search" 0 "$BPW" search "${PROBLEM[@]}" --threads 2 --pareto --json
cp "$TMP/out" "$TMP/threads.json"
expect_rc "the same search over 2 MPI ranks" 0 \
  "${MPIRUN[@]}" "$MPI_SEARCH" "${PROBLEM[@]}" --threads 1 --pareto
py "the MPI run equals the threaded run: counts, best and Pareto front" "
t = json.load(open('$TMP/threads.json'))
assert d['evaluated'] == t['evaluated'] == d['space'] and d['complete'] is True
assert d['shard']['merged'] == 2
assert d['best'] == t['best']
assert d['pareto'] == t['pareto'] and len(d['pareto']) >= 1"
# 36 plans over 5 ranks: rank boundaries (7, 14, 21, 28) cut the algorithm variants of
# listed results (as test-cli-search.sh checks with --shard I/5); rank 0 folds them back.
TINY=("${PROBLEM[@]}" --tp 2 --pp 1 --zero 1 --micro-batch 1 --recompute none
      --fusion-sets default --offload none --top 40 --no-reevaluate)
expect_rc "threaded search of a space of few plans" 0 "$BPW" search "${TINY[@]}" --json
cp "$TMP/out" "$TMP/tiny.json"
MPIRUN5=("${MPIRUN[@]}")
MPIRUN5[2]=5
expect_rc "the same search over 5 MPI ranks" 0 \
  "${MPIRUN5[@]}" "$MPI_SEARCH" "${TINY[@]}" --threads 1
py "the ranks' results fold into the threaded run's, with the same variant counts" "
t = json.load(open('$TMP/tiny.json'))
assert d['shard']['merged'] == 5 and d['space'] == 36
assert d['best'] == t['best'] and sum(b['equivalent_variants'] for b in d['best']) > len(d['best'])"
# Calculon's own search (--cost-model calculon): the ranks split its space as shards do.
CS=$(dirname "$0")/../data/calculon-search
CALC=("$CS/gpt3-13B.json" --blueprint "$CS/a100_80g.json" --devices 4 --global-batch 8
      --dtype fp16 --cost-model calculon --top 20)
expect_rc "threaded search with Calculon's model" 0 "$BPW" search "${CALC[@]}" --threads 2 --json
cp "$TMP/out" "$TMP/calc.json"
expect_rc "the same over 2 MPI ranks" 0 "${MPIRUN[@]}" "$MPI_SEARCH" "${CALC[@]}" --threads 1
py "the MPI run equals the threaded run: counts and the best 20" "
t = json.load(open('$TMP/calc.json'))
assert d['format'] == 'bpw-calculon-search' and d['shard']['merged'] == 2
assert (d['evaluated'], d['good'], d['bad']) == (t['evaluated'], t['good'], t['bad'])
assert d['complete'] is True and d['best'] == t['best']"
expect_rc "a bad option fails on every rank without hanging" 2 \
  "${MPIRUN[@]}" "$MPI_SEARCH" "${PROBLEM[@]}" --shard 0/2

tap_finish
