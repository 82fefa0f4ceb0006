// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Both mains call this first (mantissa-cli only for the commands that run
// oneDNN: train and bench). With libgomp's default OMP_WAIT_POLICY,
// oneDNN's OpenMP threads spin at every barrier; on a busy machine the
// spinning threads starve each other and small products slow down by
// orders of magnitude (measured on 2 shared cores: a bf16-mixed training
// step 639 ms with the default policy, 186 ms with passive). libgomp reads
// the variable once, when it is loaded, so it cannot be set from main():
// when it is unset, the process re-executes itself once with
// OMP_WAIT_POLICY=passive. A value the user set is left alone; if the
// re-exec fails the run continues with the default and the variable unset.

#include <cstdlib>
#include <unistd.h>

namespace mantissa::app {

inline void reexecWithPassiveOmpWait(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr)
    return;
  if (::setenv("OMP_WAIT_POLICY", "passive", 1) != 0)
    return;
  ::execv("/proc/self/exe", argv); // returns only on failure
  ::unsetenv("OMP_WAIT_POLICY");   // so benchmarks report the policy really in use
}

} // namespace mantissa::app
