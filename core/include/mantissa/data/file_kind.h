// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// What a --data path holds, decided by its content where the suffix does not
// say: an IDX file (or a gzip-compressed one) is an image set, a UTF-8 text a
// corpus for a GPT, whatever the letter case of its suffix or whether it has one.

#include <filesystem>

namespace mantissa::data {

enum class DataFileKind {
  Missing,   // no such file or directory
  Directory, // a folder of IDX files
  Csv,       // suffix .csv (any letter case)
  Idx,       // IDX magic (0x00 0x00, a type byte, a rank) or gzip magic (0x1f 0x8b)
  Text,      // suffix .txt (any letter case), or leading bytes that are UTF-8 text
  Other,     // none of these (an IDX loader reports what is wrong with it)
};

// Reads at most the first 4 KiB of a regular file.
DataFileKind dataFileKind(const std::filesystem::path& path);

} // namespace mantissa::data
