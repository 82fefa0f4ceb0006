// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Sequential reading of a file's bytes, inflating gzip on the fly when the data
// starts with the gzip magic 1f 8b (several concatenated members are accepted, as
// gunzip does). Every failure is a DataError that names the source: corrupt
// gzip data, a stream that ends early, bytes after the last gzip member.

#include <zlib.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace mantissa::data::detail {

// Largest file read at all (compressed or raw): 512 MiB.
inline constexpr std::uintmax_t kMaxFileBytes = std::uintmax_t{512} << 20;

// The whole file, or DataError (missing, a directory, not a regular file, unreadable, over 512 MiB).
std::vector<std::uint8_t> readFileBytes(const std::filesystem::path& path);

class ByteStream {
public:
  // Reads from src, which must outlive the stream; name is used in messages.
  ByteStream(std::span<const std::uint8_t> src, std::string name);
  ~ByteStream();
  ByteStream(const ByteStream&) = delete; // z_stream points at itself
  ByteStream& operator=(const ByteStream&) = delete;

  // Fills dst from the start; returns fewer bytes than dst.size() only at the end.
  std::size_t read(std::span<std::uint8_t> dst);

  // True when no byte is left (reads ahead at most one byte to find out).
  bool atEnd();

  // Bytes left, when known without inflating (raw data); nullopt for gzip.
  std::optional<std::size_t> remainingIfKnown() const;

  bool isGzip() const { return m_gzip; }
  const std::string& name() const { return m_name; }

private:
  std::size_t readRaw(std::span<std::uint8_t> dst);
  std::size_t inflateInto(std::span<std::uint8_t> dst);
  [[noreturn]] void fail(const std::string& problem) const;

  std::span<const std::uint8_t> m_src;
  std::string m_name;
  std::size_t m_pos = 0; // next unread byte of m_src
  bool m_gzip = false;
  bool m_memberDone = false;          // the current gzip member reached Z_STREAM_END
  std::optional<std::uint8_t> m_peek; // byte read ahead by atEnd()
  z_stream m_z{};
};

} // namespace mantissa::data::detail
