// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Shared code of the data tests: a private temp directory, IDX bytes built by hand
// from the format's definition, gzip by zlib, and "this throws a DataError whose
// message says X".

#include <mantissa/data/dataset.h>

#include <gtest/gtest.h>

#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace mantissa::testing {

using Bytes = std::vector<std::uint8_t>;

class TempDir {
public:
  TempDir() {
    std::random_device rd;
    m_path = std::filesystem::temp_directory_path() /
             ("mantissa-test-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(m_path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return m_path; }

  std::filesystem::path write(const std::string& name, const Bytes& bytes) const {
    const auto p = m_path / name;
    std::ofstream out(p, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return p;
  }
  std::filesystem::path writeText(const std::string& name, const std::string& text) const {
    return write(name, Bytes(text.begin(), text.end()));
  }

private:
  std::filesystem::path m_path;
};

// IDX: 0, 0, type, rank, big-endian dims, payload.
inline Bytes idx(std::uint8_t type, const std::vector<std::uint32_t>& dims, const Bytes& payload) {
  Bytes b = {0, 0, type, static_cast<std::uint8_t>(dims.size())};
  for (std::uint32_t d : dims) {
    for (int shift = 24; shift >= 0; shift -= 8)
      b.push_back(static_cast<std::uint8_t>(d >> shift));
  }
  b.insert(b.end(), payload.begin(), payload.end());
  return b;
}

// A gzip member (windowBits 16 + 15) of src.
inline Bytes gzip(const Bytes& src) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 6, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY), Z_OK);
  Bytes out(deflateBound(&z, static_cast<uLong>(src.size())) + 64);
  z.next_in = const_cast<Bytef*>(src.data());
  z.avail_in = static_cast<uInt>(src.size());
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

// Runs f, expects a DataError whose message contains every one of `parts`.
template <typename F>
void expectDataError(F&& f, const std::vector<std::string>& parts) {
  try {
    f();
    ADD_FAILURE() << "no DataError; expected one mentioning '" << parts.front() << "'";
  } catch (const mantissa::data::DataError& e) {
    const std::string what = e.what();
    for (const auto& p : parts)
      EXPECT_NE(what.find(p), std::string::npos) << "message: " << what << "\nmissing: " << p;
  }
}

} // namespace mantissa::testing
