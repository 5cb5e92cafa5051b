"""Writing a bpw-measurement-pack: the document, its checks, and an atomic write."""

import json
import math
import os
import tempfile

from . import FORMAT, VERSION

DTYPES = ("fp32", "bf16", "fp16", "fp8")
PHASES = ("train", "prefill", "decode")


class PackError(ValueError):
    """A pack that `bpw check` would refuse; the message names the JSON path."""


def _check_number(path, value, positive=True):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise PackError(f"{path}: expected a number, got {value!r}")
    if not math.isfinite(value) or (positive and value <= 0):
        raise PackError(f"{path}: expected a positive finite number, got {value!r}")


def _check_int(path, value):
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise PackError(f"{path}: expected a positive integer, got {value!r}")


def _check_matmul(path, point):
    for key in ("m", "n", "k"):
        _check_int(f"{path}.{key}", point.get(key))
    _check_number(f"{path}.ms", point.get("ms"))
    _check_number(f"{path}.tflops", point.get("tflops"))


def validate(pack, folder):
    """Raises PackError where @pack breaks the format; run files are looked for in @folder."""
    if pack.get("format") != FORMAT or pack.get("version") != VERSION:
        raise PackError(f"format/version: expected {FORMAT} version {VERSION}")
    device = pack.get("device", {})
    if not device.get("name"):
        raise PackError("device.name: missing")
    if not pack.get("stack", {}).get("framework"):
        raise PackError("stack.framework: missing")
    micro = pack.get("microbenchmarks", {})
    peak = micro.get("matmul_peak")
    if peak is None:
        raise PackError("microbenchmarks.matmul_peak: missing")
    _check_matmul("microbenchmarks.matmul_peak", peak)
    if peak.get("dtype") not in DTYPES:
        raise PackError(f"microbenchmarks.matmul_peak.dtype: unknown '{peak.get('dtype')}'")
    copies = micro.get("memory_copy")
    copies = copies if isinstance(copies, list) else [copies]
    if not copies or copies[0] is None:
        raise PackError("microbenchmarks.memory_copy: missing")
    for i, c in enumerate(copies):
        _check_int(f"microbenchmarks.memory_copy[{i}].bytes_each_way", c.get("bytes_each_way"))
        _check_number(f"microbenchmarks.memory_copy[{i}].ms", c.get("ms"))
        _check_number(f"microbenchmarks.memory_copy[{i}].tbps_read_plus_write",
                      c.get("tbps_read_plus_write"))
    for key, sweep in micro.items():
        if key.startswith("matmul_") and key != "matmul_peak":
            if key[len("matmul_"):] not in DTYPES:
                raise PackError(f"microbenchmarks.{key}: unknown precision")
            for i, point in enumerate(sweep):
                _check_matmul(f"microbenchmarks.{key}[{i}]", point)
    for i, a in enumerate(micro.get("attention", [])):
        path = f"microbenchmarks.attention[{i}]"
        if a.get("kind") == "prefill_causal":
            keys = ("b", "s"), ("ms", "tflops_causal")
        elif a.get("kind") == "decode":
            keys = ("b", "context", "kv_bytes"), ("ms", "tbps")
        else:
            raise PackError(f"{path}.kind: unknown '{a.get('kind')}'")
        for key in keys[0]:
            _check_int(f"{path}.{key}", a.get(key))
        for key in keys[1]:
            _check_number(f"{path}.{key}", a.get(key))
    names = set()
    for i, run in enumerate(pack.get("runs", [])):
        path = f"runs[{i}]"
        if not run.get("name") or run["name"] in names:
            raise PackError(f"{path}.name: missing or repeated")
        names.add(run["name"])
        for key in ("trace", "model"):
            if not run.get(key) or not os.path.isfile(os.path.join(folder, run[key])):
                raise PackError(f"{path}.{key}: '{run.get(key)}' does not exist in {folder}")
        s = run.get("scenario", {})
        if s.get("phase") not in PHASES:
            raise PackError(f"{path}.scenario.phase: unknown '{s.get('phase')}'")
        if s.get("dtype") not in DTYPES:
            raise PackError(f"{path}.scenario.dtype: unknown '{s.get('dtype')}'")
        _check_int(f"{path}.scenario.global_batch", s.get("global_batch"))
        _check_int(f"{path}.scenario." + ("context" if s["phase"] == "decode" else "seq"),
                   s.get("context" if s["phase"] == "decode" else "seq"))
        if "measured_ms" in run:
            _check_number(f"{path}.measured_ms", run["measured_ms"])
        if "peak_memory_bytes" in run:
            _check_int(f"{path}.peak_memory_bytes", run["peak_memory_bytes"])


def write_atomic(path, pack):
    """Writes @pack to @path whole or not at all: a temporary file in the same folder,
    flushed to disk, then renamed over @path."""
    folder = os.path.dirname(os.path.abspath(path))
    validate(pack, folder)
    text = json.dumps(pack, indent=1, allow_nan=False) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=".pack-", suffix=".json", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
