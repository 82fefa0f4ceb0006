// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// One line of a JSONL run log, parsed as loadRunLog() and RunLogStream both
// parse it: refused over kMaxRunLogLineBytes before parsing, then through
// io::parseJsonText (depth limit, no duplicate keys).

#include <mantissa/train/run_log.h>

#include <optional>
#include <string>
#include <string_view>

namespace mantissa::train::detail {

// Throws RunLogError with `where` ("run.jsonl:12") prefixed. When `mayBeCut`
// (a last line without its newline), a syntax error returns nullopt instead:
// the line of a killed run.
std::optional<nlohmann::json> parseRunLogLine(std::string_view line, const std::string& where,
                                              bool mayBeCut);

} // namespace mantissa::train::detail
