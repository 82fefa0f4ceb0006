// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/build_flags.h>

namespace mantissa {

bool builtWithSanitizer() noexcept {
#ifdef MANTISSA_SANITIZED
  return true;
#else
  return false;
#endif
}

bool builtWithAddressSanitizer() noexcept {
#ifdef MANTISSA_ASAN
  return true;
#else
  return false;
#endif
}

} // namespace mantissa
