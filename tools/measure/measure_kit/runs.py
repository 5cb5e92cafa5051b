"""Traced runs of a model: a training step, a prefill, a decode step (eager and replayed
from a CUDA graph), each timed outside the profiler and traced once with torch.profiler."""

import gzip
import os
import shutil

import torch

from .bench import time_ms
from .model import Decoder, KVCache


def _trace(fn, device, path):
    """One profiled call of @fn, exported as a gzip'd Chrome trace at @path."""
    activities = [torch.profiler.ProfilerActivity.CPU]
    if device.type == "cuda":
        activities.append(torch.profiler.ProfilerActivity.CUDA)
    with torch.profiler.profile(activities=activities, record_shapes=True) as prof:
        fn()
        if device.type == "cuda":
            torch.cuda.synchronize(device)
    plain = path[:-len(".gz")]
    prof.export_chrome_trace(plain)
    with open(plain, "rb") as src, gzip.open(path, "wb") as dst:
        shutil.copyfileobj(src, dst)
    os.unlink(plain)


def _tokens(c, batch, seq, device):
    return torch.randint(0, c.vocab, (batch, seq), device=device)


def build(c, device, dtype):
    torch.manual_seed(0)
    return Decoder(c).to(device=device, dtype=dtype)


def train_step(c, device, batch, seq, amp_dtype):
    """A closure running one AdamW step: fp32 master weights, autocast to @amp_dtype, loss
    over every token in fp32."""
    model = build(c, device, torch.float32)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    tokens = _tokens(c, batch, seq + 1, device)

    def step():
        with torch.autocast(device.type, dtype=amp_dtype, enabled=amp_dtype != torch.float32):
            logits = model(tokens[:, :-1])
        loss = torch.nn.functional.cross_entropy(logits.float().reshape(-1, c.vocab),
                                                 tokens[:, 1:].reshape(-1))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
    return step


def prefill_step(c, device, batch, seq, dtype):
    model = build(c, device, dtype)
    tokens = _tokens(c, batch, seq, device)

    def step():
        with torch.no_grad():
            model(tokens, last_only=True)
    return step


def decode_step(c, device, batch, context, dtype, graph=False):
    """One token for each of @batch sequences at @context; replayed from a CUDA graph when
    @graph (CUDA only)."""
    model = build(c, device, dtype)
    cache = KVCache(c, batch, context + 1, dtype, device)
    tokens = _tokens(c, batch, 1, device)

    def eager():
        with torch.no_grad():
            model(tokens, context, cache)
    if not graph:
        return eager
    stream = torch.cuda.Stream(device)
    stream.wait_stream(torch.cuda.current_stream(device))
    with torch.cuda.stream(stream):
        for _ in range(3):
            eager()
    torch.cuda.current_stream(device).wait_stream(stream)
    cuda_graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(cuda_graph):
        eager()
    return cuda_graph.replay


def peak_bytes(step, device):
    """Device memory allocated at the peak of one call of @step, the model, its optimizer
    state and caches already built (the warm-up calls made them): what the workbench's peak
    memory predicts. None where the device keeps no such count (CPU)."""
    if device.type != "cuda":
        return None
    torch.cuda.synchronize(device)
    torch.cuda.reset_peak_memory_stats(device)
    step()
    torch.cuda.synchronize(device)
    return int(torch.cuda.max_memory_allocated(device))


def run(name, step, device, folder, repeats):
    """Times @step (median), measures its peak memory, traces it once; returns
    (measured_ms, peak bytes or None, trace file name)."""
    ms = time_ms(step, device, warmup=2, repeats=repeats)
    peak = peak_bytes(step, device)
    trace = f"{name}.trace.json.gz"
    _trace(step, device, os.path.join(folder, trace))
    return ms, peak, trace
