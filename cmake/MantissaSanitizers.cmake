# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 The Mantissa authors
#
# MANTISSA_SANITIZE=address builds everything with ASan+UBSan, =thread with TSan.
# Applied through one interface target that every Mantissa target links.
# float-cast-overflow (a float->int cast out of range, NaN included, is UB) is
# not part of -fsanitize=undefined in GCC, so it is named; float division by
# zero is left out on purpose: IEEE inf/NaN are what this lab is about.
# _GLIBCXX_ASSERTIONS adds libstdc++'s bounds checks (operator[], front() ...)
# that ASan misses inside a container's capacity. MANTISSA_SANITIZED=1 lets a
# test that sweeps a huge input space (test_numeric_exhaustive) run a reduced,
# evenly spread sample when every access costs a shadow check.
add_library(mantissa_sanitizers INTERFACE)
if(MANTISSA_SANITIZE STREQUAL "address")
  target_compile_options(mantissa_sanitizers INTERFACE
    -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all
    -fno-omit-frame-pointer)
  target_compile_definitions(mantissa_sanitizers INTERFACE _GLIBCXX_ASSERTIONS MANTISSA_SANITIZED=1)
  target_link_options(mantissa_sanitizers INTERFACE -fsanitize=address,undefined,float-cast-overflow)
elseif(MANTISSA_SANITIZE STREQUAL "thread")
  target_compile_options(mantissa_sanitizers INTERFACE -fsanitize=thread -fno-omit-frame-pointer)
  target_compile_definitions(mantissa_sanitizers INTERFACE MANTISSA_SANITIZED=1)
  target_link_options(mantissa_sanitizers INTERFACE -fsanitize=thread)
elseif(NOT MANTISSA_SANITIZE STREQUAL "")
  message(FATAL_ERROR "MANTISSA_SANITIZE must be '', 'address' or 'thread', not '${MANTISSA_SANITIZE}'")
endif()

# MANTISSA_FUZZ=ON (clang only): everything gets libFuzzer's coverage hooks plus
# ASan+UBSan, and tests/fuzz builds a fuzz_<name> binary per target.
if(MANTISSA_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "MANTISSA_FUZZ needs clang (configure with -DCMAKE_CXX_COMPILER=clang++)")
  endif()
  if(NOT MANTISSA_SANITIZE STREQUAL "")
    message(FATAL_ERROR "MANTISSA_FUZZ already enables ASan+UBSan; leave MANTISSA_SANITIZE empty")
  endif()
  target_compile_options(mantissa_sanitizers INTERFACE
    -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
    -fno-omit-frame-pointer)
  target_link_options(mantissa_sanitizers INTERFACE -fsanitize=address,undefined)
endif()
