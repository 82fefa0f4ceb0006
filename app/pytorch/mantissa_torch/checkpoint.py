# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 The Mantissa authors
"""Mantissa checkpoints (safetensors) in PyTorch, read and written with
struct and json: no safetensors package is needed.

    model, vocabulary = mantissa_torch.load_gpt("run.safetensors")
    mantissa_torch.save(model, "tuned.safetensors", vocabulary=vocabulary)
"""

import json
import math
import os
import re
import struct
import tempfile

import torch

from .gpt import GPT

MAX_HEADER = 100 * 1000 * 1000
FORMAT_VERSION = "1"
MANTISSA_PREFIX = "mantissa."

# safetensors dtype name -> (torch dtype, bytes per element)
_DTYPES = {
    "F64": (torch.float64, 8), "F32": (torch.float32, 4), "F16": (torch.float16, 2),
    "BF16": (torch.bfloat16, 2), "I64": (torch.int64, 8), "I32": (torch.int32, 4),
    "I16": (torch.int16, 2), "I8": (torch.int8, 1), "U8": (torch.uint8, 1),
    "BOOL": (torch.bool, 1),
}
# Stored as raw bytes (torch 1.13 has no such dtype): returned as uint8 [..., size].
_RAW_DTYPES = {"F8_E4M3": 1, "F8_E5M2": 1, "F8_E8M0": 1, "U64": 8, "U32": 4, "U16": 2}
_TORCH_TO_NAME = {v[0]: k for k, v in _DTYPES.items()}


def read_safetensors(path):
    """Returns (tensors, metadata): every tensor of the file by name and the
    __metadata__ map. Validates the header length against the file size, the
    JSON, each dtype and shape against its byte range, and that the offsets
    cover the data buffer without overlaps or gaps; raises ValueError naming
    the file and the tensor otherwise."""
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        if size < 8:
            raise ValueError("%s: %d bytes, shorter than the 8-byte header length" % (path, size))
        n, = struct.unpack("<Q", f.read(8))
        if n > MAX_HEADER:
            raise ValueError("%s: header length %d is above the limit of %d bytes"
                             % (path, n, MAX_HEADER))
        if n > size - 8:
            raise ValueError("%s: header length %d runs past the end of the file (%d bytes)"
                             % (path, n, size))
        raw = f.read(n)
        try:
            header = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            raise ValueError("%s: the header is not valid UTF-8 JSON: %s" % (path, e)) from None
        if not isinstance(header, dict):
            raise ValueError("%s: the header is not a JSON object" % path)
        metadata = header.pop("__metadata__", {}) or {}
        if not isinstance(metadata, dict) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()):
            raise ValueError("%s: __metadata__ is not a map from string to string" % path)
        data_size = size - 8 - n
        spans = []
        for name, entry in header.items():
            where = "%s: tensor '%s'" % (path, name)
            if not isinstance(entry, dict):
                raise ValueError("%s: entry is not an object" % where)
            dtype, shape, offsets = entry.get("dtype"), entry.get("shape"), entry.get("data_offsets")
            if dtype in _DTYPES:
                item = _DTYPES[dtype][1]
            elif dtype in _RAW_DTYPES:
                item = _RAW_DTYPES[dtype]
            else:
                raise ValueError("%s: unknown dtype %r (known: %s)"
                                 % (where, dtype, ", ".join(sorted(_DTYPES) + sorted(_RAW_DTYPES))))
            if not isinstance(shape, list) or not all(
                    isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in shape):
                raise ValueError("%s: shape %r is not a list of non-negative integers" % (where, shape))
            if (not isinstance(offsets, list) or len(offsets) != 2 or not all(
                    isinstance(o, int) and not isinstance(o, bool) for o in offsets)):
                raise ValueError("%s: data_offsets %r is not [begin, end]" % (where, offsets))
            begin, end = offsets
            if not 0 <= begin <= end <= data_size:
                raise ValueError("%s: data_offsets [%d, %d) lie outside the data buffer of %d bytes"
                                 % (where, begin, end, data_size))
            nbytes = math.prod(shape) * item
            if nbytes != end - begin:
                raise ValueError("%s: shape %s of %s needs %d bytes, data_offsets cover %d"
                                 % (where, shape, dtype, nbytes, end - begin))
            spans.append((begin, end, name))
        spans.sort()
        at, previous = 0, None
        for begin, end, name in spans:
            if begin < at:
                raise ValueError("%s: tensor '%s' at [%d, %d) overlaps tensor '%s'"
                                 % (path, name, begin, end, previous))
            if begin > at:
                raise ValueError("%s: a gap of %d bytes before tensor '%s' at offset %d"
                                 % (path, begin - at, name, begin))
            at, previous = end, name
        if at != data_size:
            raise ValueError("%s: the tensors cover %d bytes of a data buffer of %d"
                             % (path, at, data_size))
        base = 8 + n
        tensors = {}
        for begin, end, name in spans:
            entry = header[name]
            f.seek(base + begin)
            buf = bytearray(f.read(end - begin))
            dtype, shape = entry["dtype"], entry["shape"]
            if dtype in _DTYPES:
                t = (torch.frombuffer(buf, dtype=_DTYPES[dtype][0]) if buf
                     else torch.empty(0, dtype=_DTYPES[dtype][0]))
                tensors[name] = t.reshape(shape)
            else:
                t = torch.frombuffer(buf, dtype=torch.uint8) if buf else torch.empty(0, dtype=torch.uint8)
                tensors[name] = t.reshape(list(shape) + [_RAW_DTYPES[dtype]])
    return tensors, metadata


def load_state_dict(path, parameters_only=True):
    """The file's tensors by name. With parameters_only (the default) the
    mantissa.working.* and mantissa.state.* tensors are left out: what is left
    is a PyTorch state dict."""
    tensors, _ = read_safetensors(path)
    if parameters_only:
        tensors = {k: v for k, v in tensors.items() if not k.startswith(MANTISSA_PREFIX)}
    return tensors


def read_metadata(path):
    """The file's __metadata__, validated like the rest of the file."""
    return read_safetensors(path)[1]


def load_gpt(path):
    """A Mantissa GPT checkpoint as (GPT module in FP32, vocabulary string)."""
    tensors, metadata = read_safetensors(path)
    if metadata.get("format") != "mantissa":
        raise ValueError("%s: not a Mantissa checkpoint (__metadata__ 'format' is %r)"
                         % (path, metadata.get("format")))
    try:
        config = json.loads(metadata.get("config", ""))
        spec = config["model"]
    except (ValueError, KeyError, TypeError):
        raise ValueError("%s: __metadata__ 'config' holds no run configuration with a 'model'"
                         % path) from None
    vocabulary = metadata.get("vocabulary", "")
    if not vocabulary:
        raise ValueError("%s: __metadata__ has no 'vocabulary': not a text model" % path)
    fields = GPT.parse_spec(spec)
    model = GPT(vocab_size=len(vocabulary), **fields)
    state = {k: v.float() for k, v in tensors.items() if not k.startswith(MANTISSA_PREFIX)}
    _check_names(model, state, path)
    model.load_state_dict(state, strict=False)
    return model, vocabulary


def _check_names(model, state, path):
    expected = {k: v.shape for k, v in model.state_dict().items() if k != "lm_head.weight"}
    for name, t in state.items():
        if name not in expected:
            raise ValueError("%s: tensor '%s' is not a parameter of the GPT" % (path, name))
        if tuple(t.shape) != tuple(expected[name]):
            raise ValueError("%s: tensor '%s' has shape %s, the GPT needs %s"
                             % (path, name, list(t.shape), list(expected[name])))
    for name in expected:
        if name not in state:
            raise ValueError("%s: tensor '%s' is missing" % (path, name))


# Mantissa's MLP and CNN: a ModuleList `layers` of Linear/Conv2d (+ `bn`).
_LAYER_NAME = re.compile(r"^layers\.\d+\.(weight|bias|bn\.weight|bn\.bias)$")


def _fits_layers(name, t):
    if not _LAYER_NAME.match(name):
        return "its name is not layers.L.weight, layers.L.bias or layers.L.bn.weight/.bias"
    if name.endswith("weight") and not name.endswith("bn.weight") and t.dim() not in (2, 4):
        return "a weight must be [out, in] or [out, in, k, k], this one is %s" % list(t.shape)
    if (name.endswith("bias") or name.endswith("bn.weight")) and t.dim() != 1:
        return "must be a vector, this one is %s" % list(t.shape)
    return None


def save(model, path, config=None, vocabulary=None):
    """Writes the module's parameters as a Mantissa checkpoint, atomically.

    The package's GPT is written under nanoGPT's names with its model spec and
    the vocabulary (required: its characters in token order), which
    `mantissa-cli sample` and `train --init-from` read. Another module must
    be a ModuleList `layers` of Linear or Conv2d layers (Mantissa's MLP or
    LeNet); config (a dict, the run's configuration with its "model") is then
    written as given. A module that fits neither raises ValueError naming the
    first tensor that does not fit."""
    state = model.state_dict()
    metadata = {"format": "mantissa", "format_version": FORMAT_VERSION, "step": "0"}
    if isinstance(model, GPT):
        if vocabulary is None:
            raise ValueError("save: a GPT needs its vocabulary (its characters in token order)")
        if len(vocabulary) != model.vocab_size:
            raise ValueError("save: the vocabulary has %d characters, the GPT's embedding %d rows"
                             % (len(vocabulary), model.vocab_size))
        config = dict(config or {})
        config["model"] = model.spec()
        if "steps" not in config and "epochs" not in config:
            config["steps"] = 1  # a run configuration names its length
        state = {k: v for k, v in state.items() if k != "lm_head.weight"}  # tied to wte
        metadata["vocabulary"] = vocabulary
    else:
        for name, t in state.items():
            if name.endswith("running_mean") or name.endswith("running_var") or \
                    name.endswith("num_batches_tracked"):
                continue
            problem = _fits_layers(name, t)
            if problem:
                raise ValueError("save: tensor '%s' does not fit a Mantissa model (a nanoGPT-style "
                                 "GPT, an MLP or the LeNet): %s" % (name, problem))
        state = {k: v for k, v in state.items() if _LAYER_NAME.match(k)}
        if vocabulary is not None:
            metadata["vocabulary"] = vocabulary
    if config is not None:
        metadata["config"] = json.dumps(config)
    write_safetensors(path, {k: v.detach().float() for k, v in state.items()}, metadata)


def write_safetensors(path, tensors, metadata=None):
    """Writes named tensors (F32, F16, BF16, ...) and a string map as a
    safetensors file: a temporary file beside `path`, then os.replace."""
    header, blobs, at = {}, [], 0
    for name, t in tensors.items():
        t = t.detach().contiguous().cpu()
        if t.dtype not in _TORCH_TO_NAME:
            raise ValueError("save: tensor '%s' has dtype %s, not one safetensors holds here"
                             % (name, t.dtype))
        data = t.reshape(-1).view(torch.uint8).numpy().tobytes() if t.numel() else b""
        header[name] = {"dtype": _TORCH_TO_NAME[t.dtype], "shape": list(t.shape),
                        "data_offsets": [at, at + len(data)]}
        blobs.append(data)
        at += len(data)
    if metadata:
        header["__metadata__"] = dict(metadata)
    text = json.dumps(header, ensure_ascii=False).encode("utf-8")
    text += b" " * (-len(text) % 8)
    directory = os.path.dirname(os.path.abspath(path))
    fd, temp = tempfile.mkstemp(prefix=".tmp-", suffix=".safetensors", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(struct.pack("<Q", len(text)))
            f.write(text)
            for b in blobs:
                f.write(b)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise
