// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Memory of `auto`'s choices (matmul_path.h): per product key, which path
// was faster and the two times it was decided on. In memory always; in the
// cache file when one is set.

#include <mantissa/kernels/matmul.h>

#include <optional>
#include <string>

namespace mantissa::kernels::detail {

struct MatmulChoice {
  bool fp32Compute = false;
  double nativeMs = 0;
  double fp32Ms = 0;
};

// "m,n,k,tS,tW,inputs,dst,acc,threads"
std::string choiceKey(const MatmulShape& shape, DType inputs, DType dst, bool accumulate);
std::optional<MatmulChoice> rememberedChoice(const std::string& key);
void rememberChoice(const std::string& key, const MatmulChoice& choice);
// True once setMatmulPath was called: a Native or FP32-compute path is then
// the user's choice and labelled "forced".
bool matmulPathSetByUser();

} // namespace mantissa::kernels::detail
