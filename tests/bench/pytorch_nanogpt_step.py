#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 The Mantissa authors
"""PyTorch's CPU training step on nanoGPT's model, for comparison.

A replica of nanoGPT's model.py as its shakespeare_char configuration runs
it: pre-LayerNorm blocks with biases, causal self-attention written out
(PyTorch 1.13 has no scaled_dot_product_attention, so nanoGPT takes its
manual path: masked softmax of q k^T / sqrt(d)), a GELU MLP of width 4C, the
output head tied to the token embedding, dropout 0, AdamW (lr 1e-3, betas
0.9 / 0.99, weight decay 0.1 on the matrices), gradient clipping at 1.0, as
Mantissa's shakespeare-char preset trains it. Vocabulary 65 (Tiny
Shakespeare's characters); the batches are random tokens of that vocabulary.

One step: forward under CPU bf16 autocast (or in FP32 with --fp32),
cross-entropy, backward, clipping, AdamW. After --warmup steps, --steps
steps are timed each on its own; printed: the median, the lowest and
highest, and the process's peak resident set size (getrusage ru_maxrss)
at the end, which covers the model, AdamW's state and the largest step.

    /usr/bin/python3 tests/bench/pytorch_nanogpt_step.py [--layers 4 --heads 4
        --embd 128 --ctx 64 --batch 12] [--warmup N] [--steps N] [--threads N]
        [--fp32] [--json]

Threads: one per CPU this process may run on (as Mantissa's OpenMP
default), waiting passively between parallel regions as mantissa-cli does.
"""
import argparse
import json
import math
import os
import resource
import statistics
import sys
import time

os.environ.setdefault("OMP_WAIT_POLICY", "passive")

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402


class CausalSelfAttention(nn.Module):
    def __init__(self, embd, heads, ctx):
        super().__init__()
        self.c_attn = nn.Linear(embd, 3 * embd)
        self.c_proj = nn.Linear(embd, embd)
        self.heads = heads
        self.register_buffer("bias", torch.tril(torch.ones(ctx, ctx)).view(1, 1, ctx, ctx))

    def forward(self, x):
        b, t, c = x.size()
        q, k, v = self.c_attn(x).split(c, dim=2)
        k = k.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        q = q.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, c // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :t, :t] == 0, float("-inf"))
        att = F.softmax(att, dim=-1)
        y = att @ v
        y = y.transpose(1, 2).contiguous().view(b, t, c)
        return self.c_proj(y)


class Block(nn.Module):
    def __init__(self, embd, heads, ctx):
        super().__init__()
        self.ln_1 = nn.LayerNorm(embd)
        self.attn = CausalSelfAttention(embd, heads, ctx)
        self.ln_2 = nn.LayerNorm(embd)
        self.c_fc = nn.Linear(embd, 4 * embd)
        self.c_proj = nn.Linear(4 * embd, embd)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.c_proj(F.gelu(self.c_fc(self.ln_2(x))))


class GPT(nn.Module):
    def __init__(self, layers, heads, embd, ctx, vocab):
        super().__init__()
        self.wte = nn.Embedding(vocab, embd)
        self.wpe = nn.Embedding(ctx, embd)
        self.h = nn.ModuleList([Block(embd, heads, ctx) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(embd)
        self.lm_head = nn.Linear(embd, vocab, bias=False)
        self.lm_head.weight = self.wte.weight  # tied, as nanoGPT
        for name, p in self.named_parameters():
            if p.dim() == 2:
                nn.init.normal_(p, mean=0.0, std=0.02)
            elif name.endswith("bias"):
                nn.init.zeros_(p)
        for name, p in self.named_parameters():
            if name.endswith("c_proj.weight"):
                nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * layers))

    def forward(self, idx, targets):
        t = idx.size(1)
        pos = torch.arange(0, t, dtype=torch.long)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.h:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        return F.cross_entropy(logits.view(-1, logits.size(-1)).float(), targets.view(-1))


def time_steps(args):
    torch.manual_seed(1)
    model = GPT(args.layers, args.heads, args.embd, args.ctx, args.vocab)
    decay = [p for p in model.parameters() if p.dim() >= 2]
    no_decay = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                             {"params": no_decay, "weight_decay": 0.0}],
                            lr=1e-3, betas=(0.9, 0.99))
    batches = [(torch.randint(0, args.vocab, (args.batch, args.ctx)),
                torch.randint(0, args.vocab, (args.batch, args.ctx))) for _ in range(4)]
    times = []
    for step in range(args.warmup + args.steps):
        x, y = batches[step % len(batches)]
        t0 = time.perf_counter()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=not args.fp32):
            loss = model(x, y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        t1 = time.perf_counter()
        if step >= args.warmup:
            times.append((t1 - t0) * 1e3)
        if not math.isfinite(loss.item()):
            raise SystemExit(f"loss is {loss.item()} at step {step}")
    return {
        "median_ms": statistics.median(times),
        "min_ms": min(times),
        "max_ms": max(times),
        "steps": len(times),
        "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
        "params": sum(p.numel() for p in model.parameters()),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--layers", type=int, default=4)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--embd", type=int, default=128)
    ap.add_argument("--ctx", type=int, default=64)
    ap.add_argument("--batch", type=int, default=12)
    ap.add_argument("--vocab", type=int, default=65)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--threads", type=int, default=0,
                    help="0: every CPU this process may run on, as Mantissa's OpenMP default")
    ap.add_argument("--fp32", action="store_true", help="FP32 instead of bf16 autocast")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    if min(args.layers, args.heads, args.embd, args.ctx, args.batch, args.vocab, args.steps) < 1 \
            or args.warmup < 0 or args.threads < 0 or args.embd % args.heads:
        ap.error("need positive sizes, embd divisible by heads, --warmup >= 0, --threads >= 0")
    torch.set_num_threads(args.threads if args.threads > 0 else len(os.sched_getaffinity(0)))
    result = {"torch": torch.__version__, "threads": torch.get_num_threads(),
              "omp_wait_policy": os.environ["OMP_WAIT_POLICY"],
              "autocast": "fp32" if args.fp32 else "bf16",
              "model": f"gpt:layers={args.layers},heads={args.heads},embd={args.embd},ctx={args.ctx}",
              "batch": args.batch}
    result.update(time_steps(args))
    if args.json:
        json.dump(result, sys.stdout)
        print()
    else:
        print(f"PyTorch {result['torch']}, {result['threads']} thread(s), {result['model']}, "
              f"batch {args.batch}, {result['autocast']}: median {result['median_ms']:.1f} ms "
              f"(min {result['min_ms']:.1f}, max {result['max_ms']:.1f}), peak RSS "
              f"{result['peak_rss_bytes'] / 2**20:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
