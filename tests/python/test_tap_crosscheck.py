# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 The Mantissa authors
"""The tap's histograms and cast fractions equal the C++ core's, count for count,
for adversarial values: FP32 subnormals, every cast threshold of every format
and its neighbours (the rounding boundaries), +-0, +-inf, NaN."""

import json
import os
import random
import struct
import subprocess
import sys
import tempfile
import unittest

import tap_common
from tap_common import torch

tap_common.require_torch()
import mantissa_torch  # noqa: E402
from mantissa_torch import _stats  # noqa: E402


def adversarial_bits():
    bits = [0x00000000, 0x80000000,              # +0, -0
            0x7f800000, 0xff800000,              # +inf, -inf
            0x7fc00000, 0xffc00000, 0x7f800001,  # NaNs (quiet, negative, signalling)
            0x00000001, 0x00000002, 0x00000003, 0x00400000, 0x007fffff,  # FP32 subnormals
            0x00800000, 0x00800001, 0x7f7fffff, 0x3f800000]
    for name in _stats.CAST_TARGETS:
        for t in _stats.cast_thresholds(name):
            for d in (-2, -1, 0, 1, 2):
                bits += [t + d, (t + d) | 0x80000000]
    # Each format's spec values: smallest subnormal, min normal, max finite, and
    # the midpoints that are ties (ties to even decide them).
    for v in (2.0 ** -24, 2.0 ** -25, 3 * 2.0 ** -26, 2.0 ** -14, 65504.0, 65520.0, 65519.99,
              2.0 ** -9, 2.0 ** -10, 2.0 ** -6, 448.0, 464.0, 480.0, 2.0 ** -16, 2.0 ** -17,
              57344.0, 61440.0, 3.3895313892515355e38):
        b = struct.unpack("<I", struct.pack("<f", v))[0]
        bits += [b - 1, b, b + 1]
    rng = random.Random(7)
    for _ in range(400):  # every binade, both signs
        bits.append(rng.randrange(0, 0x7f800000) | (0x80000000 if rng.random() < 0.5 else 0))
    return [b & 0xffffffff for b in bits]


class CrossCheck(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.core_counts = os.environ.get("TAP_CORE_COUNTS")
        if not cls.core_counts:
            raise unittest.SkipTest("TAP_CORE_COUNTS is not set (run through ctest)")
        cls._dir = tempfile.TemporaryDirectory(prefix="tap-crosscheck-")
        cls.tmp = cls._dir.name

    @classmethod
    def tearDownClass(cls):
        cls._dir.cleanup()

    def core(self, bits, scale):
        path = os.path.join(self.tmp, "values.txt")
        with open(path, "w") as f:
            f.write("".join("0x%08x\n" % b for b in bits))
        out = subprocess.run([self.core_counts, path, repr(scale)], check=True,
                             capture_output=True, text=True).stdout
        return json.loads(out)

    def values(self, bits):
        """The FP32 values with exactly these bit patterns (a signalling NaN stays one)."""
        signed = [struct.unpack("<i", struct.pack("<I", b))[0] for b in bits]
        return torch.tensor(signed, dtype=torch.int32).view(torch.float32)

    def test_cast_counts_equal_core_counts(self):
        bits = adversarial_bits()
        x = self.values(bits)
        # Sanity: the test values really are the bit patterns written for the core.
        self.assertEqual(x.view(torch.int32).tolist(),
                         [struct.unpack("<i", struct.pack("<I", b))[0] for b in bits])
        for scale in (1.0, 65536.0, 1000.0, 0.125):
            core = self.core(bits, scale)
            for view, s in (("1", None), ("unscaled", None if scale == 1.0 else 1.0 / scale)):
                if view == "unscaled" and scale != 1.0:
                    s = float(torch.tensor(1.0) / torch.tensor(scale))
                stats = _stats.tensor_stats(x, s).tolist()
                ours = _stats.cast_counts(stats)
                self.assertEqual(ours, core["cast_counts"][view], "scale %r view %s" % (scale, view))
            if scale == 1.0:  # the values reach every outcome of every format
                for name, c in core["cast_counts"]["1"].items():
                    self.assertGreater(c["to_zero"], c["zeros"], name)
                    self.assertGreater(c["overflow"], 2, name)
                    if name != "bf16":  # BF16 storage flushes FP32 subnormals (DAZ)
                        self.assertGreater(c["to_subnormal"], 0, name)

    def test_tap_frames_equal_core_frames(self):
        """The Tap's weight-gradient entries (scaled and unscaled views) equal
        the entries the core's collector records for the same gradient."""
        bits = adversarial_bits()
        for scale in (1.0, 65536.0, 1000.0):
            model = torch.nn.Linear(len(bits), 1, bias=False)
            opt = torch.optim.SGD(model.parameters(), lr=0.0)
            log = os.path.join(self.tmp, "cc_%g.jsonl" % scale)
            tap = mantissa_torch.Tap(model, opt, log=log, every=1,
                                     loss_scale=None if scale == 1.0 else scale)
            model.weight.grad = self.values(bits).reshape(1, -1)
            tap.after_backward(torch.tensor(1.0))
            tap.after_step(skipped=True)
            tap.close()
            rows = tap_common.read_jsonl(log)
            frame = rows[1]["telemetry"]
            ours = [t for t in frame["tensors"] if t["class"] == "weight_grads"]
            core = self.core(bits, scale)["frame"]["tensors"]
            self.assertEqual(len(ours), 2 if scale != 1.0 else 1)
            self.assertEqual(ours, core, "loss scale %r" % scale)

    def test_narrow_inputs_upcast_exactly(self):
        """bf16 and fp16 tensors (autocast outputs) count as their exact FP32 values."""
        for dtype in (torch.bfloat16, torch.float16):
            x = self.values(adversarial_bits()).to(dtype)
            wide = x.float()
            bits = [b & 0xffffffff for b in wide.view(torch.int32).tolist()]
            core = self.core(bits, 1.0)
            stats = _stats.tensor_stats(x).tolist()
            self.assertEqual(_stats.cast_counts(stats), core["cast_counts"]["1"], str(dtype))
            entry = _stats.tensor_json(stats, 0, "weight_grads", False, 1.0)
            self.assertEqual(entry, core["frame"]["tensors"][0], str(dtype))

    def test_histogram_against_plain_rule(self):
        """Independent of the core: binade of each value from its bit fields."""
        bits = adversarial_bits()
        stats = _stats.tensor_stats(self.values(bits)).tolist()
        bins = [0] * _stats.BIN_COUNT
        zeros = nan = pinf = ninf = 0
        for b in bits:
            a = b & 0x7fffffff
            if a == 0:
                zeros += 1
            elif a > 0x7f800000:
                nan += 1
            elif a == 0x7f800000:
                pinf, ninf = (pinf + 1, ninf) if b == a else (pinf, ninf + 1)
            else:
                e = (a >> 23) - 127 if a >> 23 else -149 + a.bit_length() - 1
                bins[e + 149] += 1
        self.assertEqual(stats[:_stats.BIN_COUNT], bins)
        self.assertEqual(stats[_stats.ZEROS:_stats.TOTAL + 1], [zeros, pinf, ninf, nan, len(bits)])


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=2).result
    sys.exit(0 if result.wasSuccessful() else 1)
