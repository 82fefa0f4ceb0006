# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 The Mantissa authors
"""Mantissa's GPT as a PyTorch module, computed as Mantissa computes it in
FP32 and named as nanoGPT names it: learned token and position embeddings,
pre-LayerNorm blocks (eps 1e-5, with bias) of causal self-attention (scores
scaled by 1/sqrt(head size)) and an MLP with the tanh-approximated GELU,
a final LayerNorm, and a head tied to the token embedding."""

import math
import re

import torch
from torch import nn
from torch.nn import functional as F

LAYER_NORM_EPS = 1e-5


class CausalSelfAttention(nn.Module):
    def __init__(self, embd, heads, ctx):
        super().__init__()
        self.heads = heads
        self.c_attn = nn.Linear(embd, 3 * embd)
        self.c_proj = nn.Linear(embd, embd)
        self.register_buffer("mask", torch.ones(ctx, ctx).tril().bool(), persistent=False)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.c_attn(x).split(C, dim=2)
        D = C // self.heads
        q, k, v = (t.view(B, T, self.heads, D).transpose(1, 2) for t in (q, k, v))
        s = (q @ k.transpose(-2, -1)) / math.sqrt(D)
        s = s.masked_fill(~self.mask[:T, :T], float("-inf"))
        y = F.softmax(s, dim=-1) @ v
        return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))


class MLP(nn.Module):
    def __init__(self, embd):
        super().__init__()
        self.c_fc = nn.Linear(embd, 4 * embd)
        self.c_proj = nn.Linear(4 * embd, embd)

    def forward(self, x):
        return self.c_proj(F.gelu(self.c_fc(x), approximate="tanh"))


class Block(nn.Module):
    def __init__(self, embd, heads, ctx):
        super().__init__()
        self.ln_1 = nn.LayerNorm(embd, eps=LAYER_NORM_EPS)
        self.attn = CausalSelfAttention(embd, heads, ctx)
        self.ln_2 = nn.LayerNorm(embd, eps=LAYER_NORM_EPS)
        self.mlp = MLP(embd)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    """GPT(vocab_size, layers, heads, embd, ctx); forward(idx [B, T] int64,
    targets=None) returns (logits [B, T, V], mean cross-entropy or None)."""

    def __init__(self, vocab_size, layers=4, heads=4, embd=128, ctx=64):
        super().__init__()
        if embd % heads:
            raise ValueError("embd %d is not divisible by heads %d" % (embd, heads))
        self.vocab_size, self.layers, self.heads, self.embd, self.ctx = \
            vocab_size, layers, heads, embd, ctx
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(vocab_size, embd),
            wpe=nn.Embedding(ctx, embd),
            h=nn.ModuleList(Block(embd, heads, ctx) for _ in range(layers)),
            ln_f=nn.LayerNorm(embd, eps=LAYER_NORM_EPS)))
        self.lm_head = nn.Linear(embd, vocab_size, bias=False)
        self.lm_head.weight = self.transformer.wte.weight  # tied
        for module in self.modules():  # nanoGPT's initialisation
            if isinstance(module, (nn.Linear, nn.Embedding)):
                nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if isinstance(module, nn.Linear) and module.bias is not None:
                nn.init.zeros_(module.bias)

    def spec(self):
        return "gpt:layers=%d,heads=%d,embd=%d,ctx=%d" % (self.layers, self.heads, self.embd, self.ctx)

    @staticmethod
    def parse_spec(spec):
        """"gpt:layers=1,heads=2,embd=16,ctx=8" -> dict; Mantissa's defaults
        (layers 4, heads 4, embd 128, ctx 64) where a key is absent."""
        fields = dict(layers=4, heads=4, embd=128, ctx=64)
        if spec != "gpt":
            m = re.fullmatch(r"gpt:(.*)", spec or "")
            if not m:
                raise ValueError("model spec %r is not a GPT (gpt:layers=..,heads=..,embd=..,ctx=..)"
                                 % spec)
            for item in m.group(1).split(","):
                key, _, value = item.partition("=")
                if key not in fields or not value.isdigit():
                    raise ValueError("model spec %r: '%s' is not one of layers, heads, embd, ctx "
                                     "with a whole number" % (spec, item))
                fields[key] = int(value)
        return fields

    def forward(self, idx, targets=None):
        T = idx.shape[1]
        if T > self.ctx:
            raise ValueError("sequence of %d tokens is longer than ctx %d" % (T, self.ctx))
        pos = torch.arange(T, device=idx.device)
        x = self.transformer.wte(idx) + self.transformer.wpe(pos)
        for block in self.transformer.h:
            x = block(x)
        logits = self.lm_head(self.transformer.ln_f(x))
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.shape[-1]), targets.view(-1))
        return logits, loss
