// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/kernels/step_isa.h>
#include <mantissa/numeric/cpu_features.h>

#include <atomic>
#include <stdexcept>
#include <string>

namespace mantissa::kernels {
namespace {

StepIsa widest() {
  const auto& f = numeric::cpuFeatures();
  if (f.avx512f)
    return StepIsa::Avx512;
  if (f.avx2)
    return StepIsa::Avx2;
  return StepIsa::Portable;
}

std::atomic<int> g_forced{-1};

} // namespace

const char* stepIsaName(StepIsa isa) {
  switch (isa) {
  case StepIsa::Portable: return "portable";
  case StepIsa::Avx2: return "AVX2";
  case StepIsa::Avx512: return "AVX-512";
  }
  return "?";
}

bool stepIsaAvailable(StepIsa isa) {
  const auto& f = numeric::cpuFeatures();
  switch (isa) {
  case StepIsa::Portable: return true;
  case StepIsa::Avx2: return f.avx2;
  case StepIsa::Avx512: return f.avx512f;
  }
  return false;
}

StepIsa stepIsa() {
  static const StepIsa best = widest();
  const int forced = g_forced.load(std::memory_order_relaxed);
  return forced < 0 ? best : static_cast<StepIsa>(forced);
}

void forceStepIsa(std::optional<StepIsa> isa) {
  if (isa && !stepIsaAvailable(*isa))
    throw std::invalid_argument(std::string("forceStepIsa: this CPU does not run ") +
                                stepIsaName(*isa));
  g_forced.store(isa ? static_cast<int>(*isa) : -1, std::memory_order_relaxed);
}

} // namespace mantissa::kernels
