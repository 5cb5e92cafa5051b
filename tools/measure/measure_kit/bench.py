"""Microbenchmarks: matrix products by shape and precision, memory copies by size, attention.

Every time is a median over repeats after warm-up: CUDA events on a GPU, the wall clock on
the CPU (where the kit runs only to test itself)."""

import statistics
import time

import torch

from .model import attention

TORCH_DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}

# Llama 3 8B and 70B layer shapes (k, n) and the token counts m they are swept over.
SHAPES = {
    "8b.qkv": (4096, 6144), "8b.o": (4096, 4096), "8b.gate_up": (4096, 28672),
    "8b.down": (14336, 4096), "8b.head": (4096, 128256),
    "70b.qkv": (8192, 10240), "70b.gate_up": (8192, 57344), "70b.down": (28672, 8192),
}
TOKENS = (1, 16, 64, 256, 1024, 4096, 16384)
COPY_BYTES = (1 << 20, 16 << 20, 256 << 20, 4 << 30)


def time_ms(fn, device, warmup=3, repeats=10):
    """Median milliseconds of @fn()."""
    for _ in range(warmup):
        fn()
    samples = []
    if device.type == "cuda":
        for _ in range(repeats):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            samples.append(start.elapsed_time(end))
    else:
        for _ in range(repeats):
            t = time.perf_counter()
            fn()
            samples.append((time.perf_counter() - t) * 1e3)
    return statistics.median(samples)


def fp8_supported(device):
    return (device.type == "cuda" and hasattr(torch, "float8_e4m3fn") and
            hasattr(torch, "_scaled_mm") and torch.cuda.get_device_capability(device) >= (8, 9))


def matmul(m, n, k, dtype, device, repeats=10):
    """{"m", "n", "k", "ms", "tflops"} of one product in @dtype ("fp8": e4m3 operands,
    bf16 output)."""
    if dtype == "fp8":
        a = torch.randn(m, k, device=device).to(torch.float8_e4m3fn)
        b = torch.randn(n, k, device=device).to(torch.float8_e4m3fn).t()
        one = torch.ones((), device=device)
        fn = lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    else:
        a = torch.randn(m, k, device=device, dtype=TORCH_DTYPES[dtype])
        b = torch.randn(k, n, device=device, dtype=TORCH_DTYPES[dtype])
        fn = lambda: a @ b
    ms = time_ms(fn, device, repeats=repeats)
    return {"m": m, "n": n, "k": k, "ms": ms, "tflops": 2.0 * m * n * k / (ms * 1e-3) / 1e12}


def sweep(dtype, device, shapes=SHAPES, tokens=TOKENS, repeats=10):
    points = []
    for name, (k, n) in shapes.items():
        for m in tokens:
            point = {"name": name}
            point.update(matmul(m, n, k, dtype, device, repeats))
            points.append(point)
    return points


def memory_copy(nbytes, device, repeats=10):
    src = torch.empty(nbytes, dtype=torch.uint8, device=device)
    dst = torch.empty_like(src)
    ms = time_ms(lambda: dst.copy_(src), device, repeats=repeats)
    return {"bytes_each_way": nbytes, "ms": ms,
            "tbps_read_plus_write": 2.0 * nbytes / (ms * 1e-3) / 1e12}


def attention_prefill(batch, seq, heads, head_dim, dtype, device, repeats=10):
    q, k, v = (torch.randn(batch, heads, seq, head_dim, device=device, dtype=dtype)
               for _ in range(3))
    ms = time_ms(lambda: attention(q, k, v, causal=True), device, repeats=repeats)
    flops = 4.0 * batch * heads * head_dim * seq * seq / 2      # the causal half
    return {"kind": "prefill_causal", "b": batch, "s": seq, "ms": ms,
            "tflops_causal": flops / (ms * 1e-3) / 1e12}


def attention_decode(batch, context, heads, kv_heads, head_dim, dtype, device, repeats=10):
    q = torch.randn(batch, heads, 1, head_dim, device=device, dtype=dtype)
    k, v = (torch.randn(batch, kv_heads, context, head_dim, device=device, dtype=dtype)
            for _ in range(2))
    ms = time_ms(lambda: attention(q, k, v, causal=False), device, repeats=repeats)
    kv_bytes = 2 * k.numel() * k.element_size()
    return {"kind": "decode", "b": batch, "context": context, "ms": ms, "kv_bytes": kv_bytes,
            "tbps": kv_bytes / (ms * 1e-3) / 1e12}
