// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// How many threads the kernels of a training step use (oneDNN's products
// and the step's parallel element-wise work, both OpenMP). One setting for
// the process (mantissa-cli --threads, the GUI's File > Compute Threads);
// OpenMP keeps a thread count per calling thread, so each thread that runs
// steps applies it (Session::step and evaluate do, so do the benchmarks).
// Unset (0), OpenMP's default stands: OMP_NUM_THREADS when set, else one
// thread per CPU.

namespace mantissa::kernels {

inline constexpr int kMaxKernelThreads = 1024;

// CPUs this process may run on (its affinity mask), at least 1.
int availableCpus();

// 0: OpenMP's default; 1..kMaxKernelThreads: that many. Throws
// std::invalid_argument naming the value otherwise.
void setKernelThreads(int threads);
// The setting (0 when unset).
int kernelThreadsSetting();
// The threads a step uses: the setting, else OpenMP's default.
int kernelThreads();

// Makes the calling thread's parallel regions use kernelThreads().
void applyKernelThreads();

} // namespace mantissa::kernels
