// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/train/run_log_stream.h>

#include <nlohmann/json.hpp>

namespace mantissa::train {

std::size_t RunLogStream::feed(std::string_view bytes) {
  if (!m_error.empty())
    throw RunLogError(m_error);
  m_partial.append(bytes);
  std::size_t added = 0;
  std::size_t begin = 0;
  for (std::size_t end; (end = m_partial.find('\n', begin)) != std::string::npos; begin = end + 1) {
    ++m_lines;
    const std::string_view line(m_partial.data() + begin, end - begin);
    if (line.find_first_not_of(" \t\r") == std::string_view::npos)
      continue;
    const std::string where = m_name + ":" + std::to_string(m_lines);
    const nlohmann::json object = nlohmann::json::parse(line, nullptr, false);
    try {
      if (object.is_discarded())
        throw RunLogError(where + ": not valid JSON");
      m_builder.add(object, where);
    } catch (const RunLogError& e) {
      m_partial.erase(0, end + 1);
      m_error = e.what();
      throw;
    }
    ++added;
  }
  m_partial.erase(0, begin);
  return added;
}

} // namespace mantissa::train
