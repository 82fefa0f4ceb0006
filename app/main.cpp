// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// mantissa: the desktop lab. Only main(): everything else lives in mantissa::ui.

#include "omp_wait_policy.h"
#include "ui/app_shell/main_window.h"
#include "ui/app_shell/run_files.h"

#include <mantissa/config.h>
#include <mantissa/kernels/matmul_path.h>
#include <mantissa/numeric/cpu_features.h>

#include <QApplication>
#include <QCommandLineParser>

#include <cstdio>
#include <cstring>
#include <optional>
#include <string>

namespace {

std::string versionText() {
  using namespace mantissa;
  return std::string("mantissa ") + kVersion + "\n" + "oneDNN " + numeric::onednnVersion() + " (" +
         numeric::onednnIsa() + ")\n" + "CPU: " + numeric::describeIsa() + "\n";
}

void setIdentity() {
  QCoreApplication::setOrganizationName(QStringLiteral("Mantissa"));
  QCoreApplication::setApplicationName(QStringLiteral("Mantissa"));
  QCoreApplication::setApplicationVersion(QString::fromLatin1(mantissa::kVersion));
}

// --help and --version answer without a display.
bool onlyPrints(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    for (const char* flag : {"-h", "--help", "-?", "--help-all", "-v", "--version"})
      if (std::strcmp(argv[i], flag) == 0)
        return true;
  return false;
}

// Returns an exit code when main should stop (help, version, bad arguments);
// *follow gets the log of --follow.
std::optional<int> handleCommandLine(QString* follow = nullptr) {
  QCommandLineParser parser;
  parser.setApplicationDescription(
      QStringLiteral("Mantissa: a desktop lab for mixed-precision training.\n"
                     "See how FP32, TF32, FP16, BF16 and FP8 store numbers, train models in "
                     "several precisions side by side, and measure the speed of each.\n"
                     "Qt options such as -platform offscreen are accepted too.\n"
                     "For scripting and headless use, see mantissa-cli --help."));
  const QCommandLineOption help = parser.addHelpOption();
  const QCommandLineOption version(QStringList{QStringLiteral("v"), QStringLiteral("version")},
                                   QStringLiteral("Print the version, oneDNN version and the "
                                                  "CPU's vector ISA, then exit."));
  parser.addOption(version);
  const QCommandLineOption followOption(
      QStringLiteral("follow"),
      QStringLiteral("Open the Train page following RUN.jsonl, a run log another process is "
                     "still writing (a PyTorch tap, mantissa-cli train --log)."),
      QStringLiteral("RUN.jsonl"));
  parser.addOption(followOption);
  const QCommandLineOption matmul(
      QStringLiteral("matmul"),
      QStringLiteral("16-bit matmuls: native (oneDNN's BF16 kernel), fp32-compute (16-bit "
                     "storage, FP32 kernel) or auto (time both per shape, use the faster; "
                     "default)."),
      QStringLiteral("path"), QStringLiteral("auto"));
  parser.addOption(matmul);
  if (!parser.parse(QCoreApplication::arguments())) {
    std::fprintf(stderr, "mantissa: %s\nTry 'mantissa --help'.\n", qPrintable(parser.errorText()));
    return 2;
  }
  if (parser.isSet(help))
    parser.showHelp(0); // exits
  if (parser.isSet(version)) {
    std::fputs(versionText().c_str(), stdout);
    return 0;
  }
  const auto path = mantissa::kernels::parseMatmulPath(parser.value(matmul).toStdString());
  if (!path) {
    std::fprintf(stderr, "mantissa: --matmul: '%s' is not one of native, fp32-compute, auto\n",
                 qPrintable(parser.value(matmul)));
    return 2;
  }
  mantissa::kernels::setMatmulPath(*path);
  if (*path == mantissa::kernels::MatmulPath::Auto)
    mantissa::kernels::setMatmulChoiceCache(mantissa::kernels::userCacheDir() /
                                            "matmul_paths.json");
  if (!parser.positionalArguments().isEmpty()) {
    std::fprintf(stderr, "mantissa: unexpected argument '%s'\nTry 'mantissa --help'.\n",
                 qPrintable(parser.positionalArguments().first()));
    return 2;
  }
  if (follow && parser.isSet(followOption))
    *follow = parser.value(followOption);
  return std::nullopt;
}

} // namespace

int main(int argc, char** argv) {
  mantissa::app::reexecWithPassiveOmpWait(argv);
  if (onlyPrints(argc, argv)) {
    QCoreApplication app(argc, argv);
    setIdentity();
    return handleCommandLine().value_or(0);
  }
  QApplication app(argc, argv);
  setIdentity();
  QApplication::setDesktopFileName(QStringLiteral("org.mantissa.Mantissa"));
  QString follow;
  if (const auto rc = handleCommandLine(&follow))
    return *rc;

  mantissa::ui::MainWindow window;
  window.show();
  if (!follow.isEmpty()) {
    if (const QString error = window.runFiles()->followRun(follow); !error.isEmpty()) {
      std::fprintf(stderr, "mantissa: --follow: %s\n", qPrintable(error));
      return 1;
    }
  }
  return QApplication::exec();
}
