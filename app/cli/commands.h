// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Every subcommand of mantissa-cli: name, one-line summary, entry point.
// Each entry point gets the arguments after the subcommand's name and returns
// the process exit code.

#include <string>
#include <vector>

namespace mantissa::cli {

using Args = std::vector<std::string>;

int runVersion(const Args& args);
int runInspect(const Args& args);
int runConvert(const Args& args);
int runTrain(const Args& args);
int runBench(const Args& args);
int runPlot(const Args& args);
int runReport(const Args& args);

std::string versionText(); // the lines `--version` prints

} // namespace mantissa::cli
