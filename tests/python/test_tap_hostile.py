# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 The Mantissa authors
"""The tap on hostile input: FP64 values past FP32's range counted as the
finite values they are; a model with more leaf modules than a run log can
name refused when the Tap is made; a log path that is another user's symlink
refused, and an earlier log left whole until the new one has its first line."""

import json
import os
import shutil
import unittest

import tap_common
from tap_common import torch

tap_common.require_torch()

from mantissa_torch import Tap, _stats  # noqa: E402


def binades(stats):
    return {i + _stats.MIN_EXPONENT: c for i, c in enumerate(stats[:_stats.BIN_COUNT]) if c}


class Hostile(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = os.path.join(os.environ.get("MANTISSA_TEST_TMP", "."), "hostile")
        shutil.rmtree(cls.tmp, ignore_errors=True)
        os.makedirs(cls.tmp)

    def test_fp64_values_past_fp32_range_stay_finite(self):
        x = torch.tensor([1e300, -1e300, 1e-300, 1.0, 3.0], dtype=torch.float64)
        s = _stats.tensor_stats(x).tolist()
        self.assertEqual(s[_stats.POS_INF], 0)
        self.assertEqual(s[_stats.NEG_INF], 0)
        self.assertEqual(s[_stats.ZEROS], 0)
        self.assertEqual(s[_stats.TOTAL], 5)
        # 1e300 and -1e300 in the top binade, 1e-300 in the bottom one (the
        # histogram's ends), 1.0 in binade 0, 3.0 in binade 1.
        self.assertEqual(binades(s), {127: 2, -149: 1, 0: 1, 1: 1})
        fp16 = _stats.cast_counts(s)["fp16"]
        self.assertEqual(fp16["overflow"], 2)
        self.assertEqual(fp16["to_zero"], 1)

    def test_an_fp64_models_weights_are_logged_finite(self):
        torch.manual_seed(1)
        model = torch.nn.Sequential(torch.nn.Linear(4, 2)).double()
        with torch.no_grad():
            model[0].weight[0, 0] = 1e300
        opt = torch.optim.SGD(model.parameters(), lr=0.0)
        path = os.path.join(self.tmp, "fp64.jsonl")
        tap = Tap(model, opt, log=path, every=1)
        loss = model(torch.ones(3, 4, dtype=torch.float64)).sum() * 0.0
        loss.backward()
        tap.after_backward(loss)
        opt.step()
        tap.after_step()
        tap.close()
        with open(path) as f:
            rows = [json.loads(line) for line in f]
        weights = [t for t in rows[1]["telemetry"]["tensors"] if t["class"] == "weights"]
        self.assertEqual(len(weights), 1)
        self.assertEqual(weights[0]["pos_inf"], 0)
        self.assertEqual(weights[0]["counts"][-1] if weights[0]["lo"] is not None else 0, 1)

    def test_more_leaf_modules_than_a_log_can_name_are_refused(self):
        model = torch.nn.Sequential(*[torch.nn.Identity() for _ in range(4200)])
        path = os.path.join(self.tmp, "wide.jsonl")
        with self.assertRaises(ValueError) as caught:
            Tap(model, None, log=path)
        self.assertIn("4200 leaf modules", str(caught.exception))
        self.assertIn("at most 4097 layers", str(caught.exception))
        self.assertFalse(os.path.exists(path))
        # At the limit the Tap is made.
        limit = torch.nn.Sequential(*[torch.nn.Identity() for _ in range(_stats.MAX_LAYERS)])
        Tap(limit, None, log=os.path.join(self.tmp, "limit.jsonl")).close()

    def test_another_users_symlink_is_not_followed(self):
        shared = os.path.join(self.tmp, "shared")
        os.makedirs(shared, exist_ok=True)
        os.chmod(shared, 0o777)
        victim = os.path.join(self.tmp, "victim.txt")
        with open(victim, "w") as f:
            f.write("precious\n")
        link = os.path.join(shared, "run.jsonl")
        os.symlink(victim, link)
        try:
            os.lchown(link, 65534, 65534)
        except PermissionError:
            self.skipTest("giving the link to another user needs root")
        model = tap_common.mlp()
        with self.assertRaises(ValueError) as caught:
            Tap(model, None, log=link)
        self.assertIn("symlink owned by another user", str(caught.exception))
        with open(victim) as f:
            self.assertEqual(f.read(), "precious\n")

    def test_an_earlier_log_stays_whole_until_the_first_line(self):
        folder = os.path.join(self.tmp, "kept")
        os.makedirs(folder, exist_ok=True)
        path = os.path.join(folder, "run.jsonl")
        with open(path, "w") as f:
            f.write("an earlier run\n")
        tap = Tap(tap_common.mlp(), None, log=path)
        with open(path) as f:
            self.assertEqual(f.read(), "an earlier run\n")
        tap.close()
        with open(path) as f:
            first = json.loads(f.readline())
        self.assertTrue(first["header"])
        self.assertEqual(os.listdir(folder), ["run.jsonl"])


if __name__ == "__main__":
    unittest.main()
