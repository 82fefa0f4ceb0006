# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 The Mantissa authors
#
# mantissa_add_test(NAME name SOURCES ... LIBS ... [LABELS ...] [GUI] [TIMEOUT s])
#
# One GoogleTest executable, registered test by test with gtest_discover_tests.
# GUI tests are labelled `gui` and run on the offscreen platform with their own
# XDG dirs, so `ctest -L core` needs no display and no test touches real settings.
#
# Every test executable of a kind (core or GUI) reuses one precompiled header
# of GoogleTest, the standard headers and the project headers most tests
# include, so they are parsed once per build rather than once per file. Each
# kind's header is built by a host executable (tests/pch_host.cpp, no tests)
# linked like that kind's tests and made in their directory, so the compile
# flags match. A test built with OpenMP reads the headers as text: its flags
# differ (GCC would ignore the header, clang would refuse it).
#
# Test executables link with gold where the toolchain has it: each links the
# whole static core and UI libraries, and gold does that about a quarter
# faster than the default linker.
include(GoogleTest)
include(CheckLinkerFlag)
find_package(GTest REQUIRED)
check_linker_flag(CXX "-fuse-ld=gold" MANTISSA_HAVE_GOLD)

# Release builds compile the tests' own code at -O1: GoogleTest-heavy code
# takes about a third less time to compile than at -O3, and the code under
# test (core, ui, the apps) keeps the build type's flags. Benchmarks are not
# tests and keep them too. The precompiled-header hosts take the same option,
# so the headers still match their tests' flags.
set(MANTISSA_TEST_COMPILE_OPTIONS "")
if(CMAKE_BUILD_TYPE STREQUAL "Release")
  set(MANTISSA_TEST_COMPILE_OPTIONS -O1)
endif()

# Test executables run oneDNN's OpenMP threads as the applications do
# (app/omp_wait_policy.h): OMP_WAIT_POLICY=passive. With libgomp's default
# policy, two tests side by side (ctest -j2 on two cores) spin at every
# barrier and starve each other: seven training tests took 135 s with the
# default policy and 21 s with passive, same machine, same load. The CLI
# tests leave it unset (tests/cli): mantissa-cli sets it by re-executing
# itself, and test_cli_bench checks that it did.
set(MANTISSA_TEST_OMP_ENV "OMP_WAIT_POLICY=passive")

function(mantissa_test_link_options target)
  if(MANTISSA_HAVE_GOLD)
    target_link_options(${target} PRIVATE -fuse-ld=gold)
  endif()
endfunction()

set(MANTISSA_TEST_PCH_core
  <gtest/gtest.h>
  <algorithm> <array> <atomic> <bit> <chrono> <cmath> <cstdint> <cstdlib> <cstring>
  <filesystem> <fstream> <functional> <limits> <map> <memory> <optional> <random>
  <set> <sstream> <stdexcept> <string> <thread> <utility> <vector>
  <nlohmann/json.hpp>
  <mantissa/amp/recipe.h> <mantissa/kernels/matmul.h> <mantissa/numeric/codec.h>
  <mantissa/train/run_log.h> <mantissa/train/session.h> <mantissa/train/trainer.h>)
set(MANTISSA_TEST_PCH_gui ${MANTISSA_TEST_PCH_core}
  <QApplication> <QComboBox> <QDir> <QFile> <QImage> <QLabel> <QPushButton>
  <QSettings> <QSignalSpy> <QTabWidget> <QTableWidget> <QTemporaryDir> <QTest> <QWidget>
  <QChart> <QLineSeries> <QValueAxis>
  <ui/app_shell/main_window.h> <ui/bridge/run_controller.h> <ui/panels/train_panel.h>)

# Test code is compiled once for the two halves of ./dev test. The
# ASan+UBSan half instruments only the product (MantissaSanitizers.cmake), so
# its test executables are the release tree's test objects linked against its
# own instrumented libraries: MANTISSA_TEST_OBJECTS_FROM names that release
# tree. Every tree lists each test target's objects in
# <tree>/test-objects/<target>.txt; a tree given MANTISSA_TEST_OBJECTS_FROM
# compiles no test code and links those objects instead. Test code asks the
# library at run time how it was built (mantissa/build_flags.h) and finds its
# own tree's applications (tests/build_tree.h), so the same objects serve both.
set(MANTISSA_TEST_OBJECTS_FROM "" CACHE PATH
    "A built release tree whose test objects the test executables link (ASan+UBSan builds)")
if(MANTISSA_TEST_OBJECTS_FROM AND NOT MANTISSA_SANITIZE STREQUAL "address")
  message(FATAL_ERROR "MANTISSA_TEST_OBJECTS_FROM is for MANTISSA_SANITIZE=address builds, whose test code "
                      "is not instrumented; this build is MANTISSA_SANITIZE='${MANTISSA_SANITIZE}'")
endif()

# mantissa_test_code(target sources...): the target's test code, compiled
# here or linked from MANTISSA_TEST_OBJECTS_FROM.
function(mantissa_test_code target)
  if(MANTISSA_TEST_OBJECTS_FROM)
    set(list "${MANTISSA_TEST_OBJECTS_FROM}/test-objects/${target}.txt")
    if(NOT EXISTS "${list}")
      message(FATAL_ERROR "MANTISSA_TEST_OBJECTS_FROM: ${list} does not exist; configure and build the "
                          "tests in ${MANTISSA_TEST_OBJECTS_FROM} first")
    endif()
    file(STRINGS "${list}" objects)
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${list}")
    target_sources(${target} PRIVATE ${objects})
    set_source_files_properties(${objects} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
    set_target_properties(${target} PROPERTIES LINKER_LANGUAGE CXX AUTOMOC OFF AUTOUIC OFF AUTORCC OFF)
  else()
    target_sources(${target} PRIVATE ${ARGN})
    file(GENERATE OUTPUT "${PROJECT_BINARY_DIR}/test-objects/${target}.txt"
         CONTENT "$<JOIN:$<TARGET_OBJECTS:${target}>,\n>\n")
  endif()
endfunction()

function(mantissa_test_pch_host kind)
  if(MANTISSA_TEST_OBJECTS_FROM)
    return() # no test code is compiled here
  endif()
  set(host mantissa_test_pch_${kind})
  add_executable(${host} ${PROJECT_SOURCE_DIR}/tests/pch_host.cpp)
  target_compile_features(${host} PRIVATE cxx_std_20)
  mantissa_set_warnings(${host})
  target_link_libraries(${host} PRIVATE ${ARGN} GTest::gtest GTest::gtest_main mantissa_sanitizers)
  target_precompile_headers(${host} PRIVATE ${MANTISSA_TEST_PCH_${kind}})
  target_compile_options(${host} PRIVATE ${MANTISSA_TEST_COMPILE_OPTIONS})
  mantissa_test_link_options(${host})
endfunction()
mantissa_test_pch_host(core mantissa::core)
# The GUI host is made in tests/ui (mantissa_test_pch_host(gui ...)): Qt6::Test
# defines QT_TESTCASE_BUILDDIR as the directory of the target using it.

function(mantissa_add_test)
  cmake_parse_arguments(T "GUI" "NAME;TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 600)
  endif()
  add_executable(${T_NAME})
  mantissa_test_code(${T_NAME} ${T_SOURCES})
  target_compile_features(${T_NAME} PRIVATE cxx_std_20)
  mantissa_set_warnings(${T_NAME})
  target_link_libraries(${T_NAME} PRIVATE ${T_LIBS} GTest::gtest mantissa_sanitizers)
  target_compile_options(${T_NAME} PRIVATE ${MANTISSA_TEST_COMPILE_OPTIONS})
  mantissa_test_link_options(${T_NAME})
  if(MANTISSA_TEST_OBJECTS_FROM)
    set(pch "")
  elseif(T_GUI)
    set(pch mantissa_test_pch_gui)
  elseif(NOT "OpenMP::OpenMP_CXX" IN_LIST T_LIBS)
    set(pch mantissa_test_pch_core)
  endif()
  if(pch)
    target_precompile_headers(${T_NAME} REUSE_FROM ${pch})
  endif()
  if(T_GUI)
    target_link_libraries(${T_NAME} PRIVATE mantissa_gui_test_main)
    set(labels gui ${T_LABELS})
    set(env ${MANTISSA_TEST_OMP_ENV} "QT_QPA_PLATFORM=offscreen;XDG_CONFIG_HOME=${CMAKE_CURRENT_BINARY_DIR}/xdg/${T_NAME}/config;XDG_DATA_HOME=${CMAKE_CURRENT_BINARY_DIR}/xdg/${T_NAME}/data;XDG_RUNTIME_DIR=${CMAKE_CURRENT_BINARY_DIR}/xdg/${T_NAME}/run")
  else()
    target_link_libraries(${T_NAME} PRIVATE GTest::gtest_main)
    set(labels core ${T_LABELS})
    set(env ${MANTISSA_TEST_OMP_ENV})
  endif()
  # gtest_discover_tests flattens list-valued PROPERTIES (CMake 3.25), losing
  # every label but the first and the environment: discover with no list
  # properties, then set them on the discovered tests from an include file
  # that ctest reads after the discovery's own.
  gtest_discover_tests(${T_NAME} DISCOVERY_TIMEOUT 60)
  set(props "${CMAKE_CURRENT_BINARY_DIR}/${T_NAME}_props.cmake")
  file(WRITE "${props}"
    "if(${T_NAME}_TESTS)\n"
    "  set_tests_properties(\${${T_NAME}_TESTS} PROPERTIES\n"
    "    LABELS [==[${labels}]==]\n"
    "    ENVIRONMENT [==[${env}]==]\n"
    "    TIMEOUT ${T_TIMEOUT})\n"
    "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${props}")
  if(T_GUI)
    file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/xdg/${T_NAME}/run)
    file(CHMOD ${CMAKE_CURRENT_BINARY_DIR}/xdg/${T_NAME}/run DIRECTORY_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
  endif()
endfunction()
