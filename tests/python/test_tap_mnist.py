# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 The Mantissa authors
"""A small PyTorch MLP trained on the shipped MNIST for 50 steps, FP32 and
bf16 autocast, with the tap; Mantissa's own loader reads the logs:
`mantissa-cli report` renders them and `plot` draws their curves."""

import os
import shutil
import subprocess
import sys
import unittest

import tap_common
from tap_common import torch

tap_common.require_torch()


def cli():
    path = os.environ.get("MANTISSA_CLI")
    if not path:
        raise unittest.SkipTest("MANTISSA_CLI is not set (run through ctest)")
    return path


class Mnist(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = os.path.join(os.environ.get("MANTISSA_TEST_TMP", "."), "mnist")
        shutil.rmtree(cls.tmp, ignore_errors=True)
        os.makedirs(cls.tmp)
        cls.runs = {}
        for name, dtype in (("fp32", None), ("bf16", torch.bfloat16)):
            log = os.path.join(cls.tmp, "torch-%s.jsonl" % name)
            losses, _ = tap_common.train(log, steps=50, every=10, autocast=dtype)
            cls.runs[name] = (log, losses, tap_common.read_jsonl(log))

    def test_training_learns(self):
        for name, (_, losses, _) in self.runs.items():
            self.assertGreater(losses[0], 2.0, name)       # ~ln(10) at the start
            self.assertLess(sum(losses[-5:]) / 5, 1.2, name)  # an MLP on MNIST learns in 50 steps

    def test_log_rows(self):
        for name, (_, losses, rows) in self.runs.items():
            header, steps, summary = rows[0], rows[1:-1], rows[-1]
            self.assertTrue(header["header"])
            self.assertEqual(header["name"], "torch bf16 autocast" if name == "bf16" else "torch fp32")
            self.assertEqual(header["torch"], torch.__version__)
            self.assertEqual((header["world_size"], header["rank"]), (1, 0))
            self.assertEqual(header["layers"], ["0", "1", "2", "3", "4"])
            self.assertEqual(header["modules"][0]["params"][0]["shape"], [64, 784])
            self.assertEqual(header["modules"][4]["output_shape"], [64, 10])
            expected = ["bf16"] if name == "bf16" else []
            self.assertEqual(header["autocast_dtypes"], expected)
            self.assertEqual(header["modules"][0]["output_dtypes"],
                             ["bf16"] if name == "bf16" else ["fp32"])
            self.assertEqual([r["step"] for r in steps], list(range(50)))
            for r, loss in zip(steps, losses):
                self.assertEqual(r["loss"], loss)  # the loss the loop saw, bit for bit
                self.assertEqual(r["lr"], 0.1)
                self.assertFalse(r["skipped"])
                self.assertGreater(r["grad_norm"], 0.0)
            self.assertEqual([r["step"] for r in steps if "telemetry" in r], [0, 10, 20, 30, 40])
            self.assertTrue(summary["summary"])
            self.assertEqual(summary["steps"], 50)

    def test_frame_counts_are_the_tensors(self):
        # Totals: each Linear's activations hold batch x width values; weights
        # and grads hold the parameter count (weight + bias).
        for name, (_, _, rows) in self.runs.items():
            frame = rows[1]["telemetry"]
            by = {(t["layer"], t["class"]): t for t in frame["tensors"]}
            self.assertEqual(by[(0, "activations")]["total"], 64 * 64)
            self.assertEqual(by[(4, "activations")]["total"], 64 * 10)
            self.assertEqual(by[(0, "weights")]["total"], 784 * 64 + 64)
            self.assertEqual(by[(0, "weight_grads")]["total"], 784 * 64 + 64)
            relu = by[(1, "activations")]
            # ReLU output: about half zeros, none negative-infinite or NaN.
            self.assertGreater(relu["zeros"], 0)
            self.assertEqual(relu["nan"] + relu["pos_inf"] + relu["neg_inf"], 0)
            for t in frame["tensors"]:
                self.assertEqual(sum(t["counts"]) + t["zeros"] + t["pos_inf"] + t["neg_inf"]
                                 + t["nan"], t["total"])
            if name == "bf16":
                # bf16 activations hold no value below BF16's precision: their
                # bf16 cast loses nothing, and no FP32 subnormal is present.
                act = by[(0, "activations")]
                self.assertEqual(act["cast"]["bf16"], [act["zeros"] / act["total"], 0.0, 0.0, 0.0])

    def test_report_and_plot_read_the_logs(self):
        exe = cli()
        for name, (log, _, _) in self.runs.items():
            out = os.path.join(self.tmp, name + ".html")
            r = subprocess.run([exe, "report", log, "--out", out], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(out, encoding="utf-8") as f:
                html = f.read()
            self.assertIn("torch bf16 autocast" if name == "bf16" else "torch fp32", html)
            self.assertIn("0 (Linear)", html)       # the op table from the recorded dtypes
            for chart in ("loss", "histogram", "loss-scale"):
                svg = os.path.join(self.tmp, "%s-%s.svg" % (name, chart))
                r = subprocess.run([exe, "plot", log, "--chart", chart, "--out", svg],
                                   capture_output=True, text=True)
                self.assertEqual(r.returncode, 0, r.stderr)
                self.assertGreater(os.path.getsize(svg), 1000, chart)
            # The histogram's data: the last telemetry step's layer 0 gradients, count for count.
            data = os.path.join(self.tmp, name + "-histogram.json")
            r = subprocess.run([exe, "plot", log, "--chart", "histogram", "--out", data],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(data, encoding="utf-8") as f:
                text = f.read()
            frame = [row for row in self.runs[name][2] if row.get("step") == 40][0]["telemetry"]
            grads = [t for t in frame["tensors"] if t["layer"] == 0 and t["class"] == "weight_grads"]
            self.assertIn(str(grads[0]["total"]), text)


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=2).result
    sys.exit(0 if result.wasSuccessful() else 1)
