# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 The Mantissa authors
"""Two processes train with DistributedDataParallel over gloo on loopback
(127.0.0.1, a free port): each rank writes run.rank<R>.jsonl, and Mantissa
reads both. DDP averages the gradients, so both ranks log the same gradient
histograms and norms while their activations (different batches) differ."""

import datetime
import os
import shutil
import socket
import subprocess
import sys
import unittest

import tap_common
from tap_common import torch

STEPS = 6


def worker(rank, port, log):
    import torch.distributed as dist
    import mantissa_torch
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port, world_size=2,
                            rank=rank, timeout=datetime.timedelta(seconds=60))
    try:
        x, y = tap_common.mnist(limit=1024)
        model = torch.nn.parallel.DistributedDataParallel(tap_common.mlp(seed=1))
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        with mantissa_torch.Tap(model, opt, log=log, every=2, name="ddp") as tap:
            for step in range(STEPS):
                i = (2 * step + rank) * 32
                opt.zero_grad()
                loss = torch.nn.functional.cross_entropy(model(x[i:i + 32]), y[i:i + 32])
                loss.backward()
                tap.after_backward(loss)
                opt.step()
                tap.after_step()
    finally:
        dist.destroy_process_group()


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Distributed(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not torch.distributed.is_available():
            raise unittest.SkipTest("this torch has no torch.distributed")
        cls.tmp = os.path.join(os.environ.get("MANTISSA_TEST_TMP", "."), "ddp")
        shutil.rmtree(cls.tmp, ignore_errors=True)
        os.makedirs(cls.tmp)
        cls.log = os.path.join(cls.tmp, "run.jsonl")
        env = dict(os.environ, GLOO_SOCKET_IFNAME="lo", OMP_NUM_THREADS="1")
        port = free_port()
        procs = [subprocess.Popen([sys.executable, __file__, "--worker", str(r), str(port), cls.log],
                                  env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  text=True) for r in (0, 1)]
        cls.outputs = []
        for p in procs:
            try:
                out, _ = p.communicate(timeout=150)
            except subprocess.TimeoutExpired:
                for q in procs:
                    q.kill()
                raise
            cls.outputs.append((p.returncode, out))

    def test_both_ranks_finish(self):
        for rc, out in self.outputs:
            self.assertEqual(rc, 0, out)

    def test_one_log_per_rank(self):
        self.assertFalse(os.path.exists(self.log))
        logs = [tap_common.read_jsonl(os.path.join(self.tmp, "run.rank%d.jsonl" % r)) for r in (0, 1)]
        for r, rows in enumerate(logs):
            header = rows[0]
            self.assertEqual((header["world_size"], header["rank"]), (2, r))
            self.assertEqual(header["name"], "ddp rank %d" % r)
            self.assertEqual(header["layers"], ["module.0", "module.1", "module.2", "module.3",
                                                "module.4"])
            self.assertEqual([x["step"] for x in rows[1:-1]], list(range(STEPS)))
        steps0, steps1 = logs[0][1:-1], logs[1][1:-1]
        for a, b in zip(steps0, steps1):
            self.assertEqual(a["grad_norm"], b["grad_norm"])  # all-reduced gradients
            self.assertNotEqual(a["loss"], b["loss"])         # each rank's own batch
            if "telemetry" in a:
                ga = [t for t in a["telemetry"]["tensors"] if t["class"] == "weight_grads"]
                gb = [t for t in b["telemetry"]["tensors"] if t["class"] == "weight_grads"]
                self.assertEqual(ga, gb)
                aa = [t for t in a["telemetry"]["tensors"] if t["class"] == "activations"]
                ab = [t for t in b["telemetry"]["tensors"] if t["class"] == "activations"]
                self.assertNotEqual(aa, ab)

    def test_mantissa_reads_both_ranks(self):
        exe = os.environ.get("MANTISSA_CLI")
        if not exe:
            self.skipTest("MANTISSA_CLI is not set (run through ctest)")
        for r in (0, 1):
            log = os.path.join(self.tmp, "run.rank%d.jsonl" % r)
            out = os.path.join(self.tmp, "rank%d.html" % r)
            p = subprocess.run([exe, "report", log, "--out", out], capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(out, encoding="utf-8") as f:
                self.assertIn("ddp rank %d" % r, f.read())


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--worker":
        worker(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
        sys.exit(0)
    tap_common.require_torch()
    result = unittest.main(exit=False, verbosity=2).result
    sys.exit(0 if result.wasSuccessful() else 1)
