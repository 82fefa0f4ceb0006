// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// A sweep's runs.json on hostile text (train::parseSweepRuns, what
// mantissa-cli sweep --resume reads): either SweepError, or the options as
// a JSON object and runs keyed POLICY@SEED, each a number or NaN with the
// step it diverged at (never negative).

#include <mantissa/train/sweep.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const mantissa::train::SweepRuns r = mantissa::train::parseSweepRuns(text);
    if (r.sweep.empty() || r.sweep.front() != '{')
      std::abort();
    for (const auto& [key, run] : r.runs) {
      const std::size_t at = key.rfind('@');
      if (at == std::string_view::npos || at == 0 || at + 1 == key.size())
        std::abort();
      if ((run.divergedAt >= 0) == (run.valLoss == run.valLoss)) // diverged exactly when NaN
        std::abort();
    }
  } catch (const mantissa::train::SweepError&) {
  }
  return 0;
}
