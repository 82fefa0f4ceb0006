# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 The Mantissa authors
"""tap_writer.py LOG STEPS PAUSE_S: a PyTorch run that another program follows.
Trains the MNIST MLP with the tap for STEPS steps (bf16 autocast, telemetry
every 5 steps), pausing PAUSE_S seconds after each step as a slower model
would. Exits 77 when torch is missing."""

import sys
import time

import tap_common

tap_common.require_torch()
import mantissa_torch  # noqa: E402
from tap_common import torch  # noqa: E402


def main():
    log, steps, pause = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
    x, y = tap_common.mnist(limit=1024)
    model = tap_common.mlp()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    with mantissa_torch.Tap(model, opt, log=log, every=5, total_steps=steps) as tap:
        for step in range(steps):
            i = (step * 32) % (x.shape[0] - 32)
            opt.zero_grad()
            with torch.autocast("cpu", dtype=torch.bfloat16):
                out = model(x[i:i + 32])
            loss = torch.nn.functional.cross_entropy(out.float(), y[i:i + 32])
            loss.backward()
            tap.after_backward(loss)
            opt.step()
            tap.after_step()
            time.sleep(pause)


if __name__ == "__main__":
    main()
