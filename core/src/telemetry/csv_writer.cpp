// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/telemetry/csv_writer.h>

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace mantissa::telemetry {

std::string formatCsvField(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos)
    return std::string(text);
  std::string out = "\"";
  for (char ch : text) {
    if (ch == '"')
      out += '"'; // doubled quote
    out += ch;
  }
  out += '"';
  return out;
}

std::string formatCsvNumber(double value) {
  if (std::isnan(value))
    return "nan";
  if (std::isinf(value))
    return value > 0 ? "inf" : "-inf";
  char buf[32];
  const auto res = std::to_chars(buf, buf + sizeof buf, value); // shortest round-trip form
  return std::string(buf, res.ptr);
}

ScalarCsvWriter::ScalarCsvWriter(const std::filesystem::path& path,
                                 std::vector<std::string> columns)
    : m_file(path), m_columnCount(columns.size()) {
  if (columns.empty())
    throw std::invalid_argument("CSV export of '" + path.string() + "': no columns");
  std::string header = "step";
  for (const auto& c : columns)
    header.append(",").append(formatCsvField(c));
  header += '\n';
  m_file.stream() << header;
}

void ScalarCsvWriter::addRow(std::int64_t step, std::span<const double> values) {
  if (values.size() != m_columnCount)
    throw std::invalid_argument("CSV row for step " + std::to_string(step) + " has " +
                                std::to_string(values.size()) + " values for " +
                                std::to_string(m_columnCount) + " columns");
  m_line = std::to_string(step);
  for (double v : values)
    m_line.append(",").append(formatCsvNumber(v));
  m_line += '\n';
  m_file.stream() << m_line;
  ++m_rows;
}

void ScalarCsvWriter::commit() {
  m_file.commit();
}

} // namespace mantissa::telemetry
