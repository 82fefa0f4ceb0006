// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// mantissa-cli convert: a stream of values in, one format's bits out.
#include "args.h"
#include "commands.h"
#include "numeric_cli.h"

#include <mantissa/io/line_reader.h>
#include <mantissa/numeric/codec.h>

#include <iostream>
#include <random>
#include <sstream>
#include <string>

namespace mantissa::cli {
namespace {

using namespace numeric;

constexpr int kMaxReportedErrors = 20;
// One value per line: the longest exact decimal of a double has under 800
// digits, so a line over 1 MiB is no value (and is refused before more of it
// is held; a shorter bad line is quoted, cut short, in its error).
constexpr std::size_t kMaxLineBytes = std::size_t{1} << 20;

std::string trim(const std::string& s) {
  const auto begin = s.find_first_not_of(" \t\r");
  if (begin == std::string::npos)
    return {};
  return s.substr(begin, s.find_last_not_of(" \t\r") - begin + 1);
}

// "0x" followed by hex digits only: raw bits (a hex float has '.' or 'p').
bool looksLikeRawBits(const std::string& s) {
  if (s.size() < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
    return false;
  return s.find_first_not_of("0123456789abcdefABCDEF", 2) == std::string::npos;
}

} // namespace

int runConvert(const Args& args) {
  ArgParser parser("convert",
                   "Read one value per line on stdin and print each one's bits in --to, as\n"
                   "0x-prefixed hex zero-padded to the format's width, one line per input.\n"
                   "A line is a decimal or hex float (an exact value, rounded once), or with\n"
                   "--from, 0x raw bits of that format. Nothing is printed on stdout if any\n"
                   "line is bad; the errors name the line.");
  parser.option("to", "FORMAT", "format to convert to (" + knownFormatNames() + ")");
  parser.option("from", "FORMAT", "format of 0xHEX raw-bit lines (a name or spec, as --to)");
  addEncodeOptions(parser);
  if (auto rc = parser.parse(args))
    return *rc;
  if (!parser.has("to")) {
    std::cerr << "mantissa-cli convert: missing --to NAME (" << knownFormatNames() << ")\n";
    return 2;
  }
  const auto to = parseAnyFormatOption("convert", "to", parser.value("to"));
  if (!to)
    return 2;
  std::optional<FloatFormat> from;
  if (parser.has("from") && !(from = parseAnyFormatOption("convert", "from", parser.value("from"))))
    return 2;
  const auto settings = encodeSettings(parser);
  if (!settings)
    return 2;

  const FloatFormat& target = *to;
  std::mt19937 rng(static_cast<std::mt19937::result_type>(settings->seed));
  std::ostringstream out; // printed only once every line has converted
  int errors = 0;
  auto fail = [&](long line, const std::string& text, const std::string& why) {
    if (++errors <= kMaxReportedErrors)
      std::cerr << "mantissa-cli convert: line " << line << ": '" << quoteInput(text) << "' " << why
                << "\n";
  };
  io::LineReader lines(std::cin, kMaxLineBytes);
  std::string raw;
  for (;;) {
    try {
      if (!lines.next(raw))
        break;
    } catch (const io::LineTooLongError& e) {
      std::cerr << "mantissa-cli convert: " << e.what() << " (one value per line)\n";
      return 1;
    }
    const long lineNumber = long(lines.lineNumber());
    const std::string text = trim(raw);
    EncodeOptions o = settings->options;
    o.random = rng(); // one draw per line, used or not: line N always gets draw N
    if (text.empty()) {
      fail(lineNumber, text, "is empty (expected one value per line)");
      continue;
    }
    if (from && looksLikeRawBits(text)) {
      const FloatFormat& source = *from;
      const auto bits = parseHexBits(text);
      if (!bits || !fitsFormat(source, *bits)) {
        fail(lineNumber, text,
             "has more bits than " + std::string(source.name) + " (" +
                 std::to_string(source.totalBits()) + " bits)");
        continue;
      }
      const EncodeResult fromBits = encode(target, toDouble(source, *bits), o);
      if (fromBits.invalid) {
        fail(lineNumber, text,
             "has no " + std::string(target.name) + " encoding (" +
                 (target.hasNan() ? "it has no sign" : "it has no NaN") + ")");
        continue;
      }
      out << formatBitsHex(target, fromBits.bits) << "\n";
      continue;
    }
    const ParseResult parsed = parseNumber(text);
    if (!parsed.value) {
      const auto colon = parsed.error.find(": ");
      fail(lineNumber, text,
           "is not a number" + (colon == std::string::npos ? "" : parsed.error.substr(colon)));
      continue;
    }
    const EncodeResult encoded = encode(target, *parsed.value, o);
    if (encoded.invalid) {
      fail(lineNumber, text,
           "has no " + std::string(target.name) + " encoding (" +
               (target.hasNan() ? "it has no sign" : "it has no NaN") + ")");
      continue;
    }
    out << formatBitsHex(target, encoded.bits) << "\n";
  }
  if (errors > 0) {
    if (errors > kMaxReportedErrors)
      std::cerr << "mantissa-cli convert: ... " << errors - kMaxReportedErrors << " more bad lines\n";
    return 1;
  }
  std::cout << out.str();
  return 0;
}

} // namespace mantissa::cli
