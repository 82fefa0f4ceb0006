// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// main() for every GUI test: isolated settings and paths, one QApplication
// (platform from QT_QPA_PLATFORM, which ctest sets to offscreen; offscreen too
// when unset, e.g. when gtest_discover_tests lists the tests at build time),
// then gtest.

#include <QApplication>
#include <QStandardPaths>

#include <gtest/gtest.h>

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
    qputenv("QT_QPA_PLATFORM", "offscreen");
  QStandardPaths::setTestModeEnabled(true);
  QApplication::setOrganizationName(QStringLiteral("MantissaTests"));
  QApplication::setApplicationName(QStringLiteral("MantissaTests"));
  QApplication app(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
