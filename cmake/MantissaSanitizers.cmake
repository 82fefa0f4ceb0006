# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 The Mantissa authors
#
# MANTISSA_SANITIZE=address builds everything with ASan+UBSan, =thread with TSan.
# Applied through one interface target that every Mantissa target links.
add_library(mantissa_sanitizers INTERFACE)
if(MANTISSA_SANITIZE STREQUAL "address")
  target_compile_options(mantissa_sanitizers INTERFACE
    -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
  target_link_options(mantissa_sanitizers INTERFACE -fsanitize=address,undefined)
elseif(MANTISSA_SANITIZE STREQUAL "thread")
  target_compile_options(mantissa_sanitizers INTERFACE -fsanitize=thread -fno-omit-frame-pointer)
  target_link_options(mantissa_sanitizers INTERFACE -fsanitize=thread)
elseif(NOT MANTISSA_SANITIZE STREQUAL "")
  message(FATAL_ERROR "MANTISSA_SANITIZE must be '', 'address' or 'thread', not '${MANTISSA_SANITIZE}'")
endif()
