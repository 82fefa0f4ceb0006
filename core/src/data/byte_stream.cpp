// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "data/byte_stream.h"

#include <mantissa/data/dataset.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <fstream>
#include <system_error>

namespace mantissa::data::detail {
namespace fs = std::filesystem;

std::vector<std::uint8_t> readFileBytes(const fs::path& path) {
  const std::string name = path.string();
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status))
    throw DataError(name + ": no such file");
  if (fs::is_directory(status))
    throw DataError(name + ": is a directory, expected a file");
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec)
    throw DataError(name + ": cannot read its size (" + ec.message() + ")");
  if (size > kMaxFileBytes)
    throw DataError(name + ": " + std::to_string(size) + " bytes, over the 512 MiB limit for data files");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw DataError(name + ": cannot open for reading");
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(size));
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size));
  if (static_cast<std::uintmax_t>(in.gcount()) != size)
    throw DataError(name + ": read failed after " + std::to_string(in.gcount()) + " of " +
                    std::to_string(size) + " bytes");
  return bytes;
}

ByteStream::ByteStream(std::span<const std::uint8_t> src, std::string name)
    : m_src(src), m_name(std::move(name)) {
  m_gzip = src.size() >= 2 && src[0] == 0x1f && src[1] == 0x8b;
  if (m_gzip && inflateInit2(&m_z, 16 + MAX_WBITS) != Z_OK) // 16+: gzip wrapper only
    fail("cannot initialise zlib");
}

ByteStream::~ByteStream() {
  if (m_gzip)
    inflateEnd(&m_z);
}

void ByteStream::fail(const std::string& problem) const { throw DataError(m_name + ": " + problem); }

std::optional<std::size_t> ByteStream::remainingIfKnown() const {
  if (m_gzip)
    return std::nullopt;
  return m_src.size() - m_pos + (m_peek ? 1 : 0);
}

std::size_t ByteStream::read(std::span<std::uint8_t> dst) {
  std::size_t done = 0;
  if (m_peek && !dst.empty()) {
    dst[0] = *m_peek;
    m_peek.reset();
    done = 1;
  }
  const auto rest = dst.subspan(done);
  return done + (m_gzip ? inflateInto(rest) : readRaw(rest));
}

bool ByteStream::atEnd() {
  if (m_peek)
    return false;
  std::uint8_t byte = 0;
  if (read(std::span(&byte, 1)) == 0)
    return true;
  m_peek = byte;
  return false;
}

std::size_t ByteStream::readRaw(std::span<std::uint8_t> dst) {
  const std::size_t n = std::min(dst.size(), m_src.size() - m_pos);
  if (n > 0)
    std::memcpy(dst.data(), m_src.data() + m_pos, n);
  m_pos += n;
  return n;
}

std::size_t ByteStream::inflateInto(std::span<std::uint8_t> dst) {
  std::size_t produced = 0;
  while (produced < dst.size()) {
    if (m_memberDone) {
      if (m_pos == m_src.size())
        break; // clean end of the last member
      if (m_src.size() - m_pos >= 2 && m_src[m_pos] == 0x1f && m_src[m_pos + 1] == 0x8b) {
        inflateReset(&m_z); // another concatenated gzip member
        m_memberDone = false;
      } else {
        fail("trailing garbage: " + std::to_string(m_src.size() - m_pos) +
             " bytes after the end of the gzip data");
      }
    }
    // zlib counts in uInt; feed at most UINT_MAX at a time.
    const std::size_t inLeft = std::min<std::size_t>(m_src.size() - m_pos, UINT_MAX);
    const std::size_t outLeft = std::min<std::size_t>(dst.size() - produced, UINT_MAX);
    m_z.next_in = const_cast<Bytef*>(m_src.data() + m_pos);
    m_z.avail_in = static_cast<uInt>(inLeft);
    m_z.next_out = dst.data() + produced;
    m_z.avail_out = static_cast<uInt>(outLeft);
    const int rc = inflate(&m_z, Z_NO_FLUSH);
    m_pos += inLeft - m_z.avail_in;
    produced += outLeft - m_z.avail_out;
    switch (rc) {
    case Z_OK: break;
    case Z_STREAM_END: m_memberDone = true; break;
    case Z_BUF_ERROR: // no progress: input exhausted before the member's end
      fail("truncated gzip data (the compressed stream ends early)");
    case Z_MEM_ERROR: fail("out of memory while decompressing");
    default: fail(std::string("corrupt gzip data (zlib: ") + (m_z.msg ? m_z.msg : "error") + ")");
    }
  }
  return produced;
}

} // namespace mantissa::data::detail
