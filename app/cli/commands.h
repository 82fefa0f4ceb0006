// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Every subcommand of mantissa-cli: name, one-line summary, entry point.
// Each entry point gets the arguments after the subcommand's name and returns
// the process exit code.

#include <optional>
#include <string>
#include <vector>

namespace mantissa::train {
struct RunLog;
}

namespace mantissa::cli {

using Args = std::vector<std::string>;

int runVersion(const Args& args);
int runInspect(const Args& args);
int runConvert(const Args& args);
int runQuantize(const Args& args);
int runTrain(const Args& args);
int runBench(const Args& args);
int runPlot(const Args& args);
int runReport(const Args& args);
int runScales(const Args& args);
int runCheckpoint(const Args& args);
int runSample(const Args& args);
int runModel(const Args& args);
int runExercises(const Args& args);
int runDiff(const Args& args);
int runSweep(const Args& args);

std::string versionText(); // the lines `--version` prints

class ArgParser;
// Registers --matmul native|fp32-compute|auto, --fp16-accumulation
// N|never and --threads N (train and bench).
void addMatmulOption(ArgParser& p);
// Applies --matmul (default auto; auto remembers its choices in the user's
// cache directory), --fp16-accumulation (kernels::setFp16PromoteEvery) and
// --threads (kernels::setKernelThreads). nullopt on success, else the exit code after a message.
std::optional<int> applyMatmulOption(const ArgParser& p, const char* command);

// Built with the GUI (MANTISSA_CLI_HAS_UI): plot, report and train --export.
// Writes every chart (SVG, PNG, CSV) and report.html into dir; an exit code.
int exportTrainedRun(const train::RunLog& log, const std::string& dir);
// Before a headless Qt application: a private XDG_RUNTIME_DIR (removed at
// exit) when the environment has no usable one, so Qt does not warn.
void usePrivateRuntimeDir();
// loadRunLog() with its error printed as "mantissa-cli COMMAND: ..."; nullopt then.
std::optional<train::RunLog> loadRunLogForCli(const char* command, const std::string& path);

} // namespace mantissa::cli
