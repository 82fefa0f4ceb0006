// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The one CPU engine and stream every oneDNN primitive in Mantissa runs on,
// plus the counters behind kernelCounters(). Private to core: the public
// headers never mention oneDNN types.
//
// Primitives are thread-safe, streams are not meant to be shared between
// threads: each thread gets its own in-order stream on the shared engine,
// created on that thread's first call (the trainer and a background benchmark
// can run at once). Execution happens on the calling thread; OpenMP fans out.

#include <oneapi/dnnl/dnnl.hpp>

#include <atomic>
#include <cstdint>

namespace mantissa::kernels {

class OneDnnContext {
public:
  static OneDnnContext& instance();

  const dnnl::engine& engine() const { return m_engine; }
  dnnl::stream& stream(); // the calling thread's stream

  // Every primitive creation and every scratch buffer allocation goes through
  // these, so a test can check the steady-state step does neither.
  void notePrimitiveCreated() { m_primitivesCreated.fetch_add(1, std::memory_order_relaxed); }
  void noteScratchAllocation() { m_scratchAllocations.fetch_add(1, std::memory_order_relaxed); }
  std::int64_t primitivesCreated() const { return m_primitivesCreated.load(); }
  std::int64_t scratchAllocations() const { return m_scratchAllocations.load(); }

private:
  OneDnnContext();

  dnnl::engine m_engine;
  std::atomic<std::int64_t> m_primitivesCreated{0};
  std::atomic<std::int64_t> m_scratchAllocations{0};
};

} // namespace mantissa::kernels
