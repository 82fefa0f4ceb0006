// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Lines of outside text read one at a time with a bound on each line's
// length: a line longer than the bound is refused with its number and the
// limit as soon as it passes the bound, without ever holding more of it
// (std::getline would grow one string to the whole line, 1.6 GB of stdin
// included, and a failed allocation there only sets the stream's badbit).

#include <cstddef>
#include <cstdint>
#include <istream>
#include <stdexcept>
#include <string>

namespace mantissa::io {

class LineTooLongError : public std::runtime_error {
public:
  LineTooLongError(std::int64_t line, std::size_t limit);
  std::int64_t line() const { return m_line; }
  std::size_t limit() const { return m_limit; }

private:
  std::int64_t m_line;
  std::size_t m_limit;
};

class LineReader {
public:
  LineReader(std::istream& in, std::size_t maxLineBytes) : m_in(in), m_max(maxLineBytes) {}

  // The next line without its '\n'; false at the end of the input. Throws
  // LineTooLongError ("line 7: longer than the limit of 64 KiB for one line").
  bool next(std::string& line);
  std::int64_t lineNumber() const { return m_line; } // of the last line returned

private:
  std::istream& m_in;
  std::size_t m_max;
  std::int64_t m_line = 0;
};

} // namespace mantissa::io
