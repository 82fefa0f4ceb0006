# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 The Mantissa authors
"""The Tap: hooks on a model, one log line per optimizer step.

Log lines (the schema of `mantissa-cli train --log`):
  {"header": true, "name": ..., "source": "pytorch", "layers": [...], "modules": [...],
   "recipe_table": [...], "torch": ..., "world_size": ..., "rank": ..., ...}
  {"step": 0, "loss": ..., "lr": ..., "loss_scale": ..., "found_inf": ..., "skipped": ...,
   "step_ms": ..., "grad_norm": ..., "telemetry": {...}}   telemetry every `every` steps
  {"summary": true, "steps": ..., "skipped_steps": ..., "wall_s": ..., "recipe": ...}
A layer of the log is a leaf module of the model (in registration order); its
activations are the module's forward outputs, its weights and weight
gradients the parameters it owns.
"""

import json
import math
import os
import stat
import tempfile
import time

import torch

from . import _stats


def _world():
    dist = getattr(torch, "distributed", None)
    if dist is not None and dist.is_available() and dist.is_initialized():
        return dist.get_world_size(), dist.get_rank()
    return 1, 0


def rank_log_path(log, rank):
    """run.jsonl -> run.rank3.jsonl"""
    root, ext = os.path.splitext(log)
    return "%s.rank%d%s" % (root, rank, ext or ".jsonl")


def _finite_or_none(v):
    return v if v is not None and math.isfinite(v) else None


def _dtype_name(dtype):
    return {torch.float32: "fp32", torch.float16: "fp16", torch.bfloat16: "bf16",
            torch.float64: "fp64"}.get(dtype, str(dtype).replace("torch.", ""))


def _first_tensor(output):
    if isinstance(output, torch.Tensor):
        return output
    if isinstance(output, (tuple, list)):
        for o in output:
            t = _first_tensor(o)
            if t is not None:
                return t
    if isinstance(output, dict):
        for o in output.values():
            t = _first_tensor(o)
            if t is not None:
                return t
    return None


class Tap:
    """Watches `model` and `optimizer` and writes Mantissa's run log.

    log        path of the JSONL log; with torch.distributed initialized each
               rank writes run.rank<R>.jsonl beside it
    every      a telemetry frame (histograms, cast fractions) every K steps
    scaler     a torch GradScaler (its scale is read each step; a step whose
               scale backs off is logged as skipped)
    loss_scale the loss scale the loop applies itself (no GradScaler); may also
               be given per step to after_backward()
    name       the run's name in Mantissa (default: "torch fp32", "torch bf16
               autocast", ... from the precisions seen); " rank R" is added
               on each rank of a distributed run
    total_steps planned optimizer steps, if known (progress in the dashboard)
    """

    def __init__(self, model, optimizer, log="run.jsonl", every=10, scaler=None,
                 loss_scale=None, name=None, total_steps=None):
        if every < 0:
            raise ValueError("every must be >= 0 (0: no telemetry frames)")
        self.model = model
        self.optimizer = optimizer
        self.every = int(every)
        self.scaler = scaler
        self.loss_scale = None if loss_scale is None else _check_scale(loss_scale)
        self.total_steps = total_steps
        self.world_size, self.rank = _world()
        self.path = rank_log_path(log, self.rank) if self.world_size > 1 else log
        self.name = name  # None: from the precisions seen, when the header is written
        self._closed = False
        self._step = 0
        self._skipped_steps = 0
        self._start = time.perf_counter()
        self._step_start = None
        self._header_written = False
        self._prev_scale = None
        self._first_non_finite = None

        # Layers: leaf modules (no children), in registration order.
        self._layers = []
        self._index = {}
        for qual, module in model.named_modules():
            if any(True for _ in module.children()):
                continue
            self._index[module] = len(self._layers)
            self._layers.append((qual or type(module).__name__, module))
        if len(self._layers) > _stats.MAX_LAYERS:
            raise ValueError(
                "the model has %d leaf modules; a Mantissa run log names at most %d layers "
                "(indices 0 to %d): tap a smaller part of the model"
                % (len(self._layers), _stats.MAX_LAYERS, _stats.MAX_LAYERS - 1))
        self._params = [[p for p in m.parameters(recurse=False)] for _, m in self._layers]
        self._out_shape = [None] * len(self._layers)
        self._out_dtypes = [set() for _ in self._layers]
        self._in_dtypes = [set() for _ in self._layers]
        self._autocast_dtypes = set()
        # Opened last, once the model is accepted: nothing at the path changes
        # until the first line is written (see _LogFile).
        self._file = _LogFile(self.path)
        self._hooks = [m.register_forward_hook(self._forward_hook) for _, m in self._layers]
        self._hooks += [m.register_forward_pre_hook(self._forward_pre_hook)
                        for _, m in self._layers[:1]]
        self._reset_step()

    # ---- hooks ------------------------------------------------------------

    def _reset_step(self):
        self._act_stats = {}       # layer -> stats vector (device), summed over calls
        # (layer, device float64 scalar: the output's sum, finite iff every value is), call order
        self._fwd_flags = []

    def _telemetry_step(self):
        return self.every > 0 and self._step % self.every == 0

    def _forward_pre_hook(self, module, inputs):
        if self._step_start is None:
            self._step_start = time.perf_counter()

    def _forward_hook(self, module, inputs, output):
        if not torch.is_grad_enabled():
            return  # evaluation passes are not part of a training step
        layer = self._index[module]
        out = _first_tensor(output)
        if out is None or not out.is_floating_point():
            return
        if self._out_shape[layer] is None:
            self._out_shape[layer] = list(out.shape)
        self._out_dtypes[layer].add(out.dtype)
        x = _first_tensor(inputs)
        if x is not None and x.is_floating_point():
            self._in_dtypes[layer].add(x.dtype)
        if _autocast_enabled(out.device):
            self._autocast_dtypes.add(out.dtype)
        if self._telemetry_step():
            s = _stats.tensor_stats(out)
            prev = self._act_stats.get(layer)
            self._act_stats[layer] = s if prev is None else prev + s
        # A sum in double cannot overflow for FP32 or narrower values: it is
        # finite exactly when every value is (and much cheaper than isfinite().all()).
        self._fwd_flags.append((layer, out.detach().sum(dtype=torch.float64)))

    # ---- the step ----------------------------------------------------------

    def _current_scale(self):
        if self.scaler is not None and self.scaler.is_enabled():
            return float(self.scaler.get_scale())
        if self.loss_scale is not None:
            return float(self.loss_scale)
        return 1.0

    def after_backward(self, loss, loss_scale=None):
        """Call after backward, before the optimizer step: reads the loss, the
        gradients (still loss-scaled) and the weights. `loss` is the unscaled
        loss; `loss_scale` the factor the loop applied to it, if it scales the
        loss itself and the factor changed since the Tap was made."""
        if loss_scale is not None:
            self.loss_scale = _check_scale(loss_scale)
        if not self._header_written:
            self._write_header()
        scale = self._current_scale()
        self._scale_before = scale
        inv = float(torch.tensor(1.0, dtype=torch.float32) / torch.tensor(scale, dtype=torch.float32))
        telemetry = self._telemetry_step()
        grad_sq = []
        grad_flags = []  # (layer, device float64 sum of its gradients: finite iff they all are)
        frame_stats = []  # (layer, class, scaled, loss_scale, device stats)
        for layer in range(len(self._layers)):
            params = self._params[layer]
            grads = [p.grad for p in params if p.grad is not None]
            if telemetry and params:
                w = _sum_stats([_stats.tensor_stats(p) for p in params])
                frame_stats.append((layer, "weights", False, 1.0, w))
            if not grads:
                continue
            if telemetry:
                g = _sum_stats([_stats.tensor_stats(t) for t in grads])
                if scale != 1.0:
                    frame_stats.append((layer, "weight_grads", True, scale, g))
                    u = _sum_stats([_stats.tensor_stats(t, inv) for t in grads])
                    frame_stats.append((layer, "weight_grads", False, 1.0, u))
                else:
                    frame_stats.append((layer, "weight_grads", False, 1.0, g))
            grad_flags.append((layer, torch.stack([t.detach().sum(dtype=torch.float64)
                                                   for t in grads]).sum()))
            for t in grads:
                grad_sq.append(t.detach().float().pow(2).sum())
        acts = [(layer, "activations", False, 1.0, self._act_stats[layer])
                for layer in sorted(self._act_stats)]
        frame_stats = acts + frame_stats

        # One copy to the host: loss, grad norm, non-finite flags (and the frame's counts).
        device = loss.device
        parts = [loss.detach().float().reshape(1)]
        if grad_sq:
            parts.append(torch.stack([g.to(device) for g in grad_sq]).sum().sqrt().reshape(1))
        parts = [p.double() for p in parts]
        flags = [f.to(device).reshape(1) for _, f in self._fwd_flags + grad_flags]
        host = torch.cat(parts + flags).cpu().tolist()
        self._loss = host[0]
        fwd = [not math.isfinite(v) for v in host[len(parts):len(parts) + len(self._fwd_flags)]]
        bwd = [not math.isfinite(v) for v in host[len(parts) + len(self._fwd_flags):]]
        self._grad_norm = host[1] / scale if grad_sq else 0.0
        if grad_sq and not math.isfinite(self._grad_norm) and not any(bwd):
            # Finite gradients whose squares overflow FP32: the norm again in double.
            sq = sum(float(torch.linalg.vector_norm(p.grad.detach(), dtype=torch.float64)) ** 2
                     for params in self._params for p in params if p.grad is not None)
            self._grad_norm = math.sqrt(sq) / scale
        self._found_inf_grads = any(bwd)
        self._non_finite = None
        for (layer, _), bad in zip(self._fwd_flags, fwd):
            if bad:
                self._non_finite = (layer, "forward")
                break
        if self._non_finite is None:
            # Backward runs from the last layer to the first.
            for (layer, _), bad in sorted(zip(grad_flags, bwd), key=lambda x: -x[0][0]):
                if bad:
                    self._non_finite = (layer, "backward")
                    break
        self._frame = None
        if telemetry:
            t0 = time.perf_counter()
            host = torch.stack([s for *_, s in frame_stats]).cpu().tolist() if frame_stats else []
            tensors = [_stats.tensor_json(h, layer, cls, scaled, ls)
                       for (layer, cls, scaled, ls, _), h in zip(frame_stats, host)]
            self._frame = {"step": self._step, "tensors": tensors, "swamped": [],
                           "telemetry_ms": (time.perf_counter() - t0) * 1000.0}
        self._reset_step()

    def after_step(self, skipped=None):
        """Call after the optimizer step (and scaler.update()): writes the step's
        line. `skipped` says whether the loop skipped the update; by default a
        step is skipped when a GradScaler backed off, or, with a loop-applied
        loss scale, when the gradients held inf or NaN."""
        if not hasattr(self, "_scale_before"):
            raise RuntimeError("after_step() without after_backward() for this step")
        before = self._scale_before
        after = self._current_scale()
        del self._scale_before
        found_inf = self._found_inf_grads
        events = []
        if self.scaler is not None and self.scaler.is_enabled():
            backoff = after < before
            found_inf = found_inf or backoff
            if skipped is None:
                skipped = backoff
        elif skipped is None:
            skipped = found_inf and self.loss_scale is not None
        if found_inf:
            events.append({"event": "overflow", "scale_before": before, "scale_after": after})
        if after < before:
            events.append({"event": "backoff", "scale_before": before, "scale_after": after})
        elif after > before:
            events.append({"event": "growth", "scale_before": before, "scale_after": after})
        if skipped:
            events.append({"event": "skipped", "scale_before": before, "scale_after": after})
            self._skipped_steps += 1
        now = time.perf_counter()
        start = self._step_start if self._step_start is not None else now
        row = {
            "step": self._step,
            "loss": _finite_or_none(self._loss),
            "lr": float(self.optimizer.param_groups[0]["lr"]) if self.optimizer else 0.0,
            "loss_scale": after,
            "found_inf": bool(found_inf),
            "skipped": bool(skipped),
            "step_ms": (now - start) * 1000.0,
            "grad_norm": _finite_or_none(self._grad_norm),
        }
        if events:
            row["events"] = events
        if self._non_finite is not None:
            layer, pass_ = self._non_finite
            module = self._layers[layer]
            row["non_finite"] = {"layer": layer, "op": module[0], "module": module[0],
                                 "type": type(module[1]).__name__, "pass": pass_}
            if self._first_non_finite is None:
                self._first_non_finite = dict(row["non_finite"], step=self._step)
                row["divergence"] = {
                    "step": self._step, "layer": layer, "op": module[0], "pass": pass_,
                    "reason": "non-finite",
                    "message": "inf or NaN first appeared in the %s pass of module '%s' (%s) "
                               "at step %d" % (pass_, module[0], type(module[1]).__name__,
                                               self._step)}
        if self._frame is not None:
            row["telemetry"] = self._frame
        self._write(row)
        self._step += 1
        self._step_start = now

    # ---- the log -----------------------------------------------------------

    def _write(self, obj):
        # One complete line per write, flushed: a reader never sees half a record
        # unless the process dies mid-write. Non-finite numbers are written as
        # null, as Mantissa's own logs do (JSON has no inf or NaN).
        try:
            line = json.dumps(obj, separators=(",", ":"), allow_nan=False)
        except ValueError:
            line = json.dumps(_finite_json(obj), separators=(",", ":"), allow_nan=False)
        self._file.write(line + "\n")
        self._file.flush()

    def _write_header(self):
        modules = []
        table = []
        for layer, (qual, module) in enumerate(self._layers):
            params = [{"name": n, "shape": list(p.shape), "dtype": _dtype_name(p.dtype)}
                      for n, p in module.named_parameters(recurse=False)]
            outs = sorted(_dtype_name(d) for d in self._out_dtypes[layer])
            ins = sorted(_dtype_name(d) for d in self._in_dtypes[layer])
            modules.append({"layer": layer, "name": qual, "type": type(module).__name__,
                            "params": params, "output_shape": self._out_shape[layer],
                            "input_dtypes": ins, "output_dtypes": outs})
            pdt = sorted({p["dtype"] for p in params})
            note = "parameters " + "/".join(pdt) if pdt else "no parameters"
            table.append({"op": "%s (%s)" % (qual, type(module).__name__),
                          "precision": "/".join(outs) or "not run",
                          "note": "inputs %s; %s" % ("/".join(ins) or "none", note)})
        scaler = "none"
        if self.scaler is not None and self.scaler.is_enabled():
            scaler = "GradScaler (init %g, growth x%g every %d steps, backoff x%g)" % (
                self.scaler.get_scale(), self.scaler.get_growth_factor(),
                self.scaler.get_growth_interval(), self.scaler.get_backoff_factor())
        elif self.loss_scale is not None:
            scaler = "loss scale applied by the training loop (%g)" % float(self.loss_scale)
        device = next((p.device for p in self.model.parameters()), torch.device("cpu"))
        if self.name is None:  # "torch bf16 autocast", "torch fp32"
            if self._autocast_dtypes:
                kind = "/".join(sorted(_dtype_name(d) for d in self._autocast_dtypes)) + " autocast"
            else:
                kind = "/".join(sorted({_dtype_name(p.dtype) for p in self.model.parameters()})) \
                    or "fp32"
            self.name = "torch " + kind
        if self.world_size > 1:
            self.name = "%s rank %d" % (self.name, self.rank)
        header = {
            "header": True,
            "name": self.name,
            "source": "pytorch",
            "torch": torch.__version__,
            "world_size": self.world_size,
            "rank": self.rank,
            "device": str(device),
            "telemetry_every": self.every,
            "layers": [q for q, _ in self._layers],
            "modules": modules,
            "autocast_dtypes": sorted(_dtype_name(d) for d in self._autocast_dtypes),
            "recipe_table": table,
            "scaler": scaler,
            "matmul": "pytorch (%s)" % device.type,
            "cast_thresholds": {n: list(_stats.cast_thresholds(n)) for n in _stats.CAST_TARGETS},
        }
        if self.total_steps is not None:
            header["total_steps"] = int(self.total_steps)
        self._write(header)
        self._header_written = True

    def close(self):
        """Writes the summary line and closes the log; removes the hooks."""
        if self._closed:
            return
        self._closed = True
        for h in self._hooks:
            h.remove()
        if not self._header_written:
            self._write_header()
        summary = {"summary": True, "steps": self._step, "skipped_steps": self._skipped_steps,
                   "wall_s": time.perf_counter() - self._start, "recipe": self.name,
                   "diverged": self._first_non_finite is not None}
        if self._first_non_finite is not None:
            f = self._first_non_finite
            summary["divergence"] = {"step": f["step"], "layer": f["layer"], "op": f["op"],
                                     "pass": f["pass"], "reason": "non-finite"}
        self._write(summary)
        self._file.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class _LogFile:
    """The log, as Mantissa's own logs are written: a symlink at the path is
    followed only when the user (or root) owns every link on the way (the
    rule of the kernel's protected_symlinks: a link another user planted in a
    folder anyone can write to is refused); the lines go to a temporary file
    beside the target, renamed over it once the first line is written, so an
    earlier log stays whole until then (a Tap made and dropped, a full disk)."""

    def __init__(self, path):
        self.temp = None
        if path.startswith(("/dev/", "/proc/")):  # /dev/stdout and the like: written as they are
            self.target = path
            self._file = open(path, "w", encoding="utf-8")
            return
        self.target = _write_target(path)
        directory = os.path.dirname(self.target) or "."
        existing = None
        try:
            existing = os.stat(self.target)
        except FileNotFoundError:
            pass
        if existing is not None and not stat.S_ISREG(existing.st_mode):  # a FIFO: as it is
            self._file = open(self.target, "w", encoding="utf-8")
            return
        if existing is not None and not os.access(self.target, os.W_OK):
            raise PermissionError("cannot write the log %r: permission denied" % path)
        fd, self.temp = tempfile.mkstemp(dir=directory,
                                         prefix="." + os.path.basename(self.target)[:200] + ".")
        if existing is not None:
            os.chmod(self.temp, existing.st_mode & 0o7777)
        else:
            mask = os.umask(0)
            os.umask(mask)
            os.chmod(self.temp, 0o666 & ~mask)
        self._file = os.fdopen(fd, "w", encoding="utf-8")

    def write(self, text):
        self._file.write(text)

    def flush(self):
        self._file.flush()
        if self.temp is not None:  # the first line: the new log replaces the old one
            os.replace(self.temp, self.target)
            self.temp = None

    def close(self):
        self._file.close()
        self.discard()

    def discard(self):
        if getattr(self, "temp", None) is not None:
            try:
                os.unlink(self.temp)
            except OSError:
                pass
            self.temp = None

    def __del__(self):
        self.discard()


def _write_target(path):
    """`path`, or where its symlink chain ends when the user (or root) owns
    every link; ValueError for another user's link or a dangling one."""
    p = path
    for _ in range(40):
        try:
            st = os.lstat(p)
        except FileNotFoundError:
            if p != path:
                raise ValueError("cannot write the log %r: it is a symlink to %r, which does "
                                 "not exist" % (path, p))
            return p
        if not stat.S_ISLNK(st.st_mode):
            if stat.S_ISDIR(st.st_mode):
                raise ValueError("cannot write the log %r: it is a directory" % path)
            return p
        if st.st_uid not in (os.geteuid(), 0):
            raise ValueError("cannot write the log %r: it is a symlink owned by another user; "
                             "refusing to follow it" % path)
        to = os.readlink(p)
        p = to if os.path.isabs(to) else os.path.join(os.path.dirname(p), to)
    raise ValueError("cannot write the log %r: too many levels of symbolic links" % path)


def _finite_json(obj):
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: _finite_json(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_finite_json(v) for v in obj]
    return obj


def _check_scale(scale):
    scale = float(scale)
    if not (math.isfinite(scale) and scale > 0.0):
        raise ValueError("loss_scale must be a positive finite number, got %r" % scale)
    return scale


def _sum_stats(vectors):
    total = vectors[0]
    for v in vectors[1:]:
        total = total + v
    return total


def _autocast_enabled(device):
    try:
        return bool(torch.is_autocast_enabled(device.type))  # torch >= 2.4
    except TypeError:
        pass
    if device.type == "cuda":
        return torch.is_autocast_enabled()
    cpu = getattr(torch, "is_autocast_cpu_enabled", None)
    return bool(cpu and cpu())
