# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 The Mantissa authors
"""cnn_bar_pytorch.py [--constant] [--raw] [--seeds N]: the CNN bar's setup in
PyTorch (FP32, torch.nn's default initialisation), for comparison with
test_cnn_bar: LeNet (conv5x5 32, ReLU, pool, conv5x5 64, ReLU, pool, fc 128,
ReLU, fc 10) on the shipped Fashion-MNIST, SGD lr 0.05 momentum 0.9, batch 64,
2 epochs, reshuffled every epoch, the last partial batch dropped; inputs
standardized with the training set's pixel mean and std, the learning rate
decayed to 0 by a cosine over the run. --constant keeps lr 0.05, --raw feeds
the pixels in [0, 1]. Prints the test accuracy of seeds 1..N and their mean."""

import argparse
import gzip
import math
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "resources", "data")


def idx(name):
    with gzip.open(os.path.join(DATA, name)) as f:
        b = f.read()
    dims = [int.from_bytes(b[4 + 4 * i:8 + 4 * i], "big") for i in range(b[3])]
    return np.frombuffer(b, np.uint8, offset=4 + 4 * b[3]).reshape(dims)


def run(seed, xtr, ytr, xte, yte, cosine):
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    net = nn.Sequential(nn.Conv2d(1, 32, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
                        nn.Conv2d(32, 64, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                        nn.Linear(64 * 49, 128), nn.ReLU(), nn.Linear(128, 10))
    opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    per_epoch = len(xtr) // 64
    total, step = 2 * per_epoch, 0
    for _ in range(2):
        order = rng.permutation(len(xtr))
        for i in range(per_epoch):
            if cosine:
                for g in opt.param_groups:
                    g["lr"] = 0.05 * 0.5 * (1 + math.cos(math.pi * step / total))
            step += 1
            batch = order[i * 64:(i + 1) * 64]
            loss = F.cross_entropy(net(xtr[batch]), ytr[batch])
            opt.zero_grad()
            loss.backward()
            opt.step()
    with torch.no_grad():
        return (net(xte).argmax(1) == yte).float().mean().item()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--constant", action="store_true")
    ap.add_argument("--raw", action="store_true")
    ap.add_argument("--seeds", type=int, default=5)
    a = ap.parse_args()
    xtr = idx("fashion-12k-train-images-idx3-ubyte.gz").astype(np.float32) / 255
    xte = idx("fashion-12k-test-images-idx3-ubyte.gz").astype(np.float32) / 255
    if not a.raw:
        mean, std = xtr.mean(dtype=np.float64), xtr.std(dtype=np.float64)
        xtr, xte = (xtr - mean) / std, (xte - mean) / std
    ytr = torch.tensor(idx("fashion-12k-train-labels-idx1-ubyte.gz").astype(np.int64))
    yte = torch.tensor(idx("fashion-12k-test-labels-idx1-ubyte.gz").astype(np.int64))
    xtr = torch.tensor(xtr, dtype=torch.float32).unsqueeze(1)
    xte = torch.tensor(xte, dtype=torch.float32).unsqueeze(1)
    accs = [run(s, xtr, ytr, xte, yte, not a.constant) for s in range(1, a.seeds + 1)]
    print(" ".join("%.4f" % x for x in accs), "mean %.4f" % (sum(accs) / len(accs)))


if __name__ == "__main__":
    main()
