// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// CSV data: one sample per line, the first column the integer label (0..255),
// the other columns the features, comma-separated. The first line is a header
// when none of its cells is a number; a first line mixing numbers and text is
// an error (never a sample silently dropped). A UTF-8 byte order mark at the
// start is skipped. Numbers take at most one sign ("+-1" is an error). Blank
// lines are skipped. Limits: kMaxSamples rows, kMaxSampleValues feature
// values, 512 MiB of file (data/dataset.h).
// Features are used as written (not rescaled). classes = largest label + 1.
//
// DataError (naming the file, and the line and column where it applies) on an
// empty file, a ragged row, a non-numeric or non-finite cell, or a label that is
// not an integer in [0, 255].

#include <mantissa/data/dataset.h>

#include <filesystem>
#include <string>
#include <string_view>

namespace mantissa::data {

Dataset loadCsv(const std::filesystem::path& path);

// The same from text in memory; name is used in messages.
Dataset parseCsv(std::string_view text, const std::string& name);

} // namespace mantissa::data
