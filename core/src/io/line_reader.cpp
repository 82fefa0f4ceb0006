// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/io/line_reader.h>

#include <mantissa/io/regular_file.h>


namespace mantissa::io {

LineTooLongError::LineTooLongError(std::int64_t line, std::size_t limit)
    : std::runtime_error("line " + std::to_string(line) + ": longer than the limit of " +
                         byteLimitText(limit) + " for one line"),
      m_line(line), m_limit(limit) {}

bool LineReader::next(std::string& line) {
  line.clear();
  std::streambuf* buffer = m_in.rdbuf();
  if (buffer == nullptr || !m_in.good())
    return false;
  for (bool any = false;; any = true) {
    const int c = buffer->sbumpc();
    if (c == std::char_traits<char>::eof()) {
      m_in.setstate(std::ios::eofbit);
      if (!any)
        return false;
      ++m_line; // a last line without its newline
      return true;
    }
    if (c == '\n') {
      ++m_line;
      return true;
    }
    if (line.size() == m_max)
      throw LineTooLongError(m_line + 1, m_max);
    line.push_back(char(c));
  }
}

} // namespace mantissa::io
