// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// One product of a model (nn::MatmulUse) as the op table and the Speed page
// show it: the same words in both places.

#include <mantissa/nn/linear.h>

#include <QStringList>

namespace mantissa::ui {

// {"layer 1 dW", "1024×1024, K 128", "native BF16",
//  "brg:avx512_core_bf16; auto: ... for this shape; result BF16, rounded by the kernel"}
QStringList matmulRow(const nn::MatmulUse& use);

} // namespace mantissa::ui
