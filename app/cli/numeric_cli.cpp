// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "numeric_cli.h"

#include <mantissa/numeric/format_spec.h>

#include <iostream>
#include <limits>

namespace mantissa::cli {

using namespace numeric;

void addEncodeOptions(ArgParser& parser) {
  parser.option("rounding", "MODE", "nearest-even, toward-zero, up, down or stochastic",
                "nearest-even");
  parser.option("seed", "S", "Seed of the random bits for --rounding stochastic", "1");
  parser.flag("ftz", "Flush subnormals to zero (FTZ on output, DAZ on input)");
  parser.flag("saturate", "Clamp overflow to max finite instead of inf (or NaN for fp8-e4m3)");
}

std::optional<EncodeSettings> encodeSettings(const ArgParser& parser) {
  EncodeSettings s;
  const std::string mode = parser.value("rounding");
  const auto rounding = parseRoundingName(lowerCase(mode));
  if (!rounding) {
    std::cerr << "mantissa-cli " << parser.command() << ": --rounding: unknown mode '" << quoteInput(mode)
              << "'" << didYouMean(mode, {"nearest-even", "toward-zero", "up", "down", "stochastic"})
              << " (known: nearest-even, toward-zero, up, down, stochastic)\n";
    return std::nullopt;
  }
  s.options.rounding = *rounding;
  s.options.flushSubnormals = parser.has("ftz");
  s.options.overflow = parser.has("saturate") ? OverflowMode::Saturate : OverflowMode::Infinity;
  const auto seed = parseInteger(parser.command(), "seed", parser.value("seed"), 0,
                                 std::numeric_limits<long long>::max());
  if (!seed)
    return std::nullopt;
  s.seed = static_cast<std::uint64_t>(*seed);
  return s;
}

std::string knownFormatNames() {
  std::string names;
  for (FormatId id : namedFormats())
    names += std::string(formatInfo(id).name) + ", ";
  return names + "or a spec such as e4m3:bias=8,special=fnuz";
}

std::optional<FormatId> parseFormatOption(const std::string& command, const std::string& option,
                                          const std::string& name) {
  if (auto id = parseFormatName(name))
    return id;
  std::vector<std::string> names;
  for (FormatId id : explorerFormats())
    names.emplace_back(formatInfo(id).name);
  names.emplace_back(formatInfo(FormatId::Fp64).name);
  std::cerr << "mantissa-cli " << command << ": --" << option << ": unknown format '" << quoteInput(name)
            << "'" << didYouMean(name, names) << " (known: " << knownFormatNames() << ")\n";
  return std::nullopt;
}

std::optional<FloatFormat> parseAnyFormatOption(const std::string& command, const std::string& option,
                                               const std::string& text) {
  if (auto id = parseFormatName(text))
    return formatInfo(*id);
  const FormatParse parsed = parseFormatArgument(text);
  if (parsed.format)
    return parsed.format;
  std::vector<std::string> names;
  for (FormatId id : namedFormats())
    names.emplace_back(formatInfo(id).name);
  std::cerr << "mantissa-cli " << command << ": --" << option << ": " << parsed.error
            << (parsed.error.rfind("unknown format", 0) == 0 ? didYouMean(text, names) : std::string()) << "\n";
  return std::nullopt;
}

std::optional<std::uint64_t> parseHexBits(const std::string& text) {
  std::size_t i = text.rfind("0x", 0) == 0 || text.rfind("0X", 0) == 0 ? 2 : 0;
  if (i == text.size() || text.size() - i > 16)
    return std::nullopt;
  std::uint64_t bits = 0;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    int d = -1;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    if (d < 0)
      return std::nullopt;
    bits = (bits << 4) | static_cast<std::uint64_t>(d);
  }
  return bits;
}

bool fitsFormat(const FloatFormat& format, std::uint64_t bits) {
  return format.totalBits() >= 64 || (bits >> format.totalBits()) == 0;
}

} // namespace mantissa::cli
