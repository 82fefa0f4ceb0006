// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "onednn_context.h"

#include <mantissa/kernels/matmul.h>

namespace mantissa::kernels {

OneDnnContext::OneDnnContext() : m_engine(dnnl::engine::kind::cpu, 0) {}

dnnl::stream& OneDnnContext::stream() {
  thread_local dnnl::stream threadStream(m_engine);
  return threadStream;
}

OneDnnContext& OneDnnContext::instance() {
  static OneDnnContext context;
  return context;
}

KernelCounters kernelCounters() {
  const OneDnnContext& c = OneDnnContext::instance();
  return {c.primitivesCreated(), c.scratchAllocations()};
}

} // namespace mantissa::kernels
