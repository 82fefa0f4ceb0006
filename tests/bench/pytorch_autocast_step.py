#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 The Mantissa authors
"""PyTorch's CPU training step on Mantissa's benchmark model, for comparison.

Times one SGD step (forward, cross-entropy, backward, optimizer) of the MLP
784-1024-1024-10 (ReLU), batch 128, under CPU bf16 autocast (and, on request,
in FP32), the same way `mantissa-cli bench` times its steps: the same model,
batch, optimizer (SGD, momentum 0.9, no weight decay, lr 0.01), threads (one
per CPU this process may run on, as OpenMP's default, waiting passively
between parallel regions as mantissa-cli does), 5 warm-up steps
discarded, then 30 steps each timed on its own; the median, and the spread
as the coefficient of variation (sample standard deviation / mean) and the
minimum and maximum. Mantissa's step does a little more (it fetches the
batch and computes the global gradient norm every step).

Not part of the test suite. Run it beside `mantissa-cli bench --json`,
alternating the two several times on a quiet machine:

    /usr/bin/python3 tests/bench/pytorch_autocast_step.py [--json] [--repetitions N] [--fp32]

(Debian's python3-torch; its FP32 matmuls use a generic BLAS, its bf16
autocast matmuls oneDNN, so the bf16 figure is the one to compare. The FP32
step is timed only with --fp32, after the bf16 one: the generic BLAS is
slow and leaves its own threads behind.)

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

# mantissa-cli runs its OpenMP threads with OMP_WAIT_POLICY=passive unless
# the variable is set; the same here (before torch loads libgomp), so that
# both wait alike between parallel regions.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

import torch  # noqa: E402


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
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
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
        "cv": statistics.stdev(times) / mean if len(times) > 1 and mean > 0 else 0.0,
        "min_ms": min(times),
        "max_ms": max(times),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--repetitions", type=int, default=30)
    ap.add_argument("--threads", type=int, default=0,
                    help="0: every CPU this process may run on, as Mantissa's OpenMP default")
    ap.add_argument("--fp32", action="store_true", help="also time the FP32 step (slow)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    if args.batch < 1 or args.warmup < 0 or args.repetitions < 2 or args.threads < 0:
        ap.error("need --batch >= 1, --warmup >= 0, --repetitions >= 2, --threads >= 0")
    torch.set_num_threads(args.threads if args.threads > 0 else len(os.sched_getaffinity(0)))
    widths = [784, 1024, 1024, 10]
    result = {
        "torch": torch.__version__,
        "onednn": getattr(torch.backends.mkldnn, "version", lambda: None)()
        if hasattr(torch.backends, "mkldnn") else None,
        "threads": torch.get_num_threads(),
        "omp_wait_policy": os.environ["OMP_WAIT_POLICY"],
        "model": "mlp:784-1024-1024-10",
        "batch": args.batch,
        "warmup": args.warmup,
        "repetitions": args.repetitions,
        "bf16_autocast": time_steps(True, widths, args.batch, args.warmup, args.repetitions, 1),
    }
    if args.fp32:
        result["fp32"] = time_steps(False, widths, args.batch, args.warmup, args.repetitions, 1)
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        print()
    else:
        print(f"PyTorch {result['torch']}, {result['threads']} thread(s) "
              f"(OMP_WAIT_POLICY {result['omp_wait_policy']}), "
              f"{result['model']}, batch {args.batch}")
        for key in ("bf16_autocast", "fp32"):
            if key in result:
                r = result[key]
                print(f"  {key:14s} median {r['median_ms']:8.2f} ms  CV {100 * r['cv']:5.1f} %"
                      f"  min {r['min_ms']:8.2f}  max {r['max_ms']:8.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
