# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 The Mantissa authors
"""`mantissa-cli model` on a real checkpoint written by PyTorch.

The tap's small GPT, built in PyTorch and saved by mantissa_torch.save,
is inspected by `mantissa-cli model --json`. The report names every tensor
of torch's own state_dict (lm_head.weight is the same tensor as
transformer.wte.weight, so the file holds it once), with torch's shapes,
and per tensor the min, max, absmax and zeros torch computes, and the FP16
and BF16 overflow, lost-to-zero and subnormal counts of torch's own casts
(.half(), .bfloat16()), count for count."""

import json
import os
import shutil
import subprocess
import unittest

import tap_common
from tap_common import torch

tap_common.require_torch()

import mantissa_torch  # noqa: E402

SPEC = "gpt:layers=2,heads=2,embd=32,ctx=16"


def cast_counts(x, dtype, min_normal):
    """overflow, lost to zero, subnormal of torch's own cast of x to dtype."""
    q = x.to(dtype).double()
    a = q.abs()
    overflow = int(torch.isinf(q).sum())
    lost = int(((x != 0) & (q == 0)).sum())
    subnormal = int(((a > 0) & (a < min_normal)).sum())
    return overflow, lost, subnormal


class ModelInspectCheckpoint(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cli = os.environ.get("MANTISSA_CLI")
        if not cls.cli:
            raise unittest.SkipTest("MANTISSA_CLI is not set (run through ctest)")
        cls.tmp = os.path.join(os.environ.get("MANTISSA_TEST_TMP", "."), "model_inspect_checkpoint")
        shutil.rmtree(cls.tmp, ignore_errors=True)
        os.makedirs(cls.tmp)

    def test_report_names_every_state_dict_tensor_with_torch_counts(self):
        torch.manual_seed(3)
        vocabulary = "".join(chr(c) for c in range(32, 32 + 65))
        model = mantissa_torch.GPT(len(vocabulary), **mantissa_torch.GPT.parse_spec(SPEC))
        with torch.no_grad():  # values FP16 overflows and flushes, in one weight
            w = model.transformer.h[0].mlp.c_fc.weight
            w[0, 0], w[0, 1], w[0, 2] = 70000.0, 1e-9, 3e-6
        path = os.path.join(self.tmp, "gpt.safetensors")
        mantissa_torch.save(model, path, vocabulary=vocabulary)

        r = subprocess.run([self.cli, "model", path, "--json"], capture_output=True, text=True, timeout=240)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        report = json.loads(r.stdout)

        state = model.state_dict()
        self.assertIs(model.lm_head.weight, model.transformer.wte.weight)  # tied: stored once
        want = {k: v for k, v in state.items() if k != "lm_head.weight"}
        got = {t["name"]: t for t in report["tensors"]}
        self.assertEqual(sorted(got), sorted(want))
        self.assertEqual(len(report["tensors"]), len(want))
        for name, t in want.items():
            with self.subTest(tensor=name):
                row = got[name]
                x = t.detach().double().reshape(-1)
                self.assertEqual(row["dtype"], "F32")
                self.assertEqual(row["shape"], list(t.shape))
                self.assertEqual(row["bytes"], 4 * t.numel())
                self.assertTrue(row["decoded"])
                self.assertEqual(row["min"], float(x.min()))
                self.assertEqual(row["max"], float(x.max()))
                self.assertEqual(row["absmax"], float(x.abs().max()))
                self.assertEqual(row["zeros"], int((x == 0).sum()))
                self.assertEqual(row["nan"] + row["pos_inf"] + row["neg_inf"], 0)
                self.assertEqual(sum(row["exponent_histogram"].values()), int((x != 0).sum()))
                xf = t.detach().float().reshape(-1)
                for fmt, dtype, min_normal in (("fp16", torch.float16, 2.0 ** -14),
                                               ("bf16", torch.bfloat16, 2.0 ** -126)):
                    overflow, lost, subnormal = cast_counts(xf, dtype, min_normal)
                    f = row["formats"][fmt]
                    self.assertEqual((f["overflow"], f["lost_to_zero"], f["subnormal"]),
                                     (overflow, lost, subnormal), fmt)
        fc = got["transformer.h.0.mlp.c_fc.weight"]["formats"]["fp16"]
        self.assertEqual(fc["overflow"], 1)
        self.assertGreaterEqual(fc["lost_to_zero"], 1)
        self.assertIn("transformer.h.0.mlp.c_fc.weight",
                      [v for v in report["verdicts"] if v["format"] == "fp16"][0]["overflowing"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
