// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// CSV export of scalar series: a header line "step,<column>,..." and one row
// per step. Numbers are written in the shortest form that reads back to the
// same double ("0.1", "65536", "1e-08"); non-finite values as "nan", "inf",
// "-inf" (what pandas, R and spreadsheets read). Column names are quoted per
// RFC 4180 when they contain a comma, quote or newline.
//
// The file appears atomically at commit() (temp file + rename, see
// io/atomic_file.h): an interrupted export never leaves a truncated CSV.

#include <mantissa/io/atomic_file.h>

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace mantissa::telemetry {

class ScalarCsvWriter {
public:
  // Throws io::AtomicFileError if the temp file cannot be created, and
  // std::invalid_argument for no columns.
  ScalarCsvWriter(const std::filesystem::path& path, std::vector<std::string> columns);

  // values.size() must equal the number of columns (std::invalid_argument).
  void addRow(std::int64_t step, std::span<const double> values);
  std::size_t rows() const { return m_rows; }
  void commit(); // throws io::AtomicFileError

private:
  io::AtomicFileWriter m_file;
  std::size_t m_columnCount;
  std::size_t m_rows = 0;
  std::string m_line; // reused buffer
};

// One CSV field (quoted when needed) and one number, as the writer spells them.
std::string formatCsvField(std::string_view text);
std::string formatCsvNumber(double value);

} // namespace mantissa::telemetry
