#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Profiles one training step of a tiny GPT-2 on the CPU and writes the trace.

The model is the one gpt2-block-config.json describes (a Hugging Face GPT-2 config the
workbench imports): 2 blocks of width 64 with 4 heads, vocabulary 256, learned positions,
tied embeddings, biases, dropout 0.1, tanh GeLU. The step is batch 2 x 32 tokens in fp32:
forward, cross-entropy loss, backward and one Adam update -- the step the workbench models
for `--phase train --global-batch 2 --seq 32 --dtype fp32 --optimizer adam`.

Run with Debian's python3-torch (CPU only), at a high priority on a shared machine:

    nice -n -20 /usr/bin/python3 tests/data/profiles/gpt2-block.py tests/data/profiles

It writes two files:

  gpt2-block.json         PyTorch profiler events in the kineto layout ("traceEvents" with
                          "cat": "cpu_op", "External id", "Input Dims", ...). Where torch
                          has kineto this is export_chrome_trace()'s own output, with the
                          run's metadata added by add_metadata_json(). Debian's torch 1.13
                          is built without kineto, so there the script writes the profiler's
                          events (prof.profiler.function_events: the same records the
                          export reads) in that layout itself, with the shapes that
                          record_shapes collected and the run's metadata.
  gpt2-block-legacy.json  only without kineto: export_chrome_trace() as the autograd
                          profiler writes it (a bare array, pid "CPU functions", no shapes).

One thread, a fixed seed, and an untimed warm-up step, so that the profiled step does not
include first-call costs (allocator growth, lazy initialisation). A shared or virtual
machine loses the CPU now and then for milliseconds (other processes, the hypervisor), so
the step is profiled REPEATS times and the fastest run is kept, the usual way to reject
interference in timing; the metadata says so.
"""

import datetime
import json
import math
import os
import platform
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile

VOCAB, POSITIONS, WIDTH, HEADS, LAYERS = 256, 64, 64, 4, 2
BATCH, SEQ, DROPOUT = 2, 32, 0.1
REPEATS = 15


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(WIDTH)
        self.c_attn = nn.Linear(WIDTH, 3 * WIDTH)
        self.c_proj = nn.Linear(WIDTH, WIDTH)
        self.ln_2 = nn.LayerNorm(WIDTH)
        self.c_fc = nn.Linear(WIDTH, 4 * WIDTH)
        self.c_fc_proj = nn.Linear(4 * WIDTH, WIDTH)
        self.attn_dropout = nn.Dropout(DROPOUT)
        self.resid_dropout = nn.Dropout(DROPOUT)
        self.mlp_dropout = nn.Dropout(DROPOUT)
        mask = torch.tril(torch.ones(POSITIONS, POSITIONS)).view(1, 1, POSITIONS, POSITIONS)
        self.register_buffer("mask", mask)

    def attention(self, x):
        b, t, c = x.shape
        q, k, v = self.c_attn(x).split(WIDTH, dim=2)
        q = q.view(b, t, HEADS, c // HEADS).transpose(1, 2)
        k = k.view(b, t, HEADS, c // HEADS).transpose(1, 2)
        v = v.view(b, t, HEADS, c // HEADS).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(c // HEADS))
        att = att.masked_fill(self.mask[:, :, :t, :t] == 0, float("-inf"))
        att = self.attn_dropout(F.softmax(att, dim=-1))
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
        return self.resid_dropout(self.c_proj(y))

    def forward(self, x):
        x = x + self.attention(self.ln_1(x))
        h = F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh")
        return x + self.mlp_dropout(self.c_fc_proj(h))


class TinyGPT2(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte = nn.Embedding(VOCAB, WIDTH)
        self.wpe = nn.Embedding(POSITIONS, WIDTH)
        self.drop = nn.Dropout(DROPOUT)
        self.h = nn.ModuleList([Block() for _ in range(LAYERS)])
        self.ln_f = nn.LayerNorm(WIDTH)

    def forward(self, idx, targets):
        pos = torch.arange(idx.shape[1], dtype=torch.long)
        x = self.drop(self.wte(idx) + self.wpe(pos))
        for block in self.h:
            x = block(x)
        logits = F.linear(self.ln_f(x), self.wte.weight)  # tied head
        return F.cross_entropy(logits.view(-1, VOCAB), targets.view(-1))


def step(model, optimizer, idx, targets):
    optimizer.zero_grad(set_to_none=True)
    model(idx, targets).backward()
    optimizer.step()


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def metadata(kept, times):
    return {
        "hardware": "%s, %d thread" % (cpu_name(), torch.get_num_threads()),
        "framework": "PyTorch %s" % torch.__version__,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "workload": "tiny GPT-2 (gpt2-block-config.json), train, batch %d x %d tokens, fp32, "
                    "Adam" % (BATCH, SEQ),
        "selection": "the fastest of %d profiled steps (run %d: %.1f ms; all: %s ms)"
                     % (len(times), kept + 1, times[kept],
                        ", ".join("%.1f" % t for t in times)),
    }


def kineto_layout(prof, meta):
    """The profiler's events in the layout kineto writes (PyTorch >= 1.8)."""
    events = []
    pid = os.getpid()
    for e in prof.profiler.function_events:
        annotation = "#" in e.name or e.name.startswith("ProfilerStep")
        args = {"External id": e.id}
        if e.sequence_nr >= 0:
            args["Sequence number"] = e.sequence_nr
            args["Fwd thread id"] = e.fwd_thread
        if e.input_shapes:
            args["Input Dims"] = [list(s) for s in e.input_shapes]
        events.append({"ph": "X", "cat": "user_annotation" if annotation else "cpu_op",
                       "name": e.name, "pid": pid, "tid": e.thread,
                       "ts": e.time_range.start, "dur": e.time_range.end - e.time_range.start,
                       "args": args})
    events.sort(key=lambda ev: (ev["ts"], -ev["dur"]))
    events.insert(0, {"ph": "M", "name": "process_name", "pid": pid, "tid": 0,
                      "args": {"name": "python3"}})
    return {"schemaVersion": 1, "deviceProperties": [], "record_shapes": 1,
            "displayTimeUnit": "ms", **meta, "traceEvents": events,
            "traceName": "gpt2-block.json"}


def write_compact(path, doc):
    """One event per line: small, and diffs of the fixture stay readable."""
    events = doc.pop("traceEvents")
    with open(path, "w") as f:
        f.write("{\n")
        for key, value in doc.items():
            f.write("  %s: %s,\n" % (json.dumps(key), json.dumps(value)))
        f.write('  "traceEvents": [\n')
        f.write(",\n".join("    " + json.dumps(ev, separators=(",", ":")) for ev in events))
        f.write("\n  ]\n}\n")


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "."
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = TinyGPT2()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, foreach=False)
    idx = torch.randint(0, VOCAB, (BATCH, SEQ))
    targets = torch.randint(0, VOCAB, (BATCH, SEQ))
    model.train()
    step(model, optimizer, idx, targets)  # warm-up, not profiled

    kineto = torch.autograd.kineto_available()
    runs, times = [], []
    for _ in range(REPEATS):
        with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
            step(model, optimizer, idx, targets)
        ops = prof.profiler.function_events
        runs.append(prof)
        times.append((max(e.time_range.end for e in ops) -
                      min(e.time_range.start for e in ops)) / 1000.0)
    kept = min(range(REPEATS), key=lambda i: times[i])
    prof, meta = runs[kept], metadata(kept, times)

    target = os.path.join(out, "gpt2-block.json")
    if kineto:
        for key, value in meta.items():
            prof.add_metadata_json(key, json.dumps(value))
        prof.export_chrome_trace(target)
    else:
        write_compact(target, kineto_layout(prof, meta))
        prof.export_chrome_trace(os.path.join(out, "gpt2-block-legacy.json"))
    print("wrote %s (%s)" % (target, "kineto" if kineto else "kineto layout, no kineto in torch"))


if __name__ == "__main__":
    main()
