// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The JSONL log of a run trained in the GUI, kept in full while it trains:
// the very objects `mantissa-cli train --log` writes (train/run_log_rows.h),
// appended by the training thread to a file in a private temporary folder.
// Memory stays bounded however long the run (lines are buffered up to 64 KiB
// and at every flush()); Save Run copies the complete lines written so far,
// at any moment, mid-run included.

#include <mantissa/train/run_log.h>

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <string>

namespace mantissa::ui {

class LiveRunLog {
public:
  explicit LiveRunLog(std::filesystem::path path); // creates (truncates) the file
  ~LiveRunLog();                                   // closes and removes it
  LiveRunLog(const LiveRunLog&) = delete;
  LiveRunLog& operator=(const LiveRunLog&) = delete;

  // Appends one object as one line. Any thread (the trainer's, in practice).
  void write(const nlohmann::json& object);
  // Hands the buffered lines to the file. Any thread.
  void flush();

  // The complete lines so far. Throws io::AtomicFileError naming the log
  // when it could not be kept (a full disk): the run's log is incomplete.
  std::string contents() const;
  // contents() parsed, as loadRunLog() would read it; source = `name`.
  train::RunLog parse(const std::string& name) const;
  // Writes contents() to `path` atomically (streamed, not held in memory).
  void copyTo(const std::filesystem::path& path) const;

  const std::filesystem::path& path() const { return m_path; }
  std::string error() const; // "" while every line reached the file

private:
  void flushLocked(); // m_mutex held
  std::uint64_t flushedBytes() const; // flushes; throws when the log has failed

  std::filesystem::path m_path;
  mutable std::mutex m_mutex;
  std::FILE* m_file = nullptr; // guarded by m_mutex
  std::string m_pending;       // guarded by m_mutex: lines not yet in the file
  std::uint64_t m_written = 0; // guarded by m_mutex: bytes of complete lines in the file
  std::string m_error;         // guarded by m_mutex: first failure; nothing written after it
};

} // namespace mantissa::ui
