# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 The Mantissa authors
#
# MANTISSA_SANITIZE=address builds the product with ASan+UBSan, =thread
# everything with TSan.
# Two interface targets carry it:
#  - mantissa_instrumented: the compile options. Only the product's own code
#    links it (PRIVATE: core, ui, the two applications), so the code users run
#    is what the sanitizers check.
#  - mantissa_sanitizers: the runtime (link options) and the definitions. Core
#    links it PUBLIC, so everything that links core, tests included, links the
#    runtime and sees the same definitions.
# Under ASan+UBSan, test, benchmark and fuzz-driver code is not instrumented:
# a test's own code is not what the sanitizer half checks, and instrumenting
# it made a GoogleTest file take 2.5 times as long to compile. Its calls into
# the product are checked inside the product, and the runtime still
# intercepts every allocation and free, wherever it happens.
# float-cast-overflow (a float->int cast out of range, NaN included, is UB) is
# not part of -fsanitize=undefined in GCC, so it is named; float division by
# zero is left out on purpose: IEEE inf/NaN are what this lab is about.
# _GLIBCXX_ASSERTIONS adds libstdc++'s bounds checks (operator[], front() ...)
# that ASan misses inside a container's capacity. MANTISSA_SANITIZED=1 tells
# code that is not instrumented itself that the process runs under a
# sanitizer (MANTISSA_ASAN=1: under ASan): a test that sweeps a huge input
# space (test_numeric_exhaustive) runs a reduced, evenly spread sample, and
# no test caps the address space ASan's shadow needs.
add_library(mantissa_sanitizers INTERFACE)
add_library(mantissa_instrumented INTERFACE)
if(MANTISSA_SANITIZE STREQUAL "address")
  target_compile_options(mantissa_instrumented INTERFACE
    -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all
    -fno-omit-frame-pointer)
  target_compile_definitions(mantissa_sanitizers INTERFACE _GLIBCXX_ASSERTIONS MANTISSA_SANITIZED=1
                             MANTISSA_ASAN=1)
  target_link_options(mantissa_sanitizers INTERFACE -fsanitize=address,undefined,float-cast-overflow)
elseif(MANTISSA_SANITIZE STREQUAL "thread")
  # TSan instruments everything: an atomic that a test's own code stores and
  # a product thread loads would look like a race if the test's side went
  # unseen.
  target_compile_options(mantissa_sanitizers INTERFACE -fsanitize=thread -fno-omit-frame-pointer)
  target_compile_definitions(mantissa_sanitizers INTERFACE MANTISSA_SANITIZED=1)
  target_link_options(mantissa_sanitizers INTERFACE -fsanitize=thread)
elseif(NOT MANTISSA_SANITIZE STREQUAL "")
  message(FATAL_ERROR "MANTISSA_SANITIZE must be '', 'address' or 'thread', not '${MANTISSA_SANITIZE}'")
endif()

# MANTISSA_FUZZ=ON (clang only): the product's code gets libFuzzer's coverage
# hooks plus ASan+UBSan, and tests/fuzz builds a fuzz_<name> binary per target.
if(MANTISSA_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "MANTISSA_FUZZ needs clang (configure with -DCMAKE_CXX_COMPILER=clang++)")
  endif()
  if(NOT MANTISSA_SANITIZE STREQUAL "")
    message(FATAL_ERROR "MANTISSA_FUZZ already enables ASan+UBSan; leave MANTISSA_SANITIZE empty")
  endif()
  target_compile_options(mantissa_instrumented INTERFACE
    -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
    -fno-omit-frame-pointer)
  target_compile_definitions(mantissa_sanitizers INTERFACE MANTISSA_SANITIZED=1 MANTISSA_ASAN=1)
  target_link_options(mantissa_sanitizers INTERFACE -fsanitize=address,undefined)
endif()
