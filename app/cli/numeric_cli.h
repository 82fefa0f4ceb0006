// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// What `inspect` and `convert` share: the rounding options, format names and
// raw-bit parsing. Each function prints "mantissa-cli CMD: ..." to stderr on
// bad input and returns nullopt.

#include "args.h"

#include <mantissa/numeric/codec.h>

#include <cstdint>
#include <optional>
#include <string>

namespace mantissa::cli {

// --rounding MODE, --seed S, --ftz, --saturate.
void addEncodeOptions(ArgParser& parser);

struct EncodeSettings {
  numeric::EncodeOptions options;
  std::uint64_t seed = 1; // seeds the generator that feeds Rounding::Stochastic
};
std::optional<EncodeSettings> encodeSettings(const ArgParser& parser);

// "fp32, tf32, fp16, bf16, fp8-e4m3, ..., int4, or a spec such as e4m3:bias=8,special=fnuz"
std::string knownFormatNames();
std::optional<numeric::FormatId> parseFormatOption(const std::string& command,
                                                   const std::string& option,
                                                   const std::string& name);

// A named format, a spec string (numeric/format_spec.h) or a JSON file
// (FILE.json or @FILE); prints the error naming the field and returns nullopt.
std::optional<numeric::FloatFormat> parseAnyFormatOption(const std::string& command,
                                                         const std::string& option,
                                                         const std::string& text);

// "0x3dcc" (or "3dcc") -> bits; nullopt if not hex or wider than 64 bits.
std::optional<std::uint64_t> parseHexBits(const std::string& text);
// Does `bits` fit the format's width?
bool fitsFormat(const numeric::FloatFormat& format, std::uint64_t bits);

} // namespace mantissa::cli
