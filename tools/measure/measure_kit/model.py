"""A small decoder in plain PyTorch at a Hugging Face config's sizes, random weights.

Three families, as the pack's stack describes them: Llama-style (RMSNorm, RoPE,
grouped-query attention, SwiGLU), GPT-style (LayerNorm, tanh GeLU, learned positions,
biases, head tied to the embedding) and Mixtral-style (Llama with a top-k MoE of SwiGLU
experts, routed in fp32, a Python loop over the experts). Attention goes through
scaled_dot_product_attention where this PyTorch has it; nothing else is fused. The KV
cache is preallocated so that a decode step has static shapes (CUDA-graph capture).
"""

import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class ModelConfig:
    family: str          # "llama", "gpt2" or "mixtral"
    hidden: int
    layers: int
    heads: int
    kv_heads: int
    ffn: int
    vocab: int
    max_positions: int
    eps: float = 1e-5
    rope_theta: float = 10000.0
    experts: int = 0
    top_k: int = 0
    tie_embeddings: bool = False

    @property
    def head_dim(self):
        return self.hidden // self.heads


def _positive(cfg, key):
    value = cfg.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ValueError(f"config.json: '{key}' must be a positive integer, got {value!r}")
    return value


def config_from_hf(cfg):
    """ModelConfig from a Hugging Face config.json dictionary; ValueError names the field."""
    if not isinstance(cfg, dict):
        raise ValueError("config.json: expected an object")
    model_type = cfg.get("model_type", "")
    if model_type == "gpt2":
        hidden = _positive(cfg, "n_embd")
        inner = cfg.get("n_inner") or 4 * hidden
        c = ModelConfig("gpt2", hidden, _positive(cfg, "n_layer"), _positive(cfg, "n_head"),
                        _positive(cfg, "n_head"), inner, _positive(cfg, "vocab_size"),
                        _positive(cfg, "n_positions"), cfg.get("layer_norm_epsilon", 1e-5),
                        tie_embeddings=cfg.get("tie_word_embeddings", True))
    elif model_type in ("llama", "mistral", "mixtral"):
        heads = _positive(cfg, "num_attention_heads")
        c = ModelConfig("mixtral" if model_type == "mixtral" else "llama",
                        _positive(cfg, "hidden_size"), _positive(cfg, "num_hidden_layers"),
                        heads, cfg.get("num_key_value_heads") or heads,
                        _positive(cfg, "intermediate_size"), _positive(cfg, "vocab_size"),
                        cfg.get("max_position_embeddings", 4096), cfg.get("rms_norm_eps", 1e-5),
                        cfg.get("rope_theta", 10000.0),
                        tie_embeddings=cfg.get("tie_word_embeddings", False))
        if model_type == "mixtral":
            c.experts = _positive(cfg, "num_local_experts")
            c.top_k = _positive(cfg, "num_experts_per_tok")
            if c.top_k > c.experts:
                raise ValueError("config.json: 'num_experts_per_tok' exceeds 'num_local_experts'")
    else:
        raise ValueError(f"config.json: model_type '{model_type}' is not one the kit builds "
                         "(llama, mistral, mixtral, gpt2)")
    if c.hidden % c.heads != 0:
        raise ValueError("config.json: the hidden size is not a multiple of the heads")
    if c.heads % c.kv_heads != 0:
        raise ValueError("config.json: the heads are not a multiple of the key-value heads")
    return c


# Whether this PyTorch's SDPA takes grouped-query K and V as they are (enable_gqa, 2.5 and
# later): None until the first grouped-query call finds out.
_sdpa_native_gqa = None


def attention(q, k, v, causal):
    """[b, h, s, d] attention; k and v may have fewer heads (grouped-query).

    Grouped-query K and V go to SDPA as they are where it takes them: expanding them first
    would add a copy of the whole KV cache per layer and step, which the stacks this kit
    measures do not do (and which the decode microbenchmark would time as attention)."""
    global _sdpa_native_gqa
    grouped = k.shape[1] != q.shape[1]
    if grouped and _sdpa_native_gqa is not False and \
            hasattr(F, "scaled_dot_product_attention"):
        try:
            out = F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=True)
            _sdpa_native_gqa = True
            return out
        except TypeError:
            _sdpa_native_gqa = False
    if grouped:
        repeat = q.shape[1] // k.shape[1]
        k = k.repeat_interleave(repeat, dim=1)
        v = v.repeat_interleave(repeat, dim=1)
    if hasattr(F, "scaled_dot_product_attention"):
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    if causal:
        s_q, s_k = q.shape[-2], k.shape[-2]
        mask = torch.ones(s_q, s_k, dtype=torch.bool, device=q.device).tril(s_k - s_q)
        scores = scores.masked_fill(~mask, float("-inf"))
    return torch.softmax(scores.float(), dim=-1).to(q.dtype) @ v


def sdpa_native_gqa():
    """Whether this PyTorch's SDPA takes grouped-query K and V without expanding them
    (probed once on tiny CPU tensors)."""
    if _sdpa_native_gqa is None and hasattr(F, "scaled_dot_product_attention"):
        q = torch.zeros(1, 2, 1, 4)
        attention(q, q[:, :1], q[:, :1], causal=False)
    return bool(_sdpa_native_gqa)


class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.eps = eps

    def forward(self, x):
        variance = x.float().pow(2).mean(-1, keepdim=True)
        return (x.float() * torch.rsqrt(variance + self.eps)).to(x.dtype) * self.weight


def rope(x, positions, theta):
    """Rotary embedding of [b, h, s, d] at integer @positions [s]."""
    d = x.shape[-1]
    inv = 1.0 / (theta ** (torch.arange(0, d, 2, device=x.device, dtype=torch.float32) / d))
    angles = positions.float()[:, None] * inv[None, :]
    cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
    x1, x2 = x[..., : d // 2], x[..., d // 2:]
    return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1)


class SwiGLU(nn.Module):
    def __init__(self, hidden, ffn):
        super().__init__()
        self.gate_up = nn.Linear(hidden, 2 * ffn, bias=False)
        self.down = nn.Linear(ffn, hidden, bias=False)

    def forward(self, x):
        gate, up = self.gate_up(x).chunk(2, dim=-1)
        return self.down(F.silu(gate) * up)


class MoE(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.router = nn.Linear(c.hidden, c.experts, bias=False)
        self.experts = nn.ModuleList(SwiGLU(c.hidden, c.ffn) for _ in range(c.experts))
        self.top_k = c.top_k

    def forward(self, x):
        shape = x.shape
        x = x.reshape(-1, shape[-1])
        probs = torch.softmax(self.router(x).float(), dim=-1)
        weights, chosen = probs.topk(self.top_k, dim=-1)
        weights = (weights / weights.sum(-1, keepdim=True)).to(x.dtype)
        out = torch.zeros_like(x)
        for e, expert in enumerate(self.experts):
            hit = chosen == e
            rows = hit.any(-1)
            if not bool(rows.any()):
                continue
            w = (weights * hit).sum(-1)[rows][:, None]
            out.index_add_(0, rows.nonzero().squeeze(-1), expert(x[rows]) * w)
        return out.reshape(shape)


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c = c
        gpt = c.family == "gpt2"
        hd = c.head_dim
        self.norm1 = nn.LayerNorm(c.hidden, eps=c.eps) if gpt else RMSNorm(c.hidden, c.eps)
        self.norm2 = nn.LayerNorm(c.hidden, eps=c.eps) if gpt else RMSNorm(c.hidden, c.eps)
        self.qkv = nn.Linear(c.hidden, (c.heads + 2 * c.kv_heads) * hd, bias=gpt)
        self.o = nn.Linear(c.heads * hd, c.hidden, bias=gpt)
        if gpt:
            self.mlp = nn.Sequential(nn.Linear(c.hidden, c.ffn), nn.GELU(approximate="tanh"),
                                     nn.Linear(c.ffn, c.hidden))
        elif c.family == "mixtral":
            self.mlp = MoE(c)
        else:
            self.mlp = SwiGLU(c.hidden, c.ffn)

    def forward(self, x, positions, start=0, cache=None, layer=0):
        c, hd = self.c, self.c.head_dim
        b, s, _ = x.shape
        q, k, v = self.qkv(self.norm1(x)).split(
            [c.heads * hd, c.kv_heads * hd, c.kv_heads * hd], dim=-1)
        q = q.view(b, s, c.heads, hd).transpose(1, 2)
        k = k.view(b, s, c.kv_heads, hd).transpose(1, 2)
        v = v.view(b, s, c.kv_heads, hd).transpose(1, 2)
        if c.family != "gpt2":
            q, k = rope(q, positions, c.rope_theta), rope(k, positions, c.rope_theta)
        if cache is not None:
            k, v = cache.store(layer, k, v, start)
        a = attention(q, k, v, causal=s > 1)
        x = x + self.o(a.transpose(1, 2).reshape(b, s, c.heads * hd))
        return x + self.mlp(self.norm2(x))


class KVCache:
    """Preallocated keys and values [layers, b, kv_heads, length, head_dim]; a decode step
    at context C uses a cache of C + 1 positions, so that it attends to all of them with
    static shapes (what CUDA-graph capture needs)."""

    def __init__(self, c, batch, length, dtype, device):
        shape = (c.layers, batch, c.kv_heads, length, c.head_dim)
        self.k = torch.zeros(shape, dtype=dtype, device=device)
        self.v = torch.zeros(shape, dtype=dtype, device=device)

    def store(self, layer, k, v, start):
        """Writes @k and @v at positions start… and returns every key and value up to
        them; @start is a Python int, so shapes stay static under graph capture."""
        end = start + k.shape[2]
        self.k[layer, :, :, start:end] = k
        self.v[layer, :, :, start:end] = v
        return self.k[layer, :, :, :end], self.v[layer, :, :, :end]


class Decoder(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.c = c
        self.embed = nn.Embedding(c.vocab, c.hidden)
        self.positions = nn.Embedding(c.max_positions, c.hidden) if c.family == "gpt2" else None
        self.blocks = nn.ModuleList(Block(c) for _ in range(c.layers))
        self.norm = nn.LayerNorm(c.hidden, eps=c.eps) if c.family == "gpt2" \
            else RMSNorm(c.hidden, c.eps)
        self.head = nn.Linear(c.hidden, c.vocab, bias=False)
        if c.tie_embeddings:
            self.head.weight = self.embed.weight

    def forward(self, tokens, start=0, cache=None, last_only=False):
        """Logits of @tokens [b, s] at positions start…start+s−1; with @cache, the keys and
        values of the positions before @start come from it."""
        positions = torch.arange(start, start + tokens.shape[1], device=tokens.device)
        x = self.embed(tokens)
        if self.positions is not None:
            x = x + self.positions(positions)
        for i, block in enumerate(self.blocks):
            x = block(x, positions, start, cache, i)
        x = self.norm(x)
        if last_only:
            x = x[:, -1:]
        return self.head(x)


def matmul_parameters(c):
    """Weights multiplied by every token: attention projections, MLP (the experts a token
    visits), router and head; embeddings and norms excluded."""
    hd = c.head_dim
    attn = c.hidden * (c.heads + 2 * c.kv_heads) * hd + c.heads * hd * c.hidden
    if c.family == "gpt2":
        mlp = 2 * c.hidden * c.ffn
    elif c.family == "mixtral":
        mlp = c.top_k * 3 * c.hidden * c.ffn + c.hidden * c.experts
    else:
        mlp = 3 * c.hidden * c.ffn
    return c.layers * (attn + mlp)


def forward_flops(c, batch, seq, context=0, logits_tokens=None):
    """Matmul FLOPs of one forward pass over @seq new tokens per sequence after @context
    cached ones: 2 per multiply-add; causal attention counts the scores it needs."""
    tokens = batch * seq
    head_tokens = tokens if logits_tokens is None else batch * logits_tokens
    linear = 2 * tokens * matmul_parameters(c) + 2 * head_tokens * c.hidden * c.vocab
    # Scores and values: each new token attends to context + its position + 1 keys.
    keys = seq * context + seq * (seq + 1) // 2
    attn = 2 * 2 * batch * c.heads * c.head_dim * keys * c.layers
    return linear + attn


def step_flops(c, phase, batch, seq=0, context=0):
    """FLOPs of one step: training is forward plus backward (twice the forward); prefill
    computes the last token's logits only; decode one token at @context."""
    if phase == "train":
        return 3 * forward_flops(c, batch, seq)
    if phase == "prefill":
        return forward_flops(c, batch, seq, logits_tokens=1)
    if phase == "decode":
        return forward_flops(c, batch, 1, context)
    raise ValueError(f"unknown phase '{phase}'")
