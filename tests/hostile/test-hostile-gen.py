#!/usr/bin/env python3
# test-hostile-gen.py — every generated hostile input through every `bpw` subcommand that
# reads it, each run within a CPU-time and memory budget
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: test-hostile-gen.py PATH/TO/bpw SOURCE_ROOT [--seed S] [--count N] [--jobs J]
#                            [--memory-limit BYTES] [--keep DIR]
# (--memory-limit 0 for a sanitizer build: ASan reserves far more address space than it uses.)
#
# hostile_gen.py writes the variants; each is run through check, facts, evaluate, a small
# search, serve, compare and export, as its kind allows. A run passes when:
#   - it ends by exiting, not by a signal (the CPU budget is RLIMIT_CPU, the memory budget
#     RLIMIT_AS: a run past either is killed by a signal or fails to allocate, and fails);
#   - it exits 1, 2 or 3, or 0 or 3 for a variant the generator knows is valid (for every
#     subcommand, or for those it lists: a mapping's placement is checked against the
#     blueprint only where one is given);
#   - a refused file is named in the message, as FILE:LINE:COLUMN: where the fault is in the
#     JSON text (a special file has no line), and a command-line case names its option;
#   - nothing raw reaches the terminal: no ESC or other C0/C1 control byte but newline and tab;
#   - under a sanitizer build, no sanitizer report (which may come with exit status 1).
# A run that does not end at all (a FIFO read forever) sleeps rather than spends CPU, so a
# generous wall-clock guard ends it and counts it as a hang: that is a failure, not a timing
# assertion. Prints TAP.

import argparse
import concurrent.futures
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hostile_gen  # noqa: E402

CPU_SECONDS = 10
MEMORY_BYTES = 2 << 30
HANG_SECONDS = 120

MODEL = "llama3-8b"
BLUEPRINT = "h100-sxm-80gb"
SMALL_SEARCH = ["--devices", "2", "--threads", "1", "--top", "1", "--fusion-sets", "none",
                "--offload", "none", "--no-algorithms", "--no-simulate"]
SERVE = ["--tp", "8", "--arrival-rate", "1", "--requests", "4"]
EVALUATE = ["--global-batch", "8", "--tp", "8", "--phase", "decode"]


def commands(kind, name, index):
    """The subcommands that read a file of @kind, with @name in its place."""
    if kind in ("workload", "calculon-model"):
        return [["check", name], ["facts", name],
                ["evaluate", name, "--blueprint", BLUEPRINT] + EVALUATE,
                ["search", name, "--blueprint", BLUEPRINT, "--global-batch", "2",
                 "--phase", "decode"] + SMALL_SEARCH,
                ["serve", name, "--blueprint", BLUEPRINT] + SERVE]
    if kind in ("blueprint", "calculon-system"):
        return [["check", name], ["evaluate", MODEL, "--blueprint", name] + EVALUATE,
                ["search", MODEL, "--blueprint", name, "--global-batch", "2",
                 "--phase", "decode"] + SMALL_SEARCH,
                ["serve", MODEL, "--blueprint", name] + SERVE]
    if kind == "study":
        return [["check", name], ["compare", name],
                ["export", name, "--view", "sheet", "--format", "csv",
                 "--output", "out-%d.csv" % index]]
    if kind == "mapping":
        return [["check", name],
                ["evaluate", MODEL, "--blueprint", BLUEPRINT, "--mapping", name,
                 "--global-batch", "128"]]
    raise ValueError(kind)


def limiter(memory):
    def limits():
        resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS + 1))
        if memory > 0:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    return limits


SANITIZER = re.compile(r"runtime error:|ERROR: (Address|Leak|UndefinedBehavior)Sanitizer")
CONTROL = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]")


def judge(bpw, cwd, variant, argv, memory):
    """None when the run behaves, else the reason it does not."""
    try:
        run = subprocess.run([bpw] + argv, cwd=cwd, stdin=subprocess.DEVNULL,
                             capture_output=True, preexec_fn=limiter(memory), timeout=HANG_SECONDS)
    except subprocess.TimeoutExpired:
        return "hangs (still running after %d s, not spending CPU)" % HANG_SECONDS
    rc, err = run.returncode, run.stderr
    text = err.decode("utf-8", "replace")
    first = text.strip().splitlines()[:3]
    if rc < 0:
        return "killed by signal %d; stderr: %s" % (-rc, first)
    # Under a sanitizer a report may end the run with an ordinary exit status.
    report = SANITIZER.search(text)
    if report:
        return "sanitizer report: %s" % text[report.start():report.start() + 300]
    valid = variant["valid"] or argv[0] in variant["valid_for"]
    if valid:
        if rc not in (0, 3):
            return "a valid input exits %d; stderr: %s" % (rc, first)
    elif rc not in (1, 2, 3):
        return "exits %d on a hostile input; stderr: %s" % (rc, first)
    for stream in (run.stdout, err):
        if CONTROL.search(stream):
            return "a raw control byte reaches the terminal: %r" % CONTROL.search(stream).group()
    if valid or rc == 3:
        return None
    name = variant["name"]
    if name == "-":
        if "--" not in text:
            return "the message names no option: %s" % first
        return None
    if variant["located"]:
        if not re.search(re.escape(name) + r":\d+:\d+:", text):
            return "the message does not locate %s (FILE:LINE:COLUMN): %s" % (name, first)
    elif name + ":" not in text:
        return "the message does not name %s: %s" % (name, first)
    return None


def main(argv):
    parser = argparse.ArgumentParser()
    parser.add_argument("bpw")
    parser.add_argument("root")
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--count", type=int, default=400)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--memory-limit", type=int, default=MEMORY_BYTES)
    parser.add_argument("--keep", help="write the variants here and keep them")
    args = parser.parse_args(argv)
    bpw = os.path.abspath(args.bpw)

    out = args.keep or tempfile.mkdtemp(prefix="bpw-hostile-")
    try:
        variants = hostile_gen.Generator(args.root, args.seed).generate(args.count)
        hostile_gen.write(variants, args.root, out)
        with open(os.path.join(out, "manifest.json")) as f:
            manifest = json.load(f)
        runs = []
        for i, v in enumerate(manifest):
            argvs = [v["argv"]] if v["argv"] else commands(v["kind"], v["name"], i)
            runs += [(v, a) for a in argvs]
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
            verdicts = list(pool.map(lambda r: judge(bpw, out, r[0], r[1], args.memory_limit), runs))
        failed = 0
        for n, ((v, a), verdict) in enumerate(zip(runs, verdicts), 1):
            desc = "%s %s: bpw %s (%s)" % (v["class"], v["name"], a[0], v["what"][:60])
            desc = desc.replace("#", "no.")
            if verdict is None:
                print("ok %d - %s" % (n, desc))
            else:
                failed += 1
                print("not ok %d - %s" % (n, desc))
                print("# " + verdict.replace("\n", " ")[:400])
        print("1..%d" % len(runs))
        classes = sorted({v["class"] for v in manifest})
        print("# %d variants (%s), %d runs, %d failed" % (len(manifest), ", ".join(classes),
                                                         len(runs), failed))
        return 1 if failed else 0
    finally:
        if not args.keep:
            shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
