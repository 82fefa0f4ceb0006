// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/data/csv_loader.h>

#include "data/byte_stream.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>
#include <vector>

namespace mantissa::data {
namespace {

std::string_view trim(std::string_view s) {
  const auto isSpace = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (!s.empty() && isSpace(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && isSpace(s.back()))
    s.remove_suffix(1);
  return s;
}

// Splits into `cells`, reusing its capacity from line to line.
void splitCells(std::string_view line, std::vector<std::string_view>& cells) {
  cells.clear();
  for (std::size_t start = 0;;) {
    const std::size_t comma = line.find(',', start);
    cells.push_back(trim(line.substr(start, comma - start)));
    if (comma == std::string_view::npos)
      return;
    start = comma + 1;
  }
}

// The whole cell as a number (one leading sign, '+' or '-'), or nullopt:
// "+-1" and "++1" are not numbers.
std::optional<double> parseNumber(std::string_view cell) {
  if (!cell.empty() && cell.front() == '+') {
    cell.remove_prefix(1);
    if (!cell.empty() && (cell.front() == '-' || cell.front() == '+'))
      return std::nullopt;
  }
  double v = 0;
  const auto [end, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), v);
  if (cell.empty() || ec != std::errc() || end != cell.data() + cell.size())
    return std::nullopt;
  return v;
}

std::string quoted(std::string_view cell) {
  constexpr std::size_t kShown = 24;
  std::string out(1, '\'');
  out.append(cell.substr(0, kShown));
  out.append(cell.size() > kShown ? "...'" : "'");
  return out;
}

} // namespace

Dataset parseCsv(std::string_view text, const std::string& name) {
  // A UTF-8 byte order mark (spreadsheets write one) is not part of the first cell.
  if (text.substr(0, 3) == "\xEF\xBB\xBF")
    text.remove_prefix(3);
  Dataset d;
  d.name = name;
  int columns = 0;
  std::size_t firstDataLine = 0;
  int maxLabel = -1;
  std::size_t lineNo = 0;
  std::vector<std::string_view> cells;
  for (std::size_t pos = 0; pos < text.size();) {
    const std::size_t nl = text.find('\n', pos);
    const std::string_view line = trim(text.substr(pos, nl - pos));
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    ++lineNo;
    if (line.empty())
      continue;
    splitCells(line, cells);
    const auto where = [&] { return name + ": line " + std::to_string(lineNo); };
    if (columns == 0) {
      // A header names every column; a first line of numbers with one bad
      // cell is a data error, not a header that silently drops a sample.
      const auto numbers = static_cast<std::size_t>(
          std::count_if(cells.begin(), cells.end(), [](std::string_view c) { return parseNumber(c).has_value(); }));
      const bool header = numbers == 0;
      columns = static_cast<int>(cells.size());
      if (columns < 2)
        throw DataError(where() + ": " + std::to_string(columns) +
                        " column; expected a label column and at least one feature");
      if (static_cast<std::size_t>(columns - 1) > kMaxSampleValues)
        throw DataError(where() + ": " + std::to_string(columns) + " columns, over the limit of " +
                        std::to_string(kMaxSampleValues) + " values");
      if (!header && numbers != cells.size()) {
        const auto bad = std::find_if(cells.begin(), cells.end(),
                                      [](std::string_view c) { return !parseNumber(c); });
        throw DataError(where() + ", column " + std::to_string(bad - cells.begin() + 1) + ": " +
                        quoted(*bad) +
                        " is not a number (a header line must name every column, and a data "
                        "line must hold only numbers)");
      }
      // Sized once from the newlines, but never beyond what the text can hold
      // (each value takes at least two bytes, "0,") or the limits.
      const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
      const auto f = static_cast<std::size_t>(columns - 1);
      const std::size_t rows = std::min({lines, kMaxSamples, text.size() / (2 * f) + 1,
                                         kMaxSampleValues / f});
      d.x.reserve(rows * f);
      d.y.reserve(rows);
      if (header)
        continue;
    }
    if (static_cast<int>(cells.size()) != columns)
      throw DataError(where() + ": " + std::to_string(cells.size()) + " columns, expected " +
                      std::to_string(columns) + " like the first line");
    if (firstDataLine == 0)
      firstDataLine = lineNo;
    if (d.y.size() >= kMaxSamples)
      throw DataError(where() + ": more than " + std::to_string(kMaxSamples) +
                      " samples, the limit of a data file");
    if (d.x.size() + cells.size() - 1 > kMaxSampleValues)
      throw DataError(where() + ": more than " + std::to_string(kMaxSampleValues) +
                      " values, the limit of a data file");

    const auto label = parseNumber(cells[0]);
    if (!label || *label != std::floor(*label) || *label < 0 || *label > 255)
      throw DataError(where() + ", column 1: label " + quoted(cells[0]) +
                      " is not an integer in [0, 255]");
    d.y.push_back(static_cast<std::uint8_t>(*label));
    maxLabel = std::max(maxLabel, static_cast<int>(*label));
    for (std::size_t c = 1; c < cells.size(); ++c) {
      const auto v = parseNumber(cells[c]);
      if (!v || !std::isfinite(*v) || std::abs(*v) > 3.4e38)
        throw DataError(where() + ", column " + std::to_string(c + 1) + ": " + quoted(cells[c]) +
                        " is not a finite number");
      d.x.push_back(static_cast<float>(*v));
    }
  }
  if (d.y.empty())
    throw DataError(name + (columns == 0 ? ": empty file, no data rows" : ": no data rows"));
  d.features = columns - 1;
  d.classes = maxLabel + 1;
  for (int c = 0; c < d.classes; ++c)
    d.classNames.push_back(std::to_string(c));
  return d;
}

Dataset loadCsv(const std::filesystem::path& path) {
  const auto bytes = detail::readFileBytes(path);
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  Dataset d = parseCsv(text, path.string());
  d.name = path.filename().string();
  return d;
}

} // namespace mantissa::data
