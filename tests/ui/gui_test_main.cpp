// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// main() for every GUI test: isolated settings and paths (cleared before each
// case), one QApplication
// (platform from QT_QPA_PLATFORM, which ctest sets to offscreen; offscreen too
// when unset, e.g. when gtest_discover_tests lists the tests at build time),
// then gtest.

#include <QApplication>
#include <QDir>
#include <QSettings>
#include <QStandardPaths>

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace {

// Every case starts from empty settings, as it does under ctest (a process
// per case): run as one process, a case must not see what an earlier one
// left (the Train page remembers the last setup, a GPT among it).
class FreshSettings : public ::testing::EmptyTestEventListener {
  void OnTestStart(const ::testing::TestInfo&) override { QSettings().clear(); }
};

} // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
    qputenv("QT_QPA_PLATFORM", "offscreen");
  // Test mode keeps settings under $HOME/.qttest, which every test process
  // would share: ctest runs test cases in parallel, and one case's
  // QSettings().clear() would wipe another's. A fresh HOME per process keeps
  // each case's settings its own.
  std::string home = std::string(P_tmpdir) + "/mantissa-gui-test-XXXXXX";
  if (mkdtemp(home.data()))
    setenv("HOME", home.c_str(), 1);
  QStandardPaths::setTestModeEnabled(true);
  QApplication::setOrganizationName(QStringLiteral("MantissaTests"));
  QApplication::setApplicationName(QStringLiteral("MantissaTests"));
  QApplication app(argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::UnitTest::GetInstance()->listeners().Append(new FreshSettings);
  const int rc = RUN_ALL_TESTS();
  if (home.find("XXXXXX") == std::string::npos)
    QDir(QString::fromStdString(home)).removeRecursively();
  return rc;
}
