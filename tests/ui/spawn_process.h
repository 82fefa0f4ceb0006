// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Runs a built binary from a GUI test and collects its exit code and output.
//
// posix_spawn, not QProcess: Qt 6.4's QProcess starts its child with a raw
// clone(CLONE_VM | CLONE_VFORK) that ThreadSanitizer does not intercept; the
// child then runs on this process's memory and TSan state, and afterwards
// TSan misses this thread's mutex locks (./dev tsan reported the trainer's
// own m_mutex-guarded fields as racing). See tests/sanitizers/tsan.supp.

#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

extern char** environ;

namespace mantissa::test {

struct SpawnResult {
  int exitCode = -1; // -1: did not start, was killed by a signal, or timed out
  bool timedOut = false;
  std::string out;
  std::string err;
};

// Runs `path args...` with this process's environment minus the variables
// named in `unset`, waits at most timeoutMs (then kills it) and returns what
// it wrote to stdout and stderr.
inline SpawnResult spawnProcess(const std::string& path, const std::vector<std::string>& args,
                                std::initializer_list<std::string_view> unset = {},
                                int timeoutMs = 120000) {
  SpawnResult result;
  std::vector<std::string> argStore = {path};
  argStore.insert(argStore.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argStore)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (char** e = environ; *e; ++e) {
    const std::string_view entry(*e);
    bool keep = true;
    for (std::string_view name : unset)
      keep = keep && !(entry.size() > name.size() && entry.substr(0, name.size()) == name &&
                       entry[name.size()] == '=');
    if (keep)
      envp.push_back(*e);
  }
  envp.push_back(nullptr);

  int outPipe[2], errPipe[2];
  if (pipe(outPipe) != 0)
    return result;
  if (pipe(errPipe) != 0) {
    close(outPipe[0]);
    close(outPipe[1]);
    return result;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, outPipe[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, errPipe[1], STDERR_FILENO);
  posix_spawn_file_actions_addclose(&actions, outPipe[0]);
  posix_spawn_file_actions_addclose(&actions, errPipe[0]);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, path.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(outPipe[1]);
  close(errPipe[1]);
  if (spawned != 0) {
    close(outPipe[0]);
    close(errPipe[0]);
    return result;
  }

  // Read both pipes until they close (or the time is up), so neither fills.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeoutMs);
  pollfd fds[2] = {{outPipe[0], POLLIN, 0}, {errPipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open = 2;
  while (open > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timedOut = true;
      kill(pid, SIGKILL);
      break;
    }
    if (poll(fds, 2, static_cast<int>(left.count())) < 0)
      continue; // EINTR
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0)
        continue;
      char buffer[4096];
      const ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        sinks[i]->append(buffer, static_cast<std::size_t>(n));
      } else if (n < 0 && errno == EINTR) {
        continue;
      } else {
        close(fds[i].fd);
        fds[i].fd = -1; // poll ignores negative descriptors
        --open;
      }
    }
  }
  for (const pollfd& f : fds)
    if (f.fd >= 0)
      close(f.fd);
  int status = 0;
  if (waitpid(pid, &status, 0) == pid && WIFEXITED(status) && !result.timedOut)
    result.exitCode = WEXITSTATUS(status);
  return result;
}

} // namespace mantissa::test
