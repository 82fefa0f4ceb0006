// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// What `train` writes, checked before any work: the JSONL log writer and the
// checks that an output is writable and is none of the run's inputs. Shared
// by the MLP and GPT paths of `train`.

#include <nlohmann/json.hpp>

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mantissa::cli {

// A line-flushed JSONL writer (C stdio: one fwrite + fflush per object).
// A regular file is written through a temporary file beside it, renamed over
// it once the first row is written: a run refused before it starts, or a
// disk too full for that row, leaves an existing log as it was. A FIFO,
// terminal or /dev/stdout is written as it is. A symlink owned by another
// user is refused (io::writeTarget, the atomic writer's rule).
class JsonlLog {
public:
  explicit JsonlLog(const std::string& path);
  ~JsonlLog();
  JsonlLog(const JsonlLog&) = delete;
  JsonlLog& operator=(const JsonlLog&) = delete;
  bool ok() const { return m_file != nullptr; }
  // Before the first row: empties a regular file reached as /dev/stdout.
  void start();
  // A full disk fails the write or the flush: the first reason is kept, so
  // the run can say its log is incomplete instead of exiting 0.
  void write(const nlohmann::json& j);
  const std::string& error() const { return m_error; } // "" while every line was written
  const std::string& openError() const { return m_openError; }

private:
  std::string m_path;
  std::string m_target;   // the regular file replaced (m_path, or where its symlink points)
  std::string m_tempPath; // until the first row: the file written, beside m_target
  std::FILE* m_file = nullptr;
  std::string m_error;
  std::string m_openError;
  bool m_direct = false;  // written as it is (FIFO, terminal, /dev/stdout)
  bool m_hadFile = false; // m_target existed before this run
};

// The files a run reads: --config, and for a --data path the path itself, every
// file of a data directory, or every file beside an IDX file (its labels and
// test set are found there); a CSV or text file is one file. Built-in data
// sets read no file.
std::vector<std::string> inputFiles(const std::optional<std::string>& config,
                                    const std::string& data);

// "" when `path` is none of the inputs, else the input it is (same device and inode).
std::string inputAt(const std::string& path, const std::vector<std::string>& inputs);

// train's --log: refused (with the reason on stderr, and null returned) when
// it is one of the inputs or cannot be opened for writing.
std::unique_ptr<JsonlLog> openRunLog(const std::string& path,
                                     const std::vector<std::string>& inputs);

// Checks that files can be created in dir (creating it if needed). "" when
// they can, else the reason.
std::string checkWritableDirectory(const std::string& dir);

} // namespace mantissa::cli
