// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/train/run_log_stream.h>

#include "run_log_line.h"

#include <mantissa/io/regular_file.h>

#include <nlohmann/json.hpp>

namespace mantissa::train {

std::size_t RunLogStream::feed(std::string_view bytes) {
  if (!m_error.empty())
    throw RunLogError(m_error);
  std::size_t added = 0;
  std::size_t begin = 0;
  // Only the bytes up to the next newline are kept while a line is over the
  // limit: a line that never ends (a sparse file, a stream of garbage) is
  // refused as soon as it passes kMaxRunLogLineBytes.
  const auto refuseLongLine = [&] {
    m_error = m_name + ":" + std::to_string(m_lines + 1) + ": line longer than the limit of " +
              io::byteLimitText(kMaxRunLogLineBytes) + " for one line of a run log";
    m_partial.clear();
    m_partial.shrink_to_fit();
    throw RunLogError(m_error);
  };
  while (begin < bytes.size()) {
    const std::size_t newline = bytes.find('\n', begin);
    const std::size_t end = newline == std::string_view::npos ? bytes.size() : newline;
    if (m_partial.size() + (end - begin) > kMaxRunLogLineBytes)
      refuseLongLine();
    m_partial.append(bytes.substr(begin, end - begin));
    if (newline == std::string_view::npos)
      break;
    begin = newline + 1;
    ++m_lines;
    const std::string line = std::move(m_partial);
    m_partial.clear();
    if (line.find_first_not_of(" \t\r") == std::string::npos)
      continue;
    const std::string where = m_name + ":" + std::to_string(m_lines);
    try {
      const std::optional<nlohmann::json> object = detail::parseRunLogLine(line, where, false);
      m_builder.add(*object, where);
    } catch (const RunLogError& e) {
      m_error = e.what();
      throw;
    }
    ++added;
  }
  return added;
}

} // namespace mantissa::train
