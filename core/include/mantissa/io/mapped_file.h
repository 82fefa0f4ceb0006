// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// A file someone else named, mapped read-only into memory: opened with
// O_NONBLOCK and refused unless fstat says it is a regular file (as
// RegularFile), then mmap'ed whole. Nothing is read until a page is touched,
// so listing a header of a 5 GB model touches only the header's pages; a
// scan streams the rest once (madvise SEQUENTIAL). The mapping is private
// and read-only: a file truncated under the reader raises SIGBUS on access,
// which is the price of not copying it.

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

namespace mantissa::io {

class MappedFile {
public:
  // `what` names the file's role in messages ("model"). Throws
  // FileReadError (regular_file.h) when it cannot be opened, is not a
  // regular file, or cannot be mapped.
  MappedFile(const std::filesystem::path& path, const std::string& what);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  std::span<const std::byte> bytes() const { return {m_data, m_size}; }
  std::uint64_t size() const { return m_size; }
  const std::filesystem::path& path() const { return m_path; }

private:
  std::filesystem::path m_path;
  const std::byte* m_data = nullptr;
  std::size_t m_size = 0;
};

} // namespace mantissa::io
