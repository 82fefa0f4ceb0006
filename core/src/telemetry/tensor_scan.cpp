// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "telemetry/scan.h"

#include <mantissa/telemetry/tensor_scan.h>

namespace mantissa::telemetry {

TensorScan& TensorScan::operator+=(const TensorScan& other) {
  hist += other.hist;
  for (std::size_t j = 0; j < below.size(); ++j)
    below[j] += other.below[j];
  bits += other.bits;
  return *this;
}

void scanInto(std::span<const float> values, TensorScan& scan) {
  detail::scan(values, 1.0f, detail::viewThresholds(), scan.hist, scan.below, &scan.bits);
}

} // namespace mantissa::telemetry
