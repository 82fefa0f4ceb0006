// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The formats the oracle tests cover, each written from its published
// definition (not read from the library): IEEE 754 binary16, bfloat16, OCP
// FP8 (E4M3 "fn", E5M2) and MX v1.0 (FP6, FP4), ml_dtypes' float8_e4m3fnuz /
// float8_e5m2fnuz / float8_e4m3b11fnuz / float8_e3m4, NVFP4's UE4M3, and
// user-defined specs that reach the corners of the model.

#include "format_oracle.h"

#include <array>

namespace format_oracle {

using R = Rule;
inline constexpr std::array<Definition, 20> kDefinitions{{
    {"fp16", true, 5, 10, 15, R::Ieee, true},
    {"bf16", true, 8, 7, 127, R::Ieee, true},
    {"fp8-e4m3", true, 4, 3, 7, R::Fn, true},
    {"fp8-e5m2", true, 5, 2, 15, R::Ieee, true},
    {"fp6-e2m3", true, 2, 3, 1, R::None, true},
    {"fp6-e3m2", true, 3, 2, 3, R::None, true},
    {"fp4-e2m1", true, 2, 1, 1, R::None, true},
    {"fp8-e4m3fnuz", true, 4, 3, 8, R::Fnuz, true},
    {"fp8-e5m2fnuz", true, 5, 2, 16, R::Fnuz, true},
    {"fp8-e4m3b11fnuz", true, 4, 3, 11, R::Fnuz, true},
    {"fp8-e3m4", true, 3, 4, 3, R::Ieee, true},
    {"ue4m3", false, 4, 3, 7, R::Fn, true},
    // User-defined formats: the examples and the model's corners.
    {"e4m3:bias=8,special=fnuz,subnormals=no", true, 4, 3, 8, R::Fnuz, false},
    {"e3m4:special=fn", true, 3, 4, 3, R::Fn, true},
    {"e2m5:special=none", true, 2, 5, 1, R::None, true},
    {"e6m1:bias=20,special=fn", true, 6, 1, 20, R::Fn, true},
    {"ue5m3:special=none,subnormals=no", false, 5, 3, 15, R::None, false},
    {"e5m0:special=fn", true, 5, 0, 15, R::Fn, true},
    {"e0m7:special=fnuz,bias=-3", true, 0, 7, -3, R::Fnuz, true},
    {"e5m10:bias=-4,special=ieee,subnormals=no", true, 5, 10, -4, R::Ieee, false},
}};

} // namespace format_oracle
