#!/usr/bin/env python3
# hostile_gen.py — a seeded generator of hostile inputs for `bpw`, made by mutating the
# bundled models, blueprints, studies, mappings and Calculon files
#
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Usage: hostile_gen.py SOURCE_ROOT OUT_DIR [--seed S] [--count N]
#   writes the variants into OUT_DIR and lists them in OUT_DIR/manifest.json.
#
# Every variant knows what `bpw` must answer: `valid` variants are well-formed files (exit 0,
# or 3 where the plan does not fit), every other one is refused (exit 1, 2 or 3) with a
# message that names the file, and `located` ones also give the line and column, because
# the fault is inside the JSON text. The same seed gives the same files, byte for byte.
# The classes (issue 21): json (syntax and limits), deep (nesting), digits (huge digit
# strings), nonfinite (NaN, infinities, overflow), denormal (denormal and tiny numbers),
# oversized (counts, sizes and arrays past what the program holds), nonsense (values that
# parse but mean nothing: candidates that are missing or not blueprints, zero weights,
# zero SLAs, unknown placement levels, sp with tp 1, Calculon systems without networks,
# sequences past a learned position table, ...), special (FIFOs, directories, devices,
# links to devices, also named inside a study), escapes (terminal escapes in names, which
# are valid and must reach no terminal raw) and cli (tiny arrival rates and other values
# that only the command line carries).

import json
import os
import random
import sys

DEPTHS = (65, 200, 5000, 200000)
DIGITS = (400, 5000, 100000)
# Past any count the program holds (2^31 and up), and for layers past the schema's 4096.
HUGE_COUNTS = (2 ** 31 + 1, 2 ** 40, 2 ** 53 + 1, 2 ** 63, 10 ** 30)
HUGE_LAYERS = (4097, 65536, 1048576) + HUGE_COUNTS
BAD_COUNTS = (0, -1, -2 ** 31, 1.5, 1e-320, "32", True, None, [], {})
DENORMALS = ("5e-324", "1e-310", "2.2250738585072014e-309", "1e-300")
NONFINITE = ("NaN", "Infinity", "-Infinity", "1e999", "-1e400", "nan", "inf")
ESCAPES = ("\u001b]0;owned\u0007", "\u001b[2J\u001b[H", "a\u001b[31mred\u001b[0m",
           "\u009b31m", "bell\u0007", "\u001bP+q\u001b\\")
RATE_UNITS = ("TFLOP/s", "TB/s", "GB/s", "Gb/s")
# "1e-7 {u}" is below the readers' lower bounds (1 MFLOP/s, 1 MB/s) in every unit of
# RATE_UNITS, so it is nonsense whichever rate it lands on.
TINY_RATES = ("1e-320 {u}", "5e-324 {u}", "1e-30 {u}", "0 {u}", "-1 {u}", "NaN {u}",
              "inf {u}", "1e400 {u}", "{digits} {u}", "0x10 {u}", "1e-7 {u}")
SIZES = ("0.5 B", "1e30 GiB", "1e-320 GiB", "0 GiB", "-80 GiB", "NaN GiB", "{digits} GiB",
         "80 GHz", "80", "1.25 B")
# A latency may be zero (an ideal link); an SLA may not.
LATENCIES = ("-1 s", "1e300 s", "NaN s", "{digits} s", "1 parsec", "3 GiB")
SLAS = LATENCIES + ("0 s", "1e-320 s")

# The files a variant is made from, by kind (paths relative to the source root).
SOURCES = {
    "workload": ["data/models/llama3-8b.json", "data/models/gpt3-175b.json",
                 "data/models/mixtral-8x7b.json", "data/models/llama3-70b.json"],
    "blueprint": ["data/blueprints/h100-sxm-80gb.json", "data/blueprints/a100-sxm-80gb.json",
                  "data/blueprints/tpu-v5p.json", "data/blueprints/mi300x.json"],
    "study": ["data/studies/default.bpw-study.json"],
    "mapping": ["tests/data/mappings/gpt3-175b-1024-a100.json"],
    "calculon-system": ["tests/data/calculon-search/a100_80g.json"],
    "calculon-model": ["tests/data/calculon/gpt3-175B.json",
                       "tests/data/calculon-search/gpt3-13B.json"],
}


class Variant:
    def __init__(self, name, kind, cls, valid=False, located=True, text=None, special=None,
                 target=None, argv=None, what="", valid_for=()):
        self.name = name          # the file's name in OUT_DIR ("-" for a command-line case)
        self.kind = kind          # which commands read it (see the runner)
        self.cls = cls            # the class of issue 21 it belongs to
        self.valid = valid        # a well-formed input: exit 0 (or 3, an illegal plan)
        self.located = located    # the message gives FILE:LINE:COLUMN
        self.text = text          # the file's bytes, or None for a special file
        self.special = special    # fifo, dir or symlink (to target)
        self.target = target
        self.argv = argv          # a command-line case: the arguments
        self.what = what          # what was done, for the test's description
        self.valid_for = list(valid_for)  # subcommands for which it is still well-formed

    def manifest(self):
        return {"name": self.name, "kind": self.kind, "class": self.cls, "valid": self.valid,
                "located": self.located, "special": self.special, "argv": self.argv,
                "what": self.what, "valid_for": self.valid_for}


def digits(rng, n):
    return str(rng.randint(1, 9)) + "".join(rng.choice("0123456789") for _ in range(n - 1))


def dump(doc):
    return json.dumps(doc, indent=2, ensure_ascii=True).encode("ascii")


def paths(doc, want, prefix=()):
    """Every path in doc whose value satisfies want(value)."""
    found = []
    if want(doc):
        found.append(prefix)
    if isinstance(doc, dict):
        for key, value in doc.items():
            found += paths(value, want, prefix + (key,))
    elif isinstance(doc, list):
        for i, value in enumerate(doc):
            found += paths(value, want, prefix + (i,))
    return found


def get(doc, path):
    for key in path:
        doc = doc[key]
    return doc


def put(doc, path, value):
    for key in path[:-1]:
        doc = doc[key]
    doc[path[-1]] = value


def fmt(template, rng):
    return template.replace("{digits}", digits(rng, rng.choice(DIGITS)))


class Generator:
    def __init__(self, root, seed):
        self.root = root
        self.rng = random.Random(seed)
        self.variants = []
        self.docs = {}
        for kind, files in SOURCES.items():
            for path in files:
                with open(os.path.join(root, path), "rb") as f:
                    self.docs.setdefault(kind, []).append((os.path.basename(path), f.read()))

    def add(self, kind, cls, text=None, what="", **kwargs):
        name = "%04d-%s-%s.json" % (len(self.variants), cls, kind)
        self.variants.append(Variant(name, kind, cls, text=text, what=what, **kwargs))

    def source(self, kind):
        base, text = self.rng.choice(self.docs[kind])
        return base, text, json.loads(text)

    # --- JSON text: invalid whatever the format --------------------------------------------

    def json_text(self, kind):
        rng = self.rng
        base, text, doc = self.source(kind)
        end = text.rstrip().rfind(b"}")
        choice = rng.randrange(9)
        if choice == 0:
            cut = rng.randrange(1, end)
            self.add(kind, "json", text[:cut], "%s cut at byte %d" % (base, cut))
        elif choice == 1:
            at = self.between_tokens(text)
            self.add(kind, "json", text[:at] + rng.choice([b"@", b"+", b"'x'", b"}", b"]"])
                     + text[at:], "%s: a stray token at byte %d" % (base, at))
        elif choice == 2:
            at = rng.randrange(1, end)
            self.add(kind, "json", text[:at] + b"\0" + text[at:], "%s: NUL at %d" % (base, at))
        elif choice == 3:
            at = self.inside_string(text)
            bad = rng.choice([b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80"])
            self.add(kind, "json", text[:at] + bad + text[at:],
                     "%s: invalid UTF-8 at %d" % (base, at))
        elif choice == 4:
            self.add(kind, "json", text.rstrip() + rng.choice([b" x", b" {}", b",", b" 0"]),
                     "%s: trailing garbage" % base)
        elif choice == 5:
            obj = rng.choice(paths(doc, lambda v: isinstance(v, dict) and v))
            key = next(iter(get(doc, obj)))
            raw = dump(doc).decode()
            value = json.dumps(get(doc, obj)[key])
            needle = '"%s": ' % key
            at = raw.find(needle)
            dup = raw[:at] + needle + value + ",\n" + raw[at:]
            self.add(kind, "json", dup.encode(), "%s: key '%s' twice" % (base, key))
        elif choice == 6:
            at = self.inside_string(text)
            self.add(kind, "json", text[:at] + rng.choice([b"\t", b"\n", b"\x1b"]) + text[at:],
                     "%s: raw control character in a string" % base)
        elif choice == 7:
            at = self.inside_string(text)
            self.add(kind, "json", text[:at] + rng.choice([b"\\uD800", b"\\q", b"\\u12"])
                     + text[at:], "%s: bad escape in a string" % base)
        else:
            number = rng.choice(paths(doc, lambda v: type(v) in (int, float)))
            raw = self.replace_number(doc, number, rng.choice(["01", "1.", ".5", "+1", "1e",
                                                               "0x10", "1_000", "- 1"]))
            self.add(kind, "json", raw, "%s: malformed number at %s" % (base, number))

    def between_tokens(self, text):
        commas = [i + 1 for i, c in enumerate(text) if c == ord(",")]
        return self.rng.choice(commas)

    def inside_string(self, text):
        # After the opening quote of a key or a string value, where any byte is in a string.
        starts = [i + 1 for i in range(len(text) - 1)
                  if text[i] == ord('"') and chr(text[i + 1]).isalnum()]
        return self.rng.choice(starts)

    def replace_number(self, doc, path, literal):
        marker = "@@HOSTILE@@"
        copy = json.loads(json.dumps(doc))
        put(copy, path, marker)
        return dump(copy).replace(b'"' + marker.encode() + b'"', literal.encode())

    # --- numbers ----------------------------------------------------------------------------

    def deep(self, kind):
        base, text, doc = self.source(kind)
        path = self.rng.choice(paths(doc, lambda v: not isinstance(v, (dict, list))))
        depth = self.rng.choice(DEPTHS)
        opener, closer = self.rng.choice([("[", "]"), ('{"a":', "}")])
        raw = self.replace_number(doc, path, opener * depth + "0" + closer * depth)
        self.add(kind, "deep", raw, "%s: %s nested %d deep" % (base, "/".join(map(str, path)),
                                                                depth))

    def huge_digits(self, kind):
        base, text, doc = self.source(kind)
        path = self.rng.choice(paths(doc, lambda v: type(v) in (int, float)))
        n = self.rng.choice(DIGITS)
        literal = self.rng.choice([digits(self.rng, n), "0." + digits(self.rng, n) + "e400",
                                   "-" + digits(self.rng, n), "1e" + digits(self.rng, 30)])
        self.add(kind, "digits", self.replace_number(doc, path, literal),
                 "%s: %s has %d digits" % (base, "/".join(map(str, path)), n))

    def nonfinite(self, kind):
        base, text, doc = self.source(kind)
        path = self.rng.choice(paths(doc, lambda v: type(v) in (int, float)))
        literal = self.rng.choice(NONFINITE)
        self.add(kind, "nonfinite", self.replace_number(doc, path, literal),
                 "%s: %s = %s" % (base, "/".join(map(str, path)), literal))

    # --- semantic mutations, by format -----------------------------------------------------

    def mutate(self, kind, cls, pick, values, what):
        """A copy of a source of @kind with the value at a path chosen by @pick replaced."""
        base, text, doc = self.source(kind)
        candidates = pick(doc)
        if not candidates:
            return
        path = self.rng.choice(candidates)
        value = self.rng.choice(values)
        if isinstance(value, str):
            value = fmt(value, self.rng)
        put(doc, path, value)
        self.add(kind, cls, dump(doc), "%s: %s %s = %s" % (base, what, "/".join(map(str, path)),
                                                           json.dumps(value)[:40]))

    def workload(self):
        rng = self.rng
        counts = lambda d: [("model", k) for k in ("vocab", "hidden", "layers", "heads", "ffn")
                            if k in d["model"]]
        choice = rng.randrange(5)
        if choice == 0:
            if rng.randrange(2):
                self.mutate("workload", "oversized", lambda d: [("model", "layers")],
                            HUGE_LAYERS, "layers")
            else:
                self.mutate("workload", "oversized", counts, HUGE_COUNTS, "count")
        elif choice == 1:
            self.mutate("workload", "nonsense", counts, BAD_COUNTS, "count")
        elif choice == 2:
            self.mutate("workload", "denormal", counts, [float(x) for x in DENORMALS],
                        "count")
        elif choice == 3:
            dtypes = lambda d: [("model", "dtypes", k) for k in d["model"].get("dtypes", {})]
            self.mutate("workload", "nonsense", dtypes, ["fp7", "", "bf16 ", 16, True],
                        "dtype")
        else:
            kv = lambda d: [("model", "kv_heads")] if "kv_heads" in d["model"] else []
            self.mutate("workload", "nonsense", kv, [0, -8, 7, 5, 2 ** 40], "kv_heads")

    def blueprint(self):
        rng = self.rng
        rates = lambda d: paths(d, lambda v: isinstance(v, str)
                                and v.split(" ")[-1] in RATE_UNITS and v[0].isdigit())
        sizes = lambda d: [p + ("value",) for p in paths(d, lambda v: isinstance(v, dict)
                                                         and isinstance(v.get("value"), str)
                                                         and v["value"].endswith("B")
                                                         and v["value"][0].isdigit())]
        times = lambda d: [p + ("value",) for p in paths(d, lambda v: isinstance(v, dict)
                                                         and isinstance(v.get("value"), str)
                                                         and v["value"].endswith(" us"))]
        # Whole-number values that count things; the optimizer's bytes per parameter is a
        # rate that happens to be written as an integer (0.5 B is a valid, if odd, figure).
        counts = lambda d: [p + ("value",) for p in
                            paths(d, lambda v: isinstance(v, dict) and type(v.get("value")) is int)
                            if p[-1] != "bytes_per_parameter"]
        effs = lambda d: [p + ("value",) for p in paths(d, lambda v: isinstance(v, dict)
                                                        and type(v.get("value")) is float)]
        choice = rng.randrange(7)
        if choice == 0:
            unitless = [t.replace(" {u}", " ") for t in TINY_RATES]
            base, text, doc = self.source("blueprint")
            path = rng.choice(rates(doc))
            unit = get(doc, path).split(" ")[-1]
            value = fmt(rng.choice(TINY_RATES), rng).replace("{u}", unit)
            put(doc, path, value)
            cls = "denormal" if "e-3" in value else "nonfinite" if (
                "NaN" in value or "inf" in value or "e400" in value) else "nonsense"
            if len(value) > 100:
                cls = "digits"
            self.add("blueprint", cls, dump(doc), "%s: %s = %s" % (
                base, "/".join(map(str, path)), value[:40]))
        elif choice == 1:
            self.mutate("blueprint", "nonsense", sizes, SIZES, "size")
        elif choice == 2:
            self.mutate("blueprint", "nonsense", times, LATENCIES, "latency")
        elif choice == 3:
            self.mutate("blueprint", "oversized", counts,
                        [0, -1, 2 ** 31, 2 ** 63, 10 ** 20, 0.5], "count")
        elif choice == 4:
            self.mutate("blueprint", "denormal", effs,
                        [0.0, 1.5, 5e-324, 1e-310, -0.5, 1e300], "efficiency")
        elif choice == 5:
            empty = lambda d: [(k,) for k in ("engines", "memory") if k in d]
            self.mutate("blueprint", "nonsense", empty, [[], {}, "none"], "list")
        else:
            refs = lambda d: [("memory", i, "engines") for i, m in enumerate(d["memory"])
                              if "engines" in m]
            self.mutate("blueprint", "nonsense", refs, [["warp-engine"], [""], [7]],
                        "memory engines")

    def study(self):
        rng = self.rng
        base, text, doc = self.source("study")
        n = len(doc["candidates"])
        scen = rng.randrange(len(doc["scenarios"]))
        s = doc["scenarios"][scen]
        choice = rng.randrange(12)
        if choice == 0:
            doc["candidates"][rng.randrange(n)]["blueprint"] = "no-such-%d.json" % rng.randrange(999)
            what = "a candidate's blueprint missing"
        elif choice == 1:
            doc["candidates"][rng.randrange(n)]["blueprint"] = rng.choice(
                ["model-ref.json", "study-ref.json", "mapping-ref.json"])
            what = "a candidate's blueprint is another kind of file"
        elif choice == 2:
            for scenario in doc["scenarios"]:
                scenario["weight"] = 0
            what = "every weight 0"
        elif choice == 3:
            s["sla"] = {rng.choice(["step_time", "ttft"]): fmt(rng.choice(SLAS), rng)}
            what = "SLA %s" % json.dumps(s["sla"])[:40]
        elif choice == 4:
            s["parallel"] = {"tp": 1, "sp": True}
            what = "sp with tp 1"
        elif choice == 5:
            doc["scenarios"][0]["seq"] = rng.choice([4096, 8192, 2 ** 20, 2 ** 31])
            what = "gpt3-175b past its 2048 learned positions"
        elif choice == 6:
            s["global_batch"] = rng.choice([0, -8, 2 ** 53 + 1, 2 ** 63, 10 ** 30, 1.5])
            what = "global batch %s" % s["global_batch"]
        elif choice == 7:
            s["workload"] = "no-such-workload"
            what = "an unknown workload"
        elif choice == 8:
            doc["suites"][0]["scenarios"].append("no-such-scenario")
            what = "a suite naming an unknown scenario"
        elif choice == 9:
            doc["candidates"][rng.randrange(n)]["blueprint"] = rng.choice(
                ["fifo.json", "dir.json", "zero.json", "/dev/zero", "null.json"])
            what = "a candidate's blueprint is a special file"
            self.add("study", "special", dump(doc), what, located=True)
            return
        elif choice == 10:
            s["parallel"] = {"tp": rng.choice([0, 3, 2 ** 31, 2 ** 40])}
            what = "tp %s" % s["parallel"]["tp"]
        else:
            s["weight"] = rng.choice([-1, 1e300, "half", True])
            what = "weight %s" % s["weight"]
        self.add("study", "nonsense", dump(doc), "%s: %s" % (base, what))

    def mapping(self):
        rng = self.rng
        base, text, doc = self.source("mapping")
        choice = rng.randrange(7)
        if choice == 0:
            key = rng.choice(["optimizer_state", "master_weight", "activation"])
            doc["placement"][key] = rng.choice(["scratchpad", "hbm9", "", 99, -1, 7])
            what = "placement.%s at %s" % (key, json.dumps(doc["placement"][key]))
            # A mapping alone names no blueprint: only its use can tell the level is missing.
            if isinstance(doc["placement"][key], int) and doc["placement"][key] >= 0:
                self.add("mapping", "nonsense", dump(doc), "%s: %s" % (base, what),
                         valid_for=["check"])
                return
        elif choice == 1:
            doc["micro_batch"] = rng.choice([0, -1, 2 ** 63, 1.5, "one"])
            what = "micro_batch %s" % doc["micro_batch"]
        elif choice == 2:
            key = rng.choice(["tp", "pp", "dp"])
            doc["parallel"][key] = rng.choice([0, -1, 2 ** 63, 2.5, "8"])
            what = "parallel.%s %s" % (key, doc["parallel"][key])
        elif choice == 3:
            doc["parallel"]["tp"] = 1
            doc["parallel"]["sp"] = True
            what = "sp with tp 1"
        elif choice == 4:
            key = rng.choice(["m", "n", "k"])
            doc["tiling"][key] = rng.choice([0, -64, 2 ** 40, 1.5])
            what = "tiling.%s %s" % (key, doc["tiling"][key])
        elif choice == 5:
            doc["fusion"].append(rng.choice(["warp", "", "ATTENTION"]))
            what = "fusion %s" % doc["fusion"][-1]
        else:
            key = rng.choice(["tp", "pp", "dp"])
            doc["tiers"][key] = rng.choice([99, -1, "loopback"])
            what = "tiers.%s %s" % (key, doc["tiers"][key])
        self.add("mapping", "nonsense", dump(doc), "%s: %s" % (base, what))

    def calculon_system(self):
        rng = self.rng
        base, text, doc = self.source("calculon-system")
        choice = rng.randrange(4)
        if choice == 0:
            doc["networks"] = []
            what = "no networks"
        elif choice == 1:
            rates = [p for p in paths(doc, lambda v: type(v) in (int, float) and v > 0)
                     if p[-1] in ("tflops", "GBps", "GiB", "bandwidth")]
            path = rng.choice(rates)
            value = rng.choice([5e-324, 1e-310, -1.0])
            put(doc, path, value)
            what = "%s = %r" % ("/".join(map(str, path)), value)
        elif choice == 2:
            sizes = [p for p in paths(doc, lambda v: type(v) in (int, float) and v > 0)
                     if p[-1] in ("tflops", "GBps", "GiB", "bandwidth", "size")]
            path = rng.choice(sizes)
            value = rng.choice([1e300, 10 ** 30, 2 ** 63])
            put(doc, path, value)
            what = "%s = %r" % ("/".join(map(str, path)), value)
        else:
            path = rng.choice(paths(doc, lambda v: type(v) in (int, float)))
            put(doc, path, rng.choice(["fast", None, True, [1]]))
            what = "%s of another type" % "/".join(map(str, path))
        cls = "nonsense" if choice in (0, 3) else "denormal" if choice == 1 else "oversized"
        self.add("calculon-system", cls, dump(doc), "%s: %s" % (base, what))

    def calculon_model(self):
        rng = self.rng
        key = rng.choice(["hidden", "attn_heads", "num_blocks", "seq_size", "feedforward"])
        self.mutate("calculon-model", "oversized",
                    lambda d: [(key,)] if key in d else [],
                    [0, -1, 2 ** 31, 2 ** 40, 10 ** 30, 1.5, 5e-324], "field")

    # --- valid inputs with escapes in names ---------------------------------------------------

    def escapes(self):
        rng = self.rng
        kind = rng.choice(["workload", "blueprint", "study"])
        base, text, doc = self.source(kind)
        name = rng.choice(ESCAPES) + "%d" % rng.randrange(1000)
        if kind == "workload":
            doc["model"]["name"] = name
        elif kind == "blueprint":
            doc["device"] = name
        else:
            doc["name"] = name
        self.add(kind, "escapes", dump(doc), "%s: a name with terminal escapes" % base,
                 valid=True)

    # --- special files and the command line -------------------------------------------------

    def specials(self):
        for kind in ("workload", "blueprint", "study", "mapping"):
            self.add(kind, "special", None, "a FIFO", special="fifo", located=False)
            self.add(kind, "special", None, "a directory", special="dir", located=False)
            for target in ("/dev/zero", "/dev/urandom", "/dev/null"):
                self.add(kind, "special", None, "a link to " + target, special="symlink",
                         target=target, located=False)

    def cli(self):
        rng = self.rng
        rate = "%.3g" % (10 ** -rng.uniform(3.5, 300))
        self.variants.append(Variant("-", "cli", "cli", located=False, argv=[
            "serve", "llama3-8b", "--blueprint", "h100-sxm-80gb", "--tp", "8",
            "--arrival-rate", rate, "--requests", "4"], what="arrival rate " + rate))

    def generate(self, count):
        self.specials()
        # The unchanged sources: valid, which keeps the runner's commands honest.
        for kind, docs in self.docs.items():
            for base, text in docs:
                self.add(kind, "original", text, base, valid=True)
        steps = [("json", lambda: self.json_text(self.rng.choice(list(SOURCES)))),
                 ("deep", lambda: self.deep(self.rng.choice(list(SOURCES)))),
                 ("digits", lambda: self.huge_digits(self.rng.choice(list(SOURCES)))),
                 ("nonfinite", lambda: self.nonfinite(self.rng.choice(list(SOURCES)))),
                 ("workload", self.workload), ("blueprint", self.blueprint),
                 ("study", self.study), ("study", self.study), ("mapping", self.mapping),
                 ("calculon-system", self.calculon_system),
                 ("calculon-model", self.calculon_model), ("escapes", self.escapes),
                 ("cli", self.cli)]
        # One array of zeros past the document's value bound (2^22 values).
        self.add("workload", "oversized", b"[" + b"0," * (1 << 22) + b"0]",
                 "an array of 2^22 + 1 zeros")
        while len(self.variants) < count:
            self.rng.choice(steps)[1]()
        return self.variants


def write(variants, root, out):
    """The variants' files in @out, with the files the studies refer to."""
    os.makedirs(out, exist_ok=True)
    refs = {"model-ref.json": "data/models/llama3-8b.json",
            "study-ref.json": "data/studies/default.bpw-study.json",
            "mapping-ref.json": "tests/data/mappings/gpt3-175b-1024-a100.json"}
    for name, path in refs.items():
        with open(os.path.join(root, path), "rb") as src, open(os.path.join(out, name), "wb") as f:
            f.write(src.read())
    os.mkfifo(os.path.join(out, "fifo.json"))
    os.mkdir(os.path.join(out, "dir.json"))
    os.symlink("/dev/zero", os.path.join(out, "zero.json"))
    os.symlink("/dev/null", os.path.join(out, "null.json"))
    for v in variants:
        path = os.path.join(out, v.name)
        if v.argv is not None:
            continue
        if v.special == "fifo":
            os.mkfifo(path)
        elif v.special == "dir":
            os.mkdir(path)
        elif v.special == "symlink":
            os.symlink(v.target, path)
        else:
            with open(path, "wb") as f:
                f.write(v.text)
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump([v.manifest() for v in variants], f, indent=1)


def main(argv):
    import argparse

    parser = argparse.ArgumentParser(description="Write hostile inputs for bpw.")
    parser.add_argument("root")
    parser.add_argument("out")
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--count", type=int, default=400)
    args = parser.parse_args(argv)
    variants = Generator(args.root, args.seed).generate(args.count)
    write(variants, args.root, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
