// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "cli_runner.h"
#include "../build_tree.h"

#include <mantissa/build_flags.h>

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <thread>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace mantissa::test {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string tempPath(const char* tag) {
  std::string pattern = std::string(P_tmpdir) + "/mantissa-cli-" + tag + "-XXXXXX";
  int fd = mkstemp(pattern.data());
  if (fd < 0)
    throw std::runtime_error("mkstemp failed");
  close(fd);
  return pattern;
}

} // namespace

CliResult runCli(const std::vector<std::string>& args, const std::string& stdinText) {
  // The same child as a capped run, with no cap and no time limit a test
  // could reach: stdin from a file holding stdinText.
  const std::string inPath = tempPath("in");
  {
    std::ofstream in(inPath, std::ios::binary);
    in << stdinText;
  }
  CliLimits unlimited;
  unlimited.timeoutMs = std::numeric_limits<int>::max();
  unlimited.addressSpaceBytes = 0;
  unlimited.stdinPath = inPath;
  CliResult r = runCliLimited(args, unlimited);
  std::remove(inPath.c_str());
  return r;
}

CliResult runCliLimited(const std::vector<std::string>& args, const CliLimits& limits) {
  const std::string outPath = tempPath("out"), errPath = tempPath("err");
  std::vector<std::string> argvStore{mantissa::test::cliBinary()};
  argvStore.insert(argvStore.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argvStore)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> environment = limits.environment;

  const pid_t pid = fork();
  if (pid == 0) {
    const int in = open(limits.stdinPath.empty() ? "/dev/null" : limits.stdinPath.c_str(), O_RDONLY);
    const int out = open(outPath.c_str(), O_WRONLY | O_TRUNC);
    const int err = open(errPath.c_str(), O_WRONLY | O_TRUNC);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    for (auto& e : environment)
      putenv(e.data());
    if (!mantissa::builtWithSanitizer()) {
      if (limits.addressSpaceBytes > 0) {
        rlimit cap{rlim_t(limits.addressSpaceBytes), rlim_t(limits.addressSpaceBytes)};
        setrlimit(RLIMIT_AS, &cap);
      }
    }
    if (limits.cpuSeconds > 0) {
      rlimit cap{rlim_t(limits.cpuSeconds), rlim_t(limits.cpuSeconds)};
      setrlimit(RLIMIT_CPU, &cap);
    }
    if (limits.fileSizeBytes > 0) {
      std::signal(SIGXFSZ, SIG_IGN); // a write past the cap fails (EFBIG) instead
      rlimit cap{rlim_t(limits.fileSizeBytes), rlim_t(limits.fileSizeBytes)};
      setrlimit(RLIMIT_FSIZE, &cap);
    }
    execv(argv[0], argv.data());
    _exit(127);
  }
  CliResult r;
  int status = 0;
  rusage usage{};
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(limits.timeoutMs);
  for (;;) {
    const pid_t done = wait4(pid, &status, WNOHANG, &usage);
    if (done == pid)
      break;
    if (std::chrono::steady_clock::now() >= deadline) {
      r.timedOut = true;
      kill(pid, SIGKILL);
      wait4(pid, &status, 0, &usage);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20)); // polling the child's exit
  }
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.peakResidentBytes = static_cast<long long>(usage.ru_maxrss) * 1024;
  r.out = slurp(outPath);
  r.err = slurp(errPath);
  std::remove(outPath.c_str());
  std::remove(errPath.c_str());
  return r;
}

} // namespace mantissa::test
