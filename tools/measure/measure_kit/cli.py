"""The kit's command line: microbenchmarks, traced runs, the pack written at the end."""

import argparse
import json
import os
import platform
import shutil
import sys

from . import FORMAT, VERSION
from .model import config_from_hf
from .pack import PackError, write_atomic

PHASES = ("train", "prefill", "decode", "decode-graph")


def parse_args(argv):
    p = argparse.ArgumentParser(
        prog="python3 -m measure_kit",
        description="Measure one GPU with PyTorch and write a bpw-measurement-pack: "
                    "microbenchmarks, then short traced runs of each model config.")
    p.add_argument("--config", action="append", required=True, metavar="CONFIG.json",
                   help="a Hugging Face config.json (llama, mistral, mixtral or gpt2); "
                        "random weights, nothing downloaded; repeatable")
    p.add_argument("--output", required=True, metavar="DIR",
                   help="folder for pack.json, the traces and copies of the configs")
    p.add_argument("--device", default="cuda", help="torch device (default cuda; cpu only "
                   "to test the kit)")
    p.add_argument("--phases", default=",".join(PHASES),
                   help="runs per config, of " + ", ".join(PHASES) + " (default all; "
                        "decode-graph needs CUDA)")
    p.add_argument("--batch", type=int, default=1, help="training and prefill batch")
    p.add_argument("--train-seq", type=int, default=2048)
    p.add_argument("--prefill-seq", type=int, default=4096)
    p.add_argument("--decode-batch", type=int, default=16)
    p.add_argument("--decode-context", type=int, default=4096)
    p.add_argument("--dtype", choices=("bf16", "fp16", "fp32"), default="bf16")
    p.add_argument("--repeats", type=int, default=10, help="timed repeats per measurement")
    p.add_argument("--toy", action="store_true",
                   help="tiny microbenchmark sizes, for a CPU run that tests the kit")
    args = p.parse_args(argv)
    phases = [s for s in args.phases.split(",") if s]
    unknown = [s for s in phases if s not in PHASES]
    if unknown:
        p.error(f"--phases: unknown {', '.join(unknown)} (expected {', '.join(PHASES)})")
    args.phases = phases
    for name in ("batch", "train_seq", "prefill_seq", "decode_batch", "decode_context",
                 "repeats"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    if "decode-graph" in phases and not args.device.startswith("cuda"):
        p.error("--phases decode-graph needs a CUDA device")
    return args


def load_configs(paths):
    """[(path, HF dict, ModelConfig)]; ValueError names the file."""
    out = []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                raw = json.load(f)
            out.append((path, raw, config_from_hf(raw)))
        except (OSError, json.JSONDecodeError, ValueError) as e:
            raise ValueError(f"{path}: {e}") from e
    return out


def device_section(torch, device, board):
    if device.type != "cuda":
        return {"name": f"CPU ({platform.processor() or platform.machine()})", "count": 1}
    props = torch.cuda.get_device_properties(device)
    d = {"name": props.name, "count": 1, "sms": props.multi_processor_count,
         "memory_bytes": props.total_memory,
         "compute_capability": f"{props.major}.{props.minor}"}
    if torch.version.cuda:
        d["cuda"] = torch.version.cuda
    if board is not None:
        d.update({k: v for k, v in board.limits().items() if v})
    return d


def stack_section(torch, args):
    from .model import sdpa_native_gqa
    amp = args.dtype
    return {
        "framework": f"PyTorch {torch.__version__}",
        "python": platform.python_version(),
        "attention": ("torch.nn.functional.scaled_dot_product_attention"
                      + (", grouped-query K and V passed as they are (enable_gqa)"
                         if sdpa_native_gqa() else
                         ", grouped-query K and V expanded to every head first"))
                     if hasattr(torch.nn.functional, "scaled_dot_product_attention")
                     else "unfused (scores materialised): this PyTorch has no SDPA",
        "precision": f"training: fp32 master weights with {amp} autocast; inference: {amp} "
                     "weights",
        "optimizer": "torch.optim.AdamW, default implementation",
        "fusion": "none beyond attention: norms, RoPE, activations and residual adds are "
                  "separate eager kernels",
        "launch": "eager, except the decode-graph runs, which replay a CUDA graph",
    }


def microbenchmarks(torch, device, args, board):
    from . import bench
    from .nvml import Sampler

    peak_size = 256 if args.toy else 8192
    sampler = Sampler(board) if board is not None else None
    if sampler is not None:
        with sampler:
            peak = bench.matmul(peak_size, peak_size, peak_size, args.dtype, device, args.repeats)
        peak.update(sampler.means())
    else:
        peak = bench.matmul(peak_size, peak_size, peak_size, args.dtype, device, args.repeats)
    peak["dtype"] = args.dtype
    shapes = {"toy.qkv": (64, 192), "toy.down": (256, 64)} if args.toy else bench.SHAPES
    tokens = (1, 16) if args.toy else bench.TOKENS
    copies = (1 << 16, 1 << 20) if args.toy else bench.COPY_BYTES
    micro = {"matmul_peak": peak,
             "memory_copy": [bench.memory_copy(n, device, args.repeats) for n in copies],
             f"matmul_{args.dtype}": bench.sweep(args.dtype, device, shapes, tokens,
                                                 args.repeats)}
    if bench.fp8_supported(device):
        micro["matmul_fp8"] = [bench.matmul(m, n, k, "fp8", device, args.repeats)
                               for m, k, n in ((8192, 8192, 8192), (4096, 4096, 14336),
                                               (1024, 4096, 4096), (64, 8192, 8192))]
    dt = bench.TORCH_DTYPES[args.dtype]
    heads, hd = (4, 16) if args.toy else (32, 128)
    prefill = ((1, 64),) if args.toy else ((1, 4096), (8, 2048), (1, 8192))
    decode = ((1, 64),) if args.toy else ((1, 4096), (16, 4096), (64, 4096))
    micro["attention"] = (
        [bench.attention_prefill(b, s, heads, hd, dt, device, args.repeats) for b, s in prefill] +
        [bench.attention_decode(b, ctx, heads, max(1, heads // 4), hd, dt, device, args.repeats)
         for b, ctx in decode])
    if sampler is not None and sampler.samples:
        micro["board_power_note"] = "board power and SM clock sampled every 20 ms over the " \
                                    "timed peak product"
    return micro


def traced_runs(torch, device, args, configs, folder):
    from . import runs

    dt = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[args.dtype]
    out = []
    for path, raw, c in configs:
        stem = os.path.basename(path)
        stem = stem[:-len(".json")] if stem.endswith(".json") else stem
        model_file = stem + ".config.json" if not stem.endswith(".config") else stem + ".json"
        shutil.copyfile(path, os.path.join(folder, model_file))
        for phase in args.phases:
            name = f"{phase}-{stem.replace('.config', '')}"
            if phase == "train":
                step = runs.train_step(c, device, args.batch, args.train_seq, dt)
                scenario = {"phase": "train", "global_batch": args.batch,
                            "micro_batch": args.batch, "seq": args.train_seq,
                            "dtype": args.dtype, "recompute": "none", "optimizer": "adam"}
            elif phase == "prefill":
                step = runs.prefill_step(c, device, args.batch, args.prefill_seq, dt)
                scenario = {"phase": "prefill", "global_batch": args.batch,
                            "micro_batch": args.batch, "seq": args.prefill_seq,
                            "dtype": args.dtype}
            else:
                step = runs.decode_step(c, device, args.decode_batch, args.decode_context, dt,
                                        graph=phase == "decode-graph")
                scenario = {"phase": "decode", "global_batch": args.decode_batch,
                            "micro_batch": args.decode_batch, "context": args.decode_context,
                            "dtype": args.dtype}
            ms, peak, trace = runs.run(name, step, device, folder, args.repeats)
            out.append({"name": name, "trace": trace, "model": model_file,
                        "scenario": scenario, "measured_ms": ms})
            if peak is not None:
                out[-1]["peak_memory_bytes"] = peak
            print(f"  {name}: {ms:.3f} ms", file=sys.stderr)
    return out


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        configs = load_configs(args.config)
    except ValueError as e:
        print(f"measure_kit: {e}", file=sys.stderr)
        return 1
    import torch
    from .nvml import Board

    device = torch.device(args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        print("measure_kit: no CUDA device (use --device cpu --toy to test the kit)",
              file=sys.stderr)
        return 1
    os.makedirs(args.output, exist_ok=True)
    board = Board(device.index or 0) if device.type == "cuda" else None
    pack = {"format": FORMAT, "version": VERSION,
            "device": device_section(torch, device, board),
            "stack": stack_section(torch, args)}
    print("microbenchmarks…", file=sys.stderr)
    pack["microbenchmarks"] = microbenchmarks(torch, device, args, board)
    print("traced runs…", file=sys.stderr)
    pack["runs"] = traced_runs(torch, device, args, configs, args.output)
    try:
        write_atomic(os.path.join(args.output, "pack.json"), pack)
    except PackError as e:
        print(f"measure_kit: the pack is not valid: {e}", file=sys.stderr)
        return 1
    print(os.path.join(args.output, "pack.json"))
    return 0
