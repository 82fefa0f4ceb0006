#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 The Mantissa authors
"""What the PyTorch tap (mantissa_torch) costs per training step.

Trains an MLP (784-256-256-10, batch 128, SGD) on random data on the CPU,
without the tap and with it at K = 1 and K = 10 (a telemetry frame every K
steps), in interleaved rounds so machine noise hits every variant alike.
Prints per variant the median step time and the spread (min..max of the
round medians), and the tap's overhead per step against no tap.

    /usr/bin/python3 tests/bench/tap_overhead.py [--steps 40] [--rounds 5] [--autocast bf16]
"""

import argparse
import os
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "app", "pytorch"))

import torch  # noqa: E402

import mantissa_torch  # noqa: E402


def run(every, steps, autocast, tmp):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(),
                                torch.nn.Linear(256, 256), torch.nn.ReLU(),
                                torch.nn.Linear(256, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(128, 784)
    y = torch.randint(0, 10, (128,))
    tap = None
    if every is not None:
        tap = mantissa_torch.Tap(model, opt, log=os.path.join(tmp, "bench.jsonl"), every=every)
    times = []
    for _ in range(steps + 3):  # 3 warm-up steps
        t0 = time.perf_counter()
        opt.zero_grad()
        if autocast:
            with torch.autocast("cpu", dtype=torch.bfloat16):
                out = model(x)
        else:
            out = model(x)
        loss = torch.nn.functional.cross_entropy(out.float(), y)
        loss.backward()
        if tap:
            tap.after_backward(loss)
        opt.step()
        if tap:
            tap.after_step()
        else:
            loss.item()  # the loop reads its loss, as with the tap
        times.append(time.perf_counter() - t0)
    if tap:
        tap.close()
    return statistics.median(times[3:]) * 1000.0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--steps", type=int, default=40)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--autocast", choices=["none", "bf16"], default="none")
    a = p.parse_args()
    variants = [("no tap", None), ("tap K=10", 10), ("tap K=1", 1)]
    medians = {name: [] for name, _ in variants}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(a.rounds):
            for name, every in variants:
                medians[name].append(run(every, a.steps, a.autocast == "bf16", tmp))
    print("torch %s, %d threads, %s, %d rounds x %d steps" % (
        torch.__version__, torch.get_num_threads(),
        "bf16 autocast" if a.autocast == "bf16" else "fp32", a.rounds, a.steps))
    base = statistics.median(medians["no tap"])
    for name, _ in variants:
        m = medians[name]
        med = statistics.median(m)
        line = "%-9s median %7.3f ms/step  spread %7.3f..%7.3f" % (name, med, min(m), max(m))
        if name != "no tap":
            line += "  overhead %+7.3f ms/step (%+.0f%%)" % (med - base, 100.0 * (med - base) / base)
        print(line)


if __name__ == "__main__":
    main()
