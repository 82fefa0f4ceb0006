// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Reading a file someone else named (a run log, a --config file, a cache in
// $XDG_CACHE_HOME) without trusting what it is: opened with O_NONBLOCK so a
// FIFO with no writer does not block open(), then refused unless fstat says
// it is a regular file (a FIFO never ends, /dev/zero never ends, a symlink to
// either is followed to either), and refused when larger than the caller's
// limit before a byte is read. Messages name the file and what it was for:
//   run log 'x.jsonl' is not a regular file (a device, FIFO or socket)
//   run log 'x.jsonl': 300000000 bytes, over the limit of 256 MiB for run logs

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace mantissa::io {

class FileReadError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class RegularFile {
public:
  // `what` names the file's role in messages ("run log", "configuration").
  // Throws FileReadError when it cannot be opened or is not a regular file.
  RegularFile(const std::filesystem::path& path, std::string what);
  ~RegularFile();
  RegularFile(const RegularFile&) = delete;
  RegularFile& operator=(const RegularFile&) = delete;

  std::uintmax_t size() const;   // now (the file may be growing)
  std::uint64_t device() const { return m_device; }
  std::uint64_t inode() const { return m_inode; }
  // Up to maxBytes from `offset` (fewer at the end of the file).
  std::string readAt(std::uintmax_t offset, std::size_t maxBytes) const;
  // size(); throws FileReadError when it is over `maxBytes`.
  std::uintmax_t checkSize(std::uintmax_t maxBytes) const;

private:
  std::string m_name, m_what;
  int m_fd = -1;
  std::uint64_t m_device = 0, m_inode = 0;
};

// The whole file, through RegularFile, refused when over maxBytes.
std::string readRegularFile(const std::filesystem::path& path, std::uintmax_t maxBytes,
                            const std::string& what);

// "256 MiB", "64 KiB", "100 bytes": a limit as messages state it.
std::string byteLimitText(std::uintmax_t bytes);

} // namespace mantissa::io
