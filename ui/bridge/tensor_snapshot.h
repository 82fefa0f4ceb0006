// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include <mantissa/telemetry/histogram.h>

#include <QString>

#include <cstdint>
#include <vector>

namespace mantissa::ui {

// A copy of one tensor of a live run, as the training thread held it between
// two steps: a layer's weights W [inputs, outputs] or their gradients, row-major.
struct TensorSnapshot {
  int run = -1;
  int layer = 0;
  telemetry::TensorClass cls = telemetry::TensorClass::Weights;
  std::int64_t stepsDone = 0; // steps the run had taken when it was copied
  std::int64_t rows = 0, cols = 0;
  std::vector<double> values; // [rows * cols], FP32 values widened exactly
  QString subject;            // "fp8-delayed · layer 1 weights"
};

} // namespace mantissa::ui
