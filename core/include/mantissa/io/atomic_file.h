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
//
// In a folder others can write to:
//  - The temporary file is created with O_CREAT|O_EXCL|O_NOFOLLOW under an
//    unpredictable name (".mantissa-<16 random hex digits>.tmp", short enough
//    for a destination name of the maximum length, 255 bytes): a file or
//    symlink planted at any name is never opened, truncated or written.
//  - A destination that is a symlink is written through: its target is
//    replaced and the link stays. Only a link owned by the user (or root) is
//    followed, the rule of the kernel's protected_symlinks; a dangling link,
//    a link owned by someone else, or a destination that is not a regular file
//    (a directory, FIFO or device) is refused.
//  - An existing destination keeps its permission bits (a 0600 file stays
//    0600); a new one gets 0666 less the umask, as the shell's > does.
//  - Hard links: the destination is replaced by a new file (that is what makes
//    the write atomic), so other names of the old file keep the old content.

#include <filesystem>
#include <memory>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace mantissa::io {

class AtomicFileError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// Where a write to `path` goes: `path` itself, or the file its symlink chain
// ends at when every link on the way is owned by the user (or root), the rule
// above. Throws AtomicFileError naming `path` for a link owned by another
// user, a dangling link, a directory, or (unless allowSpecial: a FIFO or
// device, written as it is) any other file that is not a regular one. The
// atomic writer and streaming logs both follow it.
std::filesystem::path writeTarget(const std::filesystem::path& path, bool allowSpecial = false);

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

  class FdBuf;
  std::filesystem::path m_path;     // destination as given
  std::filesystem::path m_target;   // the file replaced (m_path, or where its symlink points)
  std::filesystem::path m_tempPath; // "<target's dir>/.mantissa-<random>.tmp"
  int m_fd = -1;
  std::unique_ptr<FdBuf> m_buf;
  std::ostream m_out;
  bool m_done = false; // committed or discarded
};

} // namespace mantissa::io
