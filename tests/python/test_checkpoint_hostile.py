# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 The Mantissa authors
"""mantissa_torch's safetensors reader on hostile files, each written byte by
byte here: every one is refused with a ValueError that says what is wrong
and names the tensor where there is one. A well-formed file of F32, F16 and
BF16 reads back the values written. save() refuses a module that is not one
of Mantissa's architectures, naming the first tensor that does not fit."""

import json
import os
import shutil
import struct
import unittest

import tap_common
from tap_common import torch

tap_common.require_torch()

import mantissa_torch  # noqa: E402


def file_bytes(header, data, length=None):
    text = json.dumps(header).encode("utf-8") if not isinstance(header, bytes) else header
    text += b" " * (-len(text) % 8)
    n = len(text) if length is None else length
    return struct.pack("<Q", n) + text + data


class Hostile(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = os.path.join(os.environ.get("MANTISSA_TEST_TMP", "."), "checkpoint_hostile")
        shutil.rmtree(cls.tmp, ignore_errors=True)
        os.makedirs(cls.tmp)

    def write(self, name, content):
        path = os.path.join(self.tmp, name)
        with open(path, "wb") as f:
            f.write(content)
        return path

    def refused(self, name, content, *phrases):
        path = self.write(name, content)
        with self.assertRaises(ValueError) as caught:
            mantissa_torch.load_state_dict(path)
        message = str(caught.exception)
        for phrase in phrases:
            self.assertIn(phrase, message)
        return message

    def test_well_formed_file_reads_its_values(self):
        header = {"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                  "b": {"dtype": "F16", "shape": [1, 2], "data_offsets": [8, 12]},
                  "c": {"dtype": "BF16", "shape": [2], "data_offsets": [12, 16]},
                  "__metadata__": {"format": "mantissa"}}
        data = (struct.pack("<2f", 1.5, -2.0) + struct.pack("<2e", 0.5, 3.0)
                + struct.pack("<2H", 0x3F80, 0xC040))  # BF16 1.0 and -3.0
        path = self.write("good.safetensors", file_bytes(header, data))
        t = mantissa_torch.load_state_dict(path)
        self.assertEqual(t["a"].tolist(), [1.5, -2.0])
        self.assertEqual(t["b"].dtype, torch.float16)
        self.assertEqual(t["b"].tolist(), [[0.5, 3.0]])
        self.assertEqual(t["c"].float().tolist(), [1.0, -3.0])
        self.assertEqual(mantissa_torch.read_metadata(path), {"format": "mantissa"})

    def test_truncated_file(self):
        header = {"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}}
        whole = file_bytes(header, struct.pack("<4f", 1, 2, 3, 4))
        self.refused("truncated.safetensors", whole[:-5], "'w'", "outside the data buffer")
        self.refused("stub.safetensors", whole[:5], "shorter than the 8-byte header length")

    def test_header_length_past_the_end(self):
        header = {"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}}
        content = file_bytes(header, struct.pack("<f", 1), length=4096)
        self.refused("long_header.safetensors", content, "header length 4096",
                     "past the end of the file")
        huge = file_bytes(header, struct.pack("<f", 1), length=1 << 62)
        self.refused("huge_header.safetensors", huge, "above the limit")

    def test_overlapping_offsets(self):
        header = {"first": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                  "second": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}}
        self.refused("overlap.safetensors", file_bytes(header, bytes(12)),
                     "'second'", "overlaps", "'first'")

    def test_gap_between_tensors(self):
        header = {"first": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},
                  "second": {"dtype": "F32", "shape": [1], "data_offsets": [8, 12]}}
        self.refused("gap.safetensors", file_bytes(header, bytes(12)), "gap", "'second'")

    def test_unknown_dtype(self):
        header = {"odd": {"dtype": "F12", "shape": [2], "data_offsets": [0, 3]}}
        self.refused("dtype.safetensors", file_bytes(header, bytes(3)),
                     "'odd'", "unknown dtype 'F12'")

    def test_shape_against_byte_range(self):
        header = {"w": {"dtype": "F32", "shape": [3, 2], "data_offsets": [0, 16]}}
        self.refused("shape.safetensors", file_bytes(header, bytes(16)),
                     "'w'", "needs 24 bytes", "cover 16")
        overflow = {"w": {"dtype": "F32", "shape": [1 << 62, 1 << 62], "data_offsets": [0, 16]}}
        self.refused("overflow.safetensors", file_bytes(overflow, bytes(16)), "'w'", "bytes")
        negative = {"w": {"dtype": "F32", "shape": [-4], "data_offsets": [0, 16]}}
        self.refused("negative.safetensors", file_bytes(negative, bytes(16)),
                     "'w'", "non-negative integers")

    def test_invalid_json(self):
        self.refused("json.safetensors", file_bytes(b'{"w": {"dtype": ', bytes(8)),
                     "not valid UTF-8 JSON")
        self.refused("list.safetensors", file_bytes(b"[1, 2]", b""), "not a JSON object")

    def test_save_refuses_a_foreign_architecture_naming_the_tensor(self):
        class Foreign(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.layers = torch.nn.ModuleList([torch.nn.Linear(4, 3)])
                self.encoder = torch.nn.GRU(3, 3)

        path = os.path.join(self.tmp, "foreign.safetensors")
        with self.assertRaises(ValueError) as caught:
            mantissa_torch.save(Foreign(), path)
        self.assertIn("'encoder.weight_ih_l0'", str(caught.exception))
        self.assertFalse(os.path.exists(path))

    def test_save_writes_an_mlp_under_mantissa_names(self):
        class Mlp(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.layers = torch.nn.ModuleList([torch.nn.Linear(4, 3), torch.nn.Linear(3, 2)])

        model = Mlp()
        path = os.path.join(self.tmp, "mlp.safetensors")
        mantissa_torch.save(model, path, config={"model": "mlp:4-3-2", "steps": 1})
        back = mantissa_torch.load_state_dict(path)
        self.assertEqual(sorted(back), sorted(model.state_dict()))
        for name, t in model.state_dict().items():
            self.assertTrue(torch.equal(back[name], t), name)
        self.assertEqual(json.loads(mantissa_torch.read_metadata(path)["config"])["model"],
                         "mlp:4-3-2")


if __name__ == "__main__":
    unittest.main(verbosity=2)
