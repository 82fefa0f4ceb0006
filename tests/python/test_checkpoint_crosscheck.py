# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 The Mantissa authors
"""Checkpoints between Mantissa and PyTorch, both ways.

Mantissa -> PyTorch: mantissa-cli trains a tiny GPT and saves a checkpoint;
mantissa_torch.load_gpt loads it, and its loss on the batch of Mantissa's
next run's first step equals the loss that run logs (FP32, 1e-5 relative).
The batch is rebuilt here from the shipped text, as Mantissa's TextBatcher
draws it (SplitMix64, documented in core/src/data/rng.h and text.cpp).

PyTorch -> Mantissa: a GPT built in PyTorch, written once by this test's own
safetensors writer (struct + json) and once by mantissa_torch.save, opens in
mantissa-cli: `train --init-from` logs, at its first step, the loss PyTorch
computes for the same weights and batch, and trains on; `sample` runs."""

import json
import os
import shutil
import struct
import subprocess
import unittest

import tap_common
from tap_common import torch

tap_common.require_torch()

import mantissa_torch  # noqa: E402

SPEC = "gpt:layers=1,heads=2,embd=16,ctx=8"
CTX, BATCH, SEED = 8, 4, 7
TEXT = os.path.join(tap_common.SOURCE, "resources", "data", "tinyshakespeare.txt")
MASK64 = (1 << 64) - 1


class SplitMix64:
    def __init__(self, seed):
        self.state = seed & MASK64

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, n):
        limit = MASK64 - MASK64 % n
        while True:
            r = self.next()
            if r < limit:
                return r % n


def shakespeare():
    with open(TEXT, encoding="utf-8") as f:
        return f.read()


def first_training_batch(text, seed=SEED, ctx=CTX, batch=BATCH):
    """The first training batch of a run with this seed: vocabulary the
    sorted distinct characters, training split the first 9/10 of the
    tokens, windows of ctx + 1 tokens drawn by the training stream."""
    vocabulary = "".join(sorted(set(text)))
    token = {c: i for i, c in enumerate(vocabulary)}
    ids = [token[c] for c in text]
    train = ids[:len(ids) * 9 // 10]
    stream = SplitMix64(seed ^ ((101 * 0xD1B54A32D192ED03) & MASK64)).next()
    rng = SplitMix64(stream)
    rng.next()  # the batcher's state for the next batch
    starts = [rng.below(len(train) - ctx) for _ in range(batch)]
    x = torch.tensor([train[s:s + ctx] for s in starts])
    y = torch.tensor([train[s + 1:s + ctx + 1] for s in starts])
    return vocabulary, x, y


def independent_write(path, tensors, metadata):
    """A safetensors file written field by field: 8-byte little-endian header
    length, the JSON header padded with spaces, then the FP32 data."""
    header, blob = {}, b""
    for name, t in tensors.items():
        values = t.detach().float().reshape(-1).tolist()
        data = struct.pack("<%df" % len(values), *values)
        header[name] = {"dtype": "F32", "shape": list(t.shape),
                        "data_offsets": [len(blob), len(blob) + len(data)]}
        blob += data
    header["__metadata__"] = metadata
    text = json.dumps(header).encode("utf-8")
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + blob)


class CrossCheck(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cli = os.environ.get("MANTISSA_CLI")
        if not cls.cli:
            raise unittest.SkipTest("MANTISSA_CLI is not set (run through ctest)")
        cls.tmp = os.path.join(os.environ.get("MANTISSA_TEST_TMP", "."), "checkpoint_crosscheck")
        shutil.rmtree(cls.tmp, ignore_errors=True)
        os.makedirs(cls.tmp)
        cls.text = shakespeare()

    def run_cli(self, *args):
        r = subprocess.run([self.cli, *args], capture_output=True, text=True, timeout=240)
        self.assertEqual(r.returncode, 0, "mantissa-cli %s\n%s%s" % (" ".join(args), r.stdout, r.stderr))
        return r.stdout

    def first_logged_loss(self, checkpoint, name, steps=1):
        """Mantissa's loss at the first step of a run that starts from `checkpoint`."""
        log = os.path.join(self.tmp, name + ".jsonl")
        self.run_cli("train", "--data", "shakespeare", "--model", SPEC, "--batch", str(BATCH),
                     "--steps", str(steps), "--eval-batches", "1", "--seed", str(SEED),
                     "--init-from", checkpoint, "--log", log)
        rows = [r for r in tap_common.read_jsonl(log) if not r.get("header") and "loss" in r]
        self.assertEqual(len(rows), steps)
        return [r["loss"] for r in rows]

    def assert_close(self, torch_loss, mantissa_loss, what):
        rel = abs(torch_loss - mantissa_loss) / abs(mantissa_loss)
        print("%s: PyTorch %.9f, Mantissa %.9f, relative difference %.3g"
              % (what, torch_loss, mantissa_loss, rel))
        self.assertLess(rel, 1e-5, what)

    def test_mantissa_checkpoint_loads_into_pytorch_with_the_same_loss(self):
        checkpoint = os.path.join(self.tmp, "trained.safetensors")
        self.run_cli("train", "--data", "shakespeare", "--model", SPEC, "--batch", str(BATCH),
                     "--steps", "5", "--eval-batches", "1", "--seed", "3",
                     "--checkpoint", checkpoint)
        model, vocabulary = mantissa_torch.load_gpt(checkpoint)
        self.assertEqual(model.spec(), SPEC)
        expected_vocabulary, x, y = first_training_batch(self.text)
        self.assertEqual(vocabulary, expected_vocabulary)
        # The weights are the file's FP32 values, bit for bit.
        raw = mantissa_torch.load_state_dict(checkpoint)
        self.assertFalse(any(k.startswith("mantissa.") for k in raw))
        for name, t in raw.items():
            self.assertTrue(torch.equal(model.state_dict()[name], t), name)
        with torch.no_grad():
            _, loss = model(x, y)
        mantissa_loss, = self.first_logged_loss(checkpoint, "from_mantissa")
        self.assert_close(loss.item(), mantissa_loss, "Mantissa checkpoint in PyTorch")

    def pytorch_gpt(self):
        vocabulary = "".join(sorted(set(self.text)))
        torch.manual_seed(11)
        model = mantissa_torch.GPT(len(vocabulary), **mantissa_torch.GPT.parse_spec(SPEC))
        with torch.no_grad():  # away from the initialisation Mantissa would draw
            for p in model.parameters():
                p.add_(torch.randn_like(p) * 0.05)
        return model, vocabulary

    def torch_loss(self, model):
        _, x, y = first_training_batch(self.text)
        with torch.no_grad():
            return model(x, y)[1].item()

    def test_independently_written_pytorch_weights_load_into_mantissa(self):
        model, vocabulary = self.pytorch_gpt()
        path = os.path.join(self.tmp, "independent.safetensors")
        state = {k: v for k, v in model.state_dict().items() if k != "lm_head.weight"}
        independent_write(path, state, {"format": "mantissa", "format_version": "1", "step": "0",
                                        "config": json.dumps({"model": SPEC, "steps": 1}),
                                        "vocabulary": vocabulary})
        losses = self.first_logged_loss(path, "independent", steps=3)
        self.assert_close(self.torch_loss(model), losses[0], "independent writer into Mantissa")
        out = self.run_cli("sample", path, "--prompt", "ROMEO:", "-n", "20", "--temperature", "0")
        self.assertIn("ROMEO:", out)

    def test_mantissa_torch_save_opens_in_mantissa(self):
        model, vocabulary = self.pytorch_gpt()
        path = os.path.join(self.tmp, "saved.safetensors")
        mantissa_torch.save(model, path, vocabulary=vocabulary)
        self.assertEqual(os.listdir(self.tmp).count("saved.safetensors"), 1)
        self.assertFalse([f for f in os.listdir(self.tmp) if f.startswith(".tmp-")])
        losses = self.first_logged_loss(path, "saved", steps=20)
        self.assert_close(self.torch_loss(model), losses[0], "mantissa_torch.save into Mantissa")
        self.assertLess(losses[-1], losses[0], "training from the saved weights lowers the loss")
        out = self.run_cli("sample", path, "--prompt", "ROMEO:", "-n", "20", "--seed", "5")
        self.assertIn("ROMEO:", out)
        # And back: the file loads as the module it came from.
        again, again_vocabulary = mantissa_torch.load_gpt(path)
        self.assertEqual(again_vocabulary, vocabulary)
        for name, t in model.state_dict().items():
            self.assertTrue(torch.equal(again.state_dict()[name], t), name)

    def test_mantissa_torch_save_of_an_mlp_opens_in_mantissa(self):
        class Mlp(torch.nn.Module):
            def __init__(self, hidden):
                super().__init__()
                self.layers = torch.nn.ModuleList([torch.nn.Linear(784, hidden),
                                                   torch.nn.Linear(hidden, 10)])

        good = os.path.join(self.tmp, "mlp.safetensors")
        mantissa_torch.save(Mlp(32), good, config={"model": "mlp:784-32-10", "steps": 1})
        self.run_cli("train", "--model", "mlp:784-32-10", "--steps", "2", "--init-from", good)
        # Mantissa reads the weights, not just the file: a hidden width that
        # differs from the model is refused, naming the tensor.
        wrong = os.path.join(self.tmp, "mlp_wrong.safetensors")
        mantissa_torch.save(Mlp(16), wrong, config={"model": "mlp:784-16-10", "steps": 1})
        r = subprocess.run([self.cli, "train", "--model", "mlp:784-32-10", "--steps", "2",
                            "--init-from", wrong], capture_output=True, text=True, timeout=240)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("layers.0.weight", r.stderr)

    def test_mantissa_torch_save_of_a_lenet_opens_in_mantissa(self):
        # Mantissa's cnn:c4k3-p2-f8: a 3x3 convolution to 4 channels (padded),
        # 2x2 pooling, 784 -> 8 -> 10. Its parameters are numbered by the
        # layers that hold them, as a ModuleList without the pooling holds them.
        class LeNet(torch.nn.Module):
            def __init__(self, channels):
                super().__init__()
                self.layers = torch.nn.ModuleList([
                    torch.nn.Conv2d(1, channels, 3, padding=1),
                    torch.nn.Linear(channels * 14 * 14, 8),
                    torch.nn.Linear(8, 10)])

        good = os.path.join(self.tmp, "lenet.safetensors")
        mantissa_torch.save(LeNet(4), good, config={"model": "cnn:c4k3-p2-f8", "steps": 1})
        self.run_cli("train", "--model", "cnn:c4k3-p2-f8", "--steps", "2", "--init-from", good)
        wrong = os.path.join(self.tmp, "lenet_wrong.safetensors")
        mantissa_torch.save(LeNet(6), wrong, config={"model": "cnn:c6k3-p2-f8", "steps": 1})
        r = subprocess.run([self.cli, "train", "--model", "cnn:c4k3-p2-f8", "--steps", "2",
                            "--init-from", wrong], capture_output=True, text=True, timeout=240)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("layers.0.weight", r.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
