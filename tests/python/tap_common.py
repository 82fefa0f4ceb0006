# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 The Mantissa authors
"""Shared parts of the mantissa_torch tests: the package path, the shipped
MNIST (IDX files read with gzip + struct), a small MLP and its training loop."""

import gzip
import os
import struct
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SOURCE, "app", "pytorch"))

try:
    import torch
    HAVE_TORCH = True
except ImportError:  # the caller exits 77: ctest reports the test as skipped
    torch = None
    HAVE_TORCH = False


def require_torch():
    if not HAVE_TORCH:
        print("SKIP: PyTorch is not installed (Debian: apt-get install python3-torch)")
        sys.exit(77)


def read_idx(path):
    with gzip.open(path, "rb") as f:
        data = f.read()
    magic, = struct.unpack(">I", data[:4])
    if magic >> 8 != 0x08:
        raise ValueError("%s: not an unsigned-byte IDX file" % path)
    ndim = magic & 0xff
    dims = struct.unpack(">" + "I" * ndim, data[4:4 + 4 * ndim])
    return dims, data[4 + 4 * ndim:]


def mnist(limit=2048):
    base = os.path.join(SOURCE, "resources", "data", "mnist-10k-train-")
    (n, rows, cols), pixels = read_idx(base + "images-idx3-ubyte.gz")
    (m,), labels = read_idx(base + "labels-idx1-ubyte.gz")
    assert n == m
    n = min(n, limit)
    x = torch.frombuffer(bytearray(pixels[:n * rows * cols]), dtype=torch.uint8)
    x = x.reshape(n, rows * cols).float() / 255.0
    y = torch.frombuffer(bytearray(labels[:n]), dtype=torch.uint8).long()
    return x, y


def mlp(seed=1):
    torch.manual_seed(seed)
    return torch.nn.Sequential(
        torch.nn.Linear(784, 64), torch.nn.ReLU(),
        torch.nn.Linear(64, 64), torch.nn.ReLU(),
        torch.nn.Linear(64, 10))


def train(log, steps=50, every=10, autocast=None, batch=64, lr=0.1, model=None, tap_kwargs=None,
          loss_scale=None):
    """Trains the MLP with a Tap; returns (losses, tap). autocast: None or torch.bfloat16."""
    import mantissa_torch
    x, y = mnist()
    model = model or mlp()
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    losses = []
    tap = mantissa_torch.Tap(model, opt, log=log, every=every, loss_scale=loss_scale,
                             total_steps=steps, **(tap_kwargs or {}))
    with tap:
        for step in range(steps):
            i = (step * batch) % (x.shape[0] - batch)
            xb, yb = x[i:i + batch], y[i:i + batch]
            opt.zero_grad()
            if autocast is not None:
                with torch.autocast("cpu", dtype=autocast):
                    out = model(xb)
            else:
                out = model(xb)
            loss = torch.nn.functional.cross_entropy(out.float(), yb)
            (loss * loss_scale if loss_scale else loss).backward()
            tap.after_backward(loss)
            if loss_scale:
                for p in model.parameters():
                    p.grad.div_(loss_scale)
            opt.step()
            tap.after_step()
            losses.append(loss.item())
    return losses, tap


def read_jsonl(path):
    import json
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def build_dir():
    d = os.environ.get("MANTISSA_BUILD_DIR")
    if not d:
        raise unittest.SkipTest("MANTISSA_BUILD_DIR is not set (run through ctest)")
    return d
