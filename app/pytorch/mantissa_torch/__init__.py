# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 The Mantissa authors
"""mantissa_torch: write Mantissa's JSONL run log from a PyTorch training loop.

    tap = mantissa_torch.Tap(model, optimizer, log="run.jsonl", every=10, scaler=scaler)
    for x, y in batches:
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        scaler.scale(loss).backward()
        tap.after_backward(loss)
        scaler.step(optimizer); scaler.update()
        tap.after_step()
    tap.close()

Open the log in Mantissa (File > Open Run, File > Follow Run) or render it
with `mantissa-cli report run.jsonl`.

Checkpoints: `model, vocabulary = mantissa_torch.load_gpt("run.safetensors")`,
`mantissa_torch.save(model, "out.safetensors", vocabulary=vocabulary)`.
"""

from ._stats import CAST_TARGETS, cast_thresholds, tensor_stats, tensor_json, cast_counts
from .tap import Tap, rank_log_path
from .gpt import GPT
from .checkpoint import (load_gpt, load_state_dict, read_metadata, read_safetensors, save,
                         write_safetensors)

__all__ = ["Tap", "rank_log_path", "tensor_stats", "tensor_json", "cast_counts",
           "cast_thresholds", "CAST_TARGETS", "GPT", "load_gpt", "load_state_dict",
           "read_metadata", "read_safetensors", "save", "write_safetensors"]
__version__ = "1.0"
