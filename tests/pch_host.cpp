// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Builds the precompiled header that the test executables of one kind share
// (see cmake/MantissaTesting.cmake). It holds no tests and is never run.
