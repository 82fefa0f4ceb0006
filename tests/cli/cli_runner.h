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
  bool timedOut = false;           // runCliLimited: killed at the time limit
  long long peakResidentBytes = 0; // runCliLimited: the child's peak resident set
};

// Runs the build tree's mantissa-cli with args; stdinText is fed to its standard input.
CliResult runCli(const std::vector<std::string>& args, const std::string& stdinText = {});

// How a hostile input is run: killed after timeoutMs (a hang fails the test
// instead of hanging it), its address space capped (an unbounded allocation
// fails there instead of taking the machine; not under sanitizers, whose
// shadow memory needs more), and its peak resident set reported.
// A CPU-time cap (cpuSeconds) and a cap on the size a file may grow to
// (fileSizeBytes: a write past it fails with EFBIG, as on a full disk) are
// set where nonzero.
struct CliLimits {
  int timeoutMs = 60000;
  long long addressSpaceBytes = 4ll << 30;
  long long cpuSeconds = 0;
  long long fileSizeBytes = 0;
  std::string stdinPath;                  // a file as standard input ("" : empty)
  std::vector<std::string> environment;   // NAME=VALUE set in the child
};
CliResult runCliLimited(const std::vector<std::string>& args, const CliLimits& limits);

} // namespace mantissa::test
