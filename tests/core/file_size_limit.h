// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// A full disk on demand: while a FileSizeLimit lives, file writes in this
// process fail past `bytes` (EFBIG, as a full disk fails them with ENOSPC)
// instead of raising SIGXFSZ. Used by the core and GUI fault tests.

#include <sys/resource.h>

#include <csignal>

namespace mantissa::testing {

class FileSizeLimit {
public:
  explicit FileSizeLimit(rlim_t bytes) {
    m_oldHandler = std::signal(SIGXFSZ, SIG_IGN);
    getrlimit(RLIMIT_FSIZE, &m_old);
    rlimit limit = m_old;
    limit.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &m_old);
    std::signal(SIGXFSZ, m_oldHandler);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

private:
  rlimit m_old{};
  void (*m_oldHandler)(int) = nullptr;
};

} // namespace mantissa::testing
