import copy
import json
import os
import subprocess
import tempfile
import unittest

from common import SCHEMA, SHARED_PACK, TOY

import schema_check
from measure_kit import cli
from measure_kit.pack import PackError, validate, write_atomic


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


class SchemaTest(unittest.TestCase):
    def test_shared_pack_conforms(self):
        self.assertEqual(schema_check.errors(load(SHARED_PACK), load(SCHEMA)), [])

    def test_schema_refuses_what_the_reader_refuses(self):
        schema, pack = load(SCHEMA), load(SHARED_PACK)
        bad = copy.deepcopy(pack)
        bad["runs"][1]["measured_ms"] = -1
        self.assertTrue(schema_check.errors(bad, schema))
        bad = copy.deepcopy(pack)
        bad["microbenchmarks"]["matmul_fp7"] = []
        self.assertTrue(schema_check.errors(bad, schema))
        bad = copy.deepcopy(pack)
        del bad["runs"][2]["scenario"]["context"]
        self.assertTrue(schema_check.errors(bad, schema))


class WriteTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.folder = self.dir.name
        self.pack = load(SHARED_PACK)
        shared = os.path.dirname(SHARED_PACK)
        for run in self.pack["runs"]:
            for key in ("trace", "model"):
                with open(os.path.join(shared, run[key]), "rb") as src, \
                     open(os.path.join(self.folder, run[key]), "wb") as dst:
                    dst.write(src.read())

    def tearDown(self):
        self.dir.cleanup()

    def test_round_trip(self):
        path = os.path.join(self.folder, "pack.json")
        write_atomic(path, self.pack)
        self.assertEqual(load(path), self.pack)
        self.assertEqual(sorted(f for f in os.listdir(self.folder) if f.startswith(".pack-")), [])

    def test_refusals_leave_the_old_pack(self):
        path = os.path.join(self.folder, "pack.json")
        write_atomic(path, self.pack)
        cases = [
            ("microbenchmarks.matmul_peak.ms", lambda p: p["microbenchmarks"]["matmul_peak"]
             .update(ms=-2.0)),
            ("runs[0].scenario.dtype", lambda p: p["runs"][0]["scenario"].update(dtype="fp7")),
            ("runs[1].trace", lambda p: p["runs"][1].update(trace="gone.json.gz")),
            ("runs[1].measured_ms", lambda p: p["runs"][1].update(measured_ms=float("nan"))),
            ("microbenchmarks.matmul_int4", lambda p: p["microbenchmarks"].update(
                matmul_int4=[])),
            ("runs[3].name", lambda p: p["runs"][3].update(name=p["runs"][2]["name"])),
            ("runs[0].peak_memory_bytes", lambda p: p["runs"][0].update(peak_memory_bytes=0)),
            ("runs[2].peak_memory_bytes", lambda p: p["runs"][2].update(
                peak_memory_bytes=3.5e9)),
        ]
        for where, spoil in cases:
            bad = copy.deepcopy(self.pack)
            spoil(bad)
            with self.assertRaisesRegex(PackError, where.replace("[", r"\[").replace("]", r"\]")):
                write_atomic(path, bad)
            self.assertEqual(load(path), self.pack)
        self.assertEqual([f for f in os.listdir(self.folder) if f.startswith(".pack-")], [])

    def test_validate_accepts_the_shared_pack(self):
        validate(self.pack, self.folder)

    def test_peak_memory_is_kept(self):
        """A run's measured peak goes into the pack as whole bytes and conforms to the
        schema that `bpw profile report` reads it by."""
        path = os.path.join(self.folder, "pack.json")
        pack = copy.deepcopy(self.pack)
        pack["runs"][0]["peak_memory_bytes"] = 37362892288
        write_atomic(path, pack)
        self.assertEqual(load(path)["runs"][0]["peak_memory_bytes"], 37362892288)
        self.assertEqual(schema_check.errors(load(path), load(SCHEMA)), [])


class ArgumentsTest(unittest.TestCase):
    def refused(self, argv):
        with self.assertRaises(SystemExit) as e, open(os.devnull, "w") as null:
            import contextlib
            with contextlib.redirect_stderr(null):
                cli.parse_args(argv)
        self.assertEqual(e.exception.code, 2)

    def test_arguments(self):
        a = cli.parse_args(["--config", "a.json", "--config", "b.json", "--output", "o",
                            "--device", "cpu", "--phases", "train,decode"])
        self.assertEqual(a.config, ["a.json", "b.json"])
        self.assertEqual(a.phases, ["train", "decode"])
        self.refused(["--output", "o"])
        self.refused(["--config", "a.json", "--output", "o", "--phases", "train,serve"])
        self.refused(["--config", "a.json", "--output", "o", "--device", "cpu"])
        self.refused(["--config", "a.json", "--output", "o", "--train-seq", "0"])

    def test_bad_config_is_named(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "bad.json")
            with open(path, "w") as f:
                json.dump({"model_type": "llama"}, f)
            with self.assertRaisesRegex(ValueError, "bad.json.*num_attention_heads"):
                cli.load_configs([path])


class KitRunTest(unittest.TestCase):
    """The kit end to end on the CPU at toy size; the pack it writes conforms to the schema
    and, where BPW names the bpw binary (the meson test sets it), passes `bpw check`."""

    def test_cpu_toy_run(self):
        with tempfile.TemporaryDirectory() as d:
            configs = []
            for family in ("llama", "mixtral"):
                path = os.path.join(d, f"toy-{family}.json")
                with open(path, "w") as f:
                    json.dump(TOY[family], f)
                configs += ["--config", path]
            out = os.path.join(d, "pack")
            import contextlib
            import io
            with contextlib.redirect_stderr(io.StringIO()), \
                 contextlib.redirect_stdout(io.StringIO()):
                rc = cli.main(configs + ["--output", out, "--device", "cpu", "--toy",
                                         "--repeats", "1", "--train-seq", "16",
                                         "--prefill-seq", "16", "--decode-batch", "2",
                                         "--decode-context", "8",
                                         "--phases", "train,prefill,decode"])
            self.assertEqual(rc, 0)
            pack = load(os.path.join(out, "pack.json"))
            self.assertEqual(schema_check.errors(pack, load(SCHEMA)), [])
            self.assertEqual(len(pack["runs"]), 6)
            self.assertEqual({r["scenario"]["phase"] for r in pack["runs"]},
                             {"train", "prefill", "decode"})
            self.assertIn("matmul_bf16", pack["microbenchmarks"])
            # The CPU keeps no allocator peak: absent means "not measured", never 0.
            self.assertTrue(all("peak_memory_bytes" not in r for r in pack["runs"]))
            bpw = os.environ.get("BPW")
            if bpw:
                done = subprocess.run([bpw, "check", os.path.join(out, "pack.json")],
                                      capture_output=True, text=True)
                self.assertEqual(done.returncode, 0, done.stderr)
                self.assertIn("ok (measurement pack)", done.stdout)


if __name__ == "__main__":
    unittest.main()
