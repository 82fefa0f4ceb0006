// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Runs the built mantissa-cli binary and captures what it prints.

#include <string>
#include <vector>

namespace mantissa::test {

struct CliResult {
  int exitCode = -1; // -1 when the process died of a signal
  std::string out;
  std::string err;
};

// Runs MANTISSA_CLI with args; stdinText is fed to its standard input.
CliResult runCli(const std::vector<std::string>& args, const std::string& stdinText = {});

} // namespace mantissa::test
