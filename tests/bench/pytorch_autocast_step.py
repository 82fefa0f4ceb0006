#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 The Mantissa authors
"""PyTorch's CPU training step on Mantissa's benchmark model, for comparison.

Times one SGD step (forward, cross-entropy, backward, optimizer) of the MLP
784-1024-1024-10 (ReLU), batch 128, in FP32 and under CPU bf16 autocast,
the same way `mantissa-cli bench` times its steps: warm-up steps discarded,
then each step timed on its own; median and coefficient of variation.

Not part of the test suite. Run it beside `mantissa-cli bench --json`:

    /usr/bin/python3 tests/bench/pytorch_autocast_step.py [--json] [--repetitions N]

(Debian's python3-torch; its FP32 matmuls use a generic BLAS, its bf16
autocast matmuls oneDNN, so the bf16 figure is the one to compare.)

With DNNL_VERBOSE=1 in the environment oneDNN prints the kernels PyTorch
runs (its implementation names, e.g. brg:avx512_core_bf16), to set beside
Mantissa's under the same variable.
"""
import argparse
import json
import os
import statistics
import sys
import time

import torch


def make_model(widths):
    layers = []
    for i in range(len(widths) - 1):
        layers.append(torch.nn.Linear(widths[i], widths[i + 1]))
        if i + 2 < len(widths):
            layers.append(torch.nn.ReLU())
    return torch.nn.Sequential(*layers)


def time_steps(autocast, widths, batch, warmup, repetitions, seed):
    torch.manual_seed(seed)
    model = make_model(widths)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()
    # MNIST-shaped batches: 784 pixel values in [0, 1), labels 0-9.
    batches = [(torch.rand(batch, widths[0]), torch.randint(0, widths[-1], (batch,)))
               for _ in range(8)]
    times = []
    for step in range(warmup + repetitions):
        x, y = batches[step % len(batches)]
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=autocast):
            loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        t1 = time.perf_counter()
        if step >= warmup:
            times.append((t1 - t0) * 1e3)
    mean = statistics.fmean(times)
    return {
        "median_ms": statistics.median(times),
        "mean_ms": mean,
        "cv": statistics.pstdev(times) / mean if mean > 0 else 0.0,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--repetitions", type=int, default=30)
    ap.add_argument("--threads", type=int, default=0,
                    help="0: every CPU, as Mantissa's OpenMP default")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    torch.set_num_threads(args.threads if args.threads > 0 else os.cpu_count())
    widths = [784, 1024, 1024, 10]
    result = {
        "torch": torch.__version__,
        "onednn": getattr(torch.backends.mkldnn, "version", lambda: None)()
        if hasattr(torch.backends, "mkldnn") else None,
        "threads": torch.get_num_threads(),
        "model": "mlp:784-1024-1024-10",
        "batch": args.batch,
        "warmup": args.warmup,
        "repetitions": args.repetitions,
        "fp32": time_steps(False, widths, args.batch, args.warmup, args.repetitions, 1),
        "bf16_autocast": time_steps(True, widths, args.batch, args.warmup, args.repetitions, 1),
    }
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        print()
    else:
        print(f"PyTorch {result['torch']}, {result['threads']} thread(s), "
              f"{result['model']}, batch {args.batch}")
        for key in ("fp32", "bf16_autocast"):
            r = result[key]
            print(f"  {key:14s} median {r['median_ms']:8.2f} ms  CV {100 * r['cv']:5.1f} %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
