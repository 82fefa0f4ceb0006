# SPDX-License-Identifier: GPL-3.0-or-later
# SPDX-FileCopyrightText: 2026 The Mantissa authors
#
# mantissa_add_test(NAME name SOURCES ... LIBS ... [LABELS ...] [GUI] [TIMEOUT s])
#
# One GoogleTest executable, registered test by test with gtest_discover_tests.
# GUI tests are labelled `gui` and run on the offscreen platform with their own
# XDG dirs, so `ctest -L core` needs no display and no test touches real settings.
include(GoogleTest)
find_package(GTest REQUIRED)

function(mantissa_add_test)
  cmake_parse_arguments(T "GUI" "NAME;TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 600)
  endif()
  add_executable(${T_NAME} ${T_SOURCES})
  target_compile_features(${T_NAME} PRIVATE cxx_std_20)
  mantissa_set_warnings(${T_NAME})
  target_link_libraries(${T_NAME} PRIVATE ${T_LIBS} GTest::gtest mantissa_sanitizers)
  if(T_GUI)
    target_link_libraries(${T_NAME} PRIVATE mantissa_gui_test_main)
    set(labels gui ${T_LABELS})
    set(env "QT_QPA_PLATFORM=offscreen;XDG_CONFIG_HOME=${CMAKE_CURRENT_BINARY_DIR}/xdg/${T_NAME}/config;XDG_DATA_HOME=${CMAKE_CURRENT_BINARY_DIR}/xdg/${T_NAME}/data;XDG_RUNTIME_DIR=${CMAKE_CURRENT_BINARY_DIR}/xdg/${T_NAME}/run")
  else()
    target_link_libraries(${T_NAME} PRIVATE GTest::gtest_main)
    set(labels core ${T_LABELS})
    set(env "")
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
