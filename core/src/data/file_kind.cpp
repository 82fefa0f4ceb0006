// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/data/file_kind.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <fstream>
#include <string>

namespace mantissa::data {
namespace {

std::string lowerSuffix(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

// UTF-8 text without NUL or other binary control bytes; a multi-byte
// sequence cut by the end of the sample counts as text.
bool looksLikeUtf8Text(const unsigned char* b, std::size_t n) {
  if (n == 0)
    return false;
  std::size_t i = 0;
  if (n >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF)
    i = 3;
  while (i < n) {
    const unsigned char c = b[i];
    if (c < 0x80) {
      if (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f')
        return false;
      ++i;
      continue;
    }
    const std::size_t length = (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
    if (length == 0 || c == 0xC0 || c == 0xC1)
      return false;
    for (std::size_t k = 1; k < length && i + k < n; ++k)
      if ((b[i + k] & 0xC0) != 0x80)
        return false;
    i += length;
  }
  return true;
}

} // namespace

DataFileKind dataFileKind(const std::filesystem::path& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status))
    return DataFileKind::Missing;
  if (std::filesystem::is_directory(status))
    return DataFileKind::Directory;
  const std::string ext = lowerSuffix(path);
  if (ext == ".csv")
    return DataFileKind::Csv;
  std::array<unsigned char, 4096> head{};
  std::size_t n = 0;
  if (std::filesystem::is_regular_file(status)) {
    std::ifstream in(path, std::ios::binary);
    in.read(reinterpret_cast<char*>(head.data()), static_cast<std::streamsize>(head.size()));
    n = static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0));
  }
  if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b)
    return DataFileKind::Idx;
  if (n >= 4 && head[0] == 0 && head[1] == 0 && head[2] >= 0x08 && head[2] <= 0x0E)
    return DataFileKind::Idx;
  if (ext == ".txt" || looksLikeUtf8Text(head.data(), n))
    return DataFileKind::Text;
  return DataFileKind::Other;
}

} // namespace mantissa::data
