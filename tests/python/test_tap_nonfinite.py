# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 The Mantissa authors
"""A run that diverges: a NaN injected into one module's forward output names
that module, forward pass, as the first non-finite op; overflowing gradients
under a loop-applied loss scale name the backward pass and a skipped step;
Mantissa's report reads the run."""

import math
import os
import shutil
import subprocess
import sys
import unittest

import tap_common
from tap_common import torch

tap_common.require_torch()


class NaNAfter(torch.nn.Module):
    """Passes its input through, except at step `at`, where one element becomes NaN."""

    def __init__(self, at):
        super().__init__()
        self.at = at
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        if self.calls - 1 == self.at:
            x = x.clone()
            x.view(-1)[3] = float("nan")
        return x


class NonFinite(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = os.path.join(os.environ.get("MANTISSA_TEST_TMP", "."), "nonfinite")
        shutil.rmtree(cls.tmp, ignore_errors=True)
        os.makedirs(cls.tmp)

    def model(self, at):
        torch.manual_seed(3)
        return torch.nn.Sequential(
            torch.nn.Linear(784, 32), torch.nn.ReLU(),
            torch.nn.Linear(32, 32), NaNAfter(at), torch.nn.ReLU(),
            torch.nn.Linear(32, 10))

    def check_forward_nan(self, every, at):
        log = os.path.join(self.tmp, "nan_every%d.jsonl" % every)
        tap_common.train(log, steps=at + 3, every=every, model=self.model(at), lr=0.01)
        rows = tap_common.read_jsonl(log)
        steps = [r for r in rows if "step" in r and "header" not in r and "summary" not in r
                 and "eval" not in r]
        flagged = [r for r in steps if "non_finite" in r]
        self.assertEqual(flagged[0]["step"], at)
        nf = flagged[0]["non_finite"]
        self.assertEqual((nf["module"], nf["pass"], nf["layer"]), ("3", "forward", 3))
        self.assertEqual(nf["type"], "NaNAfter")
        self.assertIn("module '3' (NaNAfter)", flagged[0]["divergence"]["message"])
        for r in steps[:at]:
            self.assertNotIn("non_finite", r)
        summary = rows[-1]
        self.assertTrue(summary["diverged"])
        self.assertEqual((summary["divergence"]["layer"], summary["divergence"]["step"]), (3, at))
        return log

    def test_nan_in_forward_on_a_telemetry_step(self):
        log = self.check_forward_nan(every=1, at=4)
        frame = [r for r in tap_common.read_jsonl(log) if r.get("step") == 4][0]["telemetry"]
        act = {t["layer"]: t for t in frame["tensors"] if t["class"] == "activations"}
        self.assertEqual(act[2]["nan"], 0)   # the Linear before it: clean
        self.assertEqual(act[3]["nan"], 1)   # the injected value
        self.assertGreater(act[5]["nan"], 0)  # spreads downstream through the Linear

    def test_nan_in_forward_between_telemetry_steps(self):
        self.check_forward_nan(every=10, at=6)

    def test_report_reads_a_diverged_run(self):
        exe = os.environ.get("MANTISSA_CLI")
        if not exe:
            self.skipTest("MANTISSA_CLI is not set (run through ctest)")
        log = self.check_forward_nan(every=2, at=5)
        out = os.path.join(self.tmp, "nan.html")
        r = subprocess.run([exe, "report", log, "--out", out], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_gradient_overflow_under_loop_loss_scale(self):
        """Loss scale 2^120 (applied by the loop, as on a torch without a CPU
        GradScaler): the scaled gradients overflow FP32 in backward; the tap
        logs found_inf, a skipped step, and the scaled/unscaled views."""
        log = os.path.join(self.tmp, "overflow.jsonl")
        import mantissa_torch
        torch.manual_seed(5)
        model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        x = torch.randn(16, 8) * 1e3
        y = torch.randint(0, 2, (16,))
        with mantissa_torch.Tap(model, opt, log=log, every=1, loss_scale=1024.0) as tap:
            for scale in (1024.0, 2.0 ** 120):
                opt.zero_grad()
                loss = torch.nn.functional.cross_entropy(model(x), y)
                (loss * scale).backward()
                tap.after_backward(loss, loss_scale=scale)
                finite = all(torch.isfinite(p.grad).all() for p in model.parameters())
                if finite:
                    for p in model.parameters():
                        p.grad.div_(scale)
                    opt.step()
                tap.after_step()
        rows = tap_common.read_jsonl(log)
        ok, bad = rows[1], rows[2]
        self.assertFalse(ok["found_inf"] or ok["skipped"])
        self.assertEqual(ok["loss_scale"], 1024.0)
        self.assertTrue(bad["found_inf"] and bad["skipped"])
        self.assertEqual(bad["non_finite"]["pass"], "backward")
        self.assertEqual(bad["non_finite"]["module"], "2")  # the last Linear: backward starts there
        grads = [t for t in bad["telemetry"]["tensors"] if t["class"] == "weight_grads"]
        scaled = [t for t in grads if t["scaled"]]
        self.assertTrue(scaled and all(t["loss_scale"] == 2.0 ** 120 for t in scaled))
        self.assertGreater(sum(t["pos_inf"] + t["neg_inf"] + t["nan"] for t in scaled), 0)

    def test_grad_scaler_backoff_is_a_skipped_step(self):
        """The GradScaler path, with a scaler that follows GradScaler's rules
        on the CPU (torch 1.13 has no CPU GradScaler): scale, skip the step
        and halve the scale on inf/NaN gradients, double it after 2 good
        steps. The tap reads only its public getters."""

        class CpuScaler:
            def __init__(self):
                self.scale_, self.good = 2.0 ** 16, 0

            def is_enabled(self):
                return True

            def get_scale(self):
                return self.scale_

            def get_growth_factor(self):
                return 2.0

            def get_backoff_factor(self):
                return 0.5

            def get_growth_interval(self):
                return 2

            def scale(self, loss):
                return loss * self.scale_

            def step(self, opt, params):
                self.found = not all(torch.isfinite(p.grad).all() for p in params)
                if not self.found:
                    for p in params:
                        p.grad.div_(self.scale_)
                    opt.step()

            def update(self):
                if self.found:
                    self.scale_, self.good = self.scale_ * 0.5, 0
                else:
                    self.good += 1
                    if self.good == 2:
                        self.scale_, self.good = self.scale_ * 2.0, 0

        import mantissa_torch
        log = os.path.join(self.tmp, "scaler.jsonl")
        torch.manual_seed(2)
        model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
        opt = torch.optim.SGD(model.parameters(), lr=0.01)
        scaler = CpuScaler()
        x, y = torch.randn(8, 4), torch.randint(0, 2, (8,))
        with mantissa_torch.Tap(model, opt, log=log, every=1, scaler=scaler) as tap:
            for step in range(4):
                opt.zero_grad()
                loss = torch.nn.functional.cross_entropy(model(x), y)
                scaler.scale(loss).backward()
                if step == 2:  # an overflow in the second Linear's weight gradient
                    model[2].weight.grad[0, 0] = float("inf")
                tap.after_backward(loss)
                scaler.step(opt, list(model.parameters()))
                scaler.update()
                tap.after_step()
        rows = tap_common.read_jsonl(log)
        self.assertIn("GradScaler", rows[0]["scaler"])
        steps = rows[1:5]
        self.assertEqual([r["loss_scale"] for r in steps], [65536.0, 131072.0, 65536.0, 65536.0])
        self.assertEqual([r["skipped"] for r in steps], [False, False, True, False])
        self.assertEqual([r["found_inf"] for r in steps], [False, False, True, False])
        self.assertEqual([e["event"] for e in steps[1]["events"]], ["growth"])
        self.assertEqual([e["event"] for e in steps[2]["events"]], ["overflow", "backoff", "skipped"])
        self.assertEqual(steps[2]["events"][1]["scale_before"], 131072.0)
        self.assertEqual(steps[2]["non_finite"]["module"], "2")
        scaled = [t for t in steps[0]["telemetry"]["tensors"]
                  if t["class"] == "weight_grads" and t["scaled"]]
        self.assertEqual({t["loss_scale"] for t in scaled}, {65536.0})
        self.assertEqual(rows[-1]["skipped_steps"], 1)

    def test_bad_loss_scale_is_refused(self):
        import mantissa_torch
        model = torch.nn.Linear(2, 2)
        for bad in (0.0, -1.0, float("inf"), float("nan")):
            with self.assertRaisesRegex(ValueError, "loss_scale must be a positive finite"):
                mantissa_torch.Tap(model, None, log=os.path.join(self.tmp, "bad.jsonl"),
                                   loss_scale=bad)

    def test_non_finite_lr_is_logged_as_null(self):
        import mantissa_torch
        log = os.path.join(self.tmp, "nanlr.jsonl")
        model = torch.nn.Linear(2, 2)
        opt = torch.optim.SGD(model.parameters(), lr=float("nan"))
        with mantissa_torch.Tap(model, opt, log=log, every=0) as tap:
            model(torch.ones(1, 2)).sum().backward()
            tap.after_backward(torch.tensor(1.0))
            tap.after_step()
        self.assertIsNone(tap_common.read_jsonl(log)[1]["lr"])

    def test_grad_norm_in_double_even_when_squares_overflow(self):
        """The logged gradient norm is the global L2 norm of the unscaled
        gradients (checked against a plain double sum); gradients near 1e20,
        whose FP32 squares overflow, are finite: no found_inf, and the norm
        still comes out finite."""
        import mantissa_torch
        log = os.path.join(self.tmp, "norm.jsonl")
        model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 2))
        grads = []
        with mantissa_torch.Tap(model, None, log=log, every=0, loss_scale=8.0) as tap:
            for magnitude in (1.0, 1e20):
                torch.manual_seed(4)
                for p in model.parameters():
                    p.grad = torch.randn(p.shape) * magnitude
                grads.append([v for p in model.parameters() for v in p.grad.reshape(-1).tolist()])
                tap.after_backward(torch.tensor(0.5))
                tap.after_step()
        rows = tap_common.read_jsonl(log)[1:3]
        for row, values in zip(rows, grads):
            expected = math.sqrt(sum(v * v for v in values)) / 8.0
            self.assertFalse(row["found_inf"])
            self.assertAlmostEqual(row["grad_norm"] / expected, 1.0, places=5)


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=2).result
    sys.exit(0 if result.wasSuccessful() else 1)
