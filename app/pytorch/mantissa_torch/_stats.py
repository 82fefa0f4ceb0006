# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 The Mantissa authors
"""Exact exponent histograms and cast counts of a tensor, on its own device.

A finite non-zero x lies in binade e when 2^e <= |x| < 2^(e+1); e runs from
-149 (the smallest FP32 subnormal) to 127. torch.frexp gives x = m * 2^k with
0.5 <= |m| < 1, so e = k - 1, subnormals included (their true exponent).
Zeros of both signs, +inf, -inf and NaN have their own counters.

Casting to a narrower format (round to nearest, ties to even) is monotone in
|x|, so what becomes zero, subnormal or overflows is a range of FP32 bit
patterns of |x|: three thresholds per format, compared as integers.
"""

import struct

import torch

MIN_EXPONENT = -149
MAX_EXPONENT = 127
BIN_COUNT = MAX_EXPONENT - MIN_EXPONENT + 1  # 277

CAST_TARGETS = ("fp16", "bf16", "fp8-e4m3", "fp8-e5m2")

# (stored mantissa bits p, min normal exponent, max finite value, max finite's last mantissa bit)
_FORMATS = {
    "fp16": (10, -14, (2.0 - 2.0 ** -10) * 2.0 ** 15, 1),
    "bf16": (7, -126, (2.0 - 2.0 ** -7) * 2.0 ** 127, 1),
    # OCP E4M3FN: no inf; 448 = 1.110b x 2^8 is the largest finite value
    "fp8-e4m3": (3, -6, 448.0, 0),
    "fp8-e5m2": (2, -14, 57344.0, 1),
}

_FP32_MAX = (2.0 - 2.0 ** -23) * 2.0 ** 127
_FP32_MIN_SUBNORMAL = 2.0 ** -149

# The most layers (leaf modules) a run log can name: layer indices 0..4096, the
# range Mantissa's log readers accept (core/src/telemetry/frame_json.cpp).
MAX_LAYERS = 4097

# Layout of one stats vector (int64): bins, then these counters.
ZEROS = BIN_COUNT
POS_INF = BIN_COUNT + 1
NEG_INF = BIN_COUNT + 2
NAN = BIN_COUNT + 3
TOTAL = BIN_COUNT + 4
BELOW = BIN_COUNT + 5  # 12 counts: #{bits(|x|) < T} for each format's 3 thresholds
# The sum of the values' FP32 bit patterns (as unsigned integers), mod 2^64:
# one value moved by one ULP moves it (the run diff's "bits").
BITS = BELOW + 3 * len(CAST_TARGETS)
STATS_LEN = BITS + 1


def _bits(value):
    """FP32 bit pattern of a value exactly representable in FP32."""
    packed = struct.pack("<f", value)
    if struct.unpack("<f", packed)[0] != value:
        raise ValueError("%r is not exact in FP32" % value)
    return struct.unpack("<I", packed)[0]


def cast_thresholds(name):
    """(zero_below, normal_below, overflow_from) as FP32 bit patterns of |x|:
    becomes zero iff bits < zero_below; subnormal iff zero_below <= bits <
    normal_below; overflows iff bits >= overflow_from (inf included, NaN not)."""
    p, emin, max_finite, last_bit = _FORMATS[name]
    emax_exp = max_finite.hex()  # exponent of max finite, from its binary form
    emax = int(emax_exp.split("p")[1])
    half_min_sub = 2.0 ** (emin - p - 1)
    half_top_ulp = 2.0 ** (emax - p - 1)
    if name == "bf16":
        # BF16 storage treats FP32 subnormals as zero (DAZ); normals stay normal.
        zero_below = normal_below = 0x00800000
    else:
        # |x| <= half the smallest subnormal rounds to zero (the tie goes to the even 0);
        # |x| >= 2^emin - that half rounds up to the min normal (ties to the even 2^emin).
        zero_below = _bits(half_min_sub) + 1
        normal_below = _bits(2.0 ** emin - half_min_sub)
    # Half way past max finite is a tie: rounds up (overflows) when max finite's
    # last mantissa bit is odd, down when it is even (E4M3FN's 448).
    tie = _bits(max_finite + half_top_ulp)
    overflow_from = tie if last_bit else tie + 1
    return zero_below, normal_below, overflow_from


_THRESHOLDS = [t for name in CAST_TARGETS for t in cast_thresholds(name)]
# Three more boundaries sort out the specials: bits < 1 is a zero, bits <
# 0x7f800000 is finite, bits < 0x7f800001 is not NaN.
_SORTED = sorted(set(_THRESHOLDS + [1, 0x7F800000, 0x7F800001]))
_RANK = [_SORTED.index(t) for t in _THRESHOLDS]
_BUCKETS = len(_SORTED) + 1  # bucket b = how many boundaries are <= bits
_ZERO_BUCKET = 0
_INF_BUCKET = _SORTED.index(0x7F800000) + 1
_NAN_BUCKET = _SORTED.index(0x7F800001) + 1

_device_cache = {}


def _constants(device):
    c = _device_cache.get(device)
    if c is None:
        c = (torch.tensor(_SORTED, dtype=torch.int32, device=device),
             torch.tensor(_RANK, dtype=torch.int64, device=device))
        _device_cache[device] = c
    return c


def _count(index, length):
    """counts[i] = #{index == i}, 0 <= i < length."""
    if index.device.type == "cpu":
        return torch.bincount(index, minlength=length)
    # scatter_add_ does not synchronise with the host (bincount would)
    counts = torch.zeros(length, dtype=torch.int64, device=index.device)
    return counts.scatter_add_(0, index, torch.ones_like(index))


@torch.no_grad()
def tensor_stats(tensor, scale=None):
    """One int64 vector (length STATS_LEN) on the tensor's device: the exponent
    histogram, zero/inf/NaN counters, total and cast threshold counts of the
    tensor's values as FP32, multiplied by `scale` in FP32 first when given.

    One counting pass: each value's key is (binade, bucket), the bucket being
    how many boundaries (cast thresholds, and those of zero, inf and NaN) its
    |x| bit pattern reaches. A bucket of zeros, infs or NaNs holds nothing
    else, so their binade (frexp's exponent is meaningless there) is ignored."""
    x = tensor.detach().reshape(-1)
    if x.dtype == torch.float64:
        # Counted in FP64: the binade of the true value (frexp in FP64), and a
        # finite value past FP32's range stays finite (it is not FP32's inf or
        # zero): its magnitude is saturated into [2^-149, FP32 max] for the
        # cast thresholds (it overflows, or becomes zero in, every target)
        # and its binade clamped to the histogram's ends.
        if scale is not None and scale != 1.0:
            x = x * float(scale)
        x = x.contiguous()
        _, k = torch.frexp(x)
        finite_nonzero = torch.isfinite(x) & (x != 0)
        saturated = x.abs().clamp(_FP32_MIN_SUBNORMAL, _FP32_MAX).copysign(x)
        x = torch.where(finite_nonzero, saturated, x).float()
    else:
        if x.dtype != torch.float32:
            x = x.float()  # exact for fp16/bf16/fp8 inputs
        if scale is not None and scale != 1.0:
            x = x * torch.tensor(scale, dtype=torch.float32, device=x.device)
        x = x.contiguous()
        _, k = torch.frexp(x)
    sorted_t, rank = _constants(x.device)
    bits = x.abs().view(torch.int32)  # sign cleared: bit order is value order; NaN above all
    bucket = torch.bucketize(bits, sorted_t, right=True)
    key = k.to(torch.int64).add_(-1 - MIN_EXPONENT).clamp_(0, BIN_COUNT - 1)
    key.mul_(_BUCKETS).add_(bucket)
    counts = _count(key, BIN_COUNT * _BUCKETS).view(BIN_COUNT, _BUCKETS)
    per_bucket = counts.sum(0)
    out = torch.empty(STATS_LEN, dtype=torch.int64, device=x.device)
    out[:BIN_COUNT] = counts[:, _ZERO_BUCKET + 1:_INF_BUCKET].sum(1)
    neg_inf = (x == float("-inf")).sum()
    out[ZEROS] = per_bucket[_ZERO_BUCKET]
    out[POS_INF] = per_bucket[_INF_BUCKET] - neg_inf
    out[NEG_INF] = neg_inf
    out[NAN] = per_bucket[_NAN_BUCKET]
    out[TOTAL] = x.numel()
    # #{bits < T_j} = #{bucket <= rank_j}
    out[BELOW:BITS] = torch.cumsum(per_bucket, 0)[rank]
    # int64 sums wrap modulo 2^64, as the unsigned sum the log records does
    out[BITS] = x.view(torch.int32).to(torch.int64).bitwise_and_(0xFFFFFFFF).sum()
    return out


def cast_counts(stats):
    """Per cast target: dict total, zeros, nan, to_zero, to_subnormal, overflow
    (from a host-side stats vector as a list of ints)."""
    result = {}
    for k, name in enumerate(CAST_TARGETS):
        below_zero, below_normal, below_overflow = stats[BELOW + 3 * k:BELOW + 3 * k + 3]
        result[name] = {
            "total": stats[TOTAL],
            "zeros": stats[ZEROS],
            "nan": stats[NAN],
            "to_zero": below_zero,
            "to_subnormal": below_normal - below_zero,
            "overflow": stats[TOTAL] - stats[NAN] - below_overflow,
        }
    return result


def cast_fractions(counts):
    """[to_zero, to_subnormal, overflow, nonzero_lost_to_zero] as the log stores them."""
    total = counts["total"]
    if total == 0:
        return [0.0, 0.0, 0.0, 0.0]
    nonzero = total - counts["zeros"] - counts["nan"]
    lost = counts["to_zero"] - counts["zeros"]
    return [counts["to_zero"] / total, counts["to_subnormal"] / total,
            counts["overflow"] / total, lost / nonzero if nonzero else 0.0]


def tensor_json(stats, layer, cls, scaled, loss_scale):
    """One entry of a telemetry frame's "tensors" (schema of Mantissa's run log)."""
    bins = stats[:BIN_COUNT]
    used = [i for i, c in enumerate(bins) if c]
    if used:
        lo, hi = used[0], used[-1]
        lo_exp, counts = lo + MIN_EXPONENT, bins[lo:hi + 1]
    else:
        lo_exp, counts = None, []
    casts = cast_counts(stats)
    return {
        "layer": layer,
        "class": cls,
        "scaled": scaled,
        "loss_scale": loss_scale,
        "lo": lo_exp,
        "counts": counts,
        "zeros": stats[ZEROS],
        "pos_inf": stats[POS_INF],
        "neg_inf": stats[NEG_INF],
        "nan": stats[NAN],
        "total": stats[TOTAL],
        "cast": {name: cast_fractions(casts[name]) for name in CAST_TARGETS},
        "bits": stats[BITS] & 0xFFFFFFFFFFFFFFFF,
    }
