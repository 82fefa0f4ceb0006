// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The built `mantissa` binary answers --version and --help without a display
// (packaging and man pages rely on it) and rejects unknown options.

#include <mantissa/numeric/cpu_features.h>

#include <QProcess>
#include <QProcessEnvironment>

#include <gtest/gtest.h>

namespace {

struct GuiRun {
  int exitCode = -1;
  QString out;
  QString err;
};

GuiRun runGui(const QStringList& args) {
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"})
    env.remove(QLatin1String(name));
  p.setProcessEnvironment(env);
  p.start(QStringLiteral(MANTISSA_GUI), args);
  EXPECT_TRUE(p.waitForFinished(30000));
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1,
          QString::fromUtf8(p.readAllStandardOutput()),
          QString::fromUtf8(p.readAllStandardError())};
}

TEST(GuiBinary, VersionNamesTheProjectOneDnnAndTheIsaWithoutADisplay) {
  const GuiRun r = runGui({QStringLiteral("--version")});
  EXPECT_EQ(r.exitCode, 0) << r.err.toStdString();
  EXPECT_TRUE(r.out.startsWith(QStringLiteral("mantissa " MANTISSA_VERSION "\n")))
      << r.out.toStdString();
  EXPECT_TRUE(r.out.contains(QStringLiteral("oneDNN %1").arg(QString::fromStdString(
                  mantissa::numeric::onednnVersion()))))
      << r.out.toStdString();
  EXPECT_TRUE(r.out.contains(QStringLiteral("AVX512_BF16: "))) << r.out.toStdString();
}

TEST(GuiBinary, HelpListsTheOptions) {
  const GuiRun r = runGui({QStringLiteral("--help")});
  EXPECT_EQ(r.exitCode, 0) << r.err.toStdString();
  EXPECT_TRUE(r.out.contains(QStringLiteral("--version"))) << r.out.toStdString();
  EXPECT_TRUE(r.out.contains(QStringLiteral("--help"))) << r.out.toStdString();
}

TEST(GuiBinary, UnknownOptionIsNamedAndExitsWithTwo) {
  const GuiRun r = runGui({QStringLiteral("-platform"), QStringLiteral("offscreen"),
                        QStringLiteral("--no-such-option")});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_TRUE(r.err.contains(QStringLiteral("no-such-option"))) << r.err.toStdString();
}

} // namespace
