// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The built `mantissa` binary answers --version and --help without a display
// (packaging and man pages rely on it) and rejects unknown options.

#include <mantissa/kernels/matmul_path.h>
#include <mantissa/numeric/cpu_features.h>

#include "spawn_process.h"
#include "../build_tree.h"

#include <QString>

#include <gtest/gtest.h>

namespace {

struct GuiRun {
  int exitCode = -1;
  QString out;
  QString err;
};

// As a user at a terminal without a display would run it.
GuiRun runGui(const std::vector<std::string>& args) {
  const auto r = mantissa::test::spawnProcess(mantissa::test::guiBinary(), args,
                                              {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"},
                                              30000);
  EXPECT_FALSE(r.timedOut);
  return {r.exitCode, QString::fromStdString(r.out), QString::fromStdString(r.err)};
}

TEST(GuiBinary, VersionNamesTheProjectOneDnnAndTheIsaWithoutADisplay) {
  const GuiRun r = runGui({"--version"});
  EXPECT_EQ(r.exitCode, 0) << r.err.toStdString();
  EXPECT_TRUE(r.out.startsWith(QStringLiteral("mantissa " MANTISSA_VERSION "\n")))
      << r.out.toStdString();
  EXPECT_TRUE(r.out.contains(QStringLiteral("oneDNN %1").arg(QString::fromStdString(
                  mantissa::numeric::onednnVersion()))))
      << r.out.toStdString();
  // The one BF16 label the About dialog, status bar and CLI show too.
  EXPECT_TRUE(r.out.contains(QString::fromStdString(mantissa::kernels::bf16Support().label)))
      << r.out.toStdString();
}

TEST(GuiBinary, HelpListsTheOptions) {
  const GuiRun r = runGui({"--help"});
  EXPECT_EQ(r.exitCode, 0) << r.err.toStdString();
  EXPECT_TRUE(r.out.contains(QStringLiteral("--version"))) << r.out.toStdString();
  EXPECT_TRUE(r.out.contains(QStringLiteral("--help"))) << r.out.toStdString();
}

TEST(GuiBinary, UnknownOptionIsNamedAndExitsWithTwo) {
  const GuiRun r = runGui({"-platform", "offscreen", "--no-such-option"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_TRUE(r.err.contains(QStringLiteral("no-such-option"))) << r.err.toStdString();
}

} // namespace
