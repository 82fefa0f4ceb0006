// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Atomic file writes: content goes to a temporary file in the destination's
// directory, is flushed and fsync'ed, then renamed over the destination. A
// reader (or a crash) therefore sees either the old file or the complete new
// one, never a half-written file. Everything Mantissa saves (CSV exports, run
// configs, reports, images written by the core) goes through here.
//
// Errors throw AtomicFileError whose message names the destination path and
// the system's reason ("cannot write '/x/y.csv': No such file or directory").

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace mantissa::io {

class AtomicFileError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// Writes `content` to `path` atomically (temp file + fsync + rename).
void writeFileAtomically(const std::filesystem::path& path, std::string_view content);

// Streaming variant: write through stream(), then commit(). Destroying the
// writer without commit() (an exception, an early return) removes the temp
// file and leaves any existing file at `path` untouched.
class AtomicFileWriter {
public:
  explicit AtomicFileWriter(std::filesystem::path path); // opens the temp file; throws on failure
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  std::ostream& stream() { return m_out; }
  const std::filesystem::path& path() const { return m_path; }
  const std::filesystem::path& tempPath() const { return m_tempPath; }

  // Flushes, fsyncs and renames the temp file over path(); throws on any
  // failure (the temp file is then removed). Call at most once.
  void commit();

private:
  void discard() noexcept;

  std::filesystem::path m_path;     // destination
  std::filesystem::path m_tempPath; // "<dir>/.<name>.tmp-<pid>-<n>"
  std::ofstream m_out;
  bool m_done = false; // committed or discarded
};

} // namespace mantissa::io
