// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// main() for every GUI test: isolated settings and paths, one QApplication
// (the platform comes from QT_QPA_PLATFORM=offscreen set by ctest), then gtest.

#include <QApplication>
#include <QStandardPaths>

#include <gtest/gtest.h>

int main(int argc, char** argv) {
  QStandardPaths::setTestModeEnabled(true);
  QApplication::setOrganizationName(QStringLiteral("MantissaTests"));
  QApplication::setApplicationName(QStringLiteral("MantissaTests"));
  QApplication app(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
