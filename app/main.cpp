// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// mantissa: the desktop lab. Only main(): everything else lives in mantissa::ui.

#include "ui/app_shell/main_window.h"

#include <mantissa/config.h>
#include <mantissa/numeric/cpu_features.h>

#include <QApplication>
#include <QCommandLineParser>

#include <cstdio>
#include <string>

namespace {

std::string versionText() {
  using namespace mantissa;
  return std::string("mantissa ") + kVersion + "\n" + "oneDNN " + numeric::onednnVersion() +
         " (" + numeric::onednnIsa() + ")\n" + "CPU: " + numeric::describeIsa() + "\n";
}

} // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("Mantissa"));
  QApplication::setApplicationName(QStringLiteral("Mantissa"));
  QApplication::setApplicationVersion(QString::fromLatin1(mantissa::kVersion));
  QApplication::setDesktopFileName(QStringLiteral("org.mantissa.Mantissa"));

  QCommandLineParser parser;
  parser.setApplicationDescription(
      QStringLiteral("Mantissa: a desktop lab for mixed-precision training.\n"
                     "See how FP32, TF32, FP16, BF16 and FP8 store numbers, train models in "
                     "several precisions side by side, and measure the speed of each.\n"
                     "For scripting and headless use, see mantissa-cli --help."));
  const QCommandLineOption help = parser.addHelpOption();
  const QCommandLineOption version(QStringList{QStringLiteral("v"), QStringLiteral("version")},
                                   QStringLiteral("Print the version, oneDNN version and the "
                                                  "CPU's vector ISA, then exit."));
  parser.addOption(version);
  if (!parser.parse(QApplication::arguments())) {
    std::fprintf(stderr, "mantissa: %s\nTry 'mantissa --help'.\n",
                 qPrintable(parser.errorText()));
    return 2;
  }
  if (parser.isSet(help))
    parser.showHelp(0); // exits
  if (parser.isSet(version)) {
    std::fputs(versionText().c_str(), stdout);
    return 0;
  }
  if (!parser.positionalArguments().isEmpty()) {
    std::fprintf(stderr, "mantissa: unexpected argument '%s'\nTry 'mantissa --help'.\n",
                 qPrintable(parser.positionalArguments().first()));
    return 2;
  }

  mantissa::ui::MainWindow window;
  window.show();
  return QApplication::exec();
}
