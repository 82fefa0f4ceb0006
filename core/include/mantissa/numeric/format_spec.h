// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Formats from text: a named format, a spec string, or a JSON object.
//
// Spec strings: a base, then optional fields after a colon, comma-separated:
//   e5m2:bias=15,special=ieee
//   e3m4:special=fn
//   e4m3:bias=8,special=fnuz,subnormals=no
//   ue4m3            (a leading u: no sign bit)
// The base is a named format ("e4m3", "fp8-e5m2", "e3m4", ...), whose fields
// the options then change, or eXmY with X exponent bits (0-11) and Y mantissa
// bits (0-52), which starts as bias 2^(X-1)-1, special=ieee, subnormals=yes.
// Fields: bias=<integer>, special=ieee|fn|fnuz|none, subnormals=yes|no,
// sign=yes|no. A result whose encoding equals a named format's is that named
// format (with its id and fast paths); any other is FormatId::Custom, named by
// its full spec (FloatFormat::spec()).
//
// JSON: {"exponent_bits": 4, "mantissa_bits": 3, "bias": 8, "special": "fnuz",
// "subnormals": true, "sign": true, "name": "my E4M3"} (every field but the
// widths optional; "name" is the display name), or {"spec": "e4m3:bias=8"}.
//
// Errors name the field: "bias: 'x' is not an integer", "special: 'foo' is
// not one of ieee, fn, fnuz, none", "exponent bits: 12 is more than 11".

#include <mantissa/numeric/format.h>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace mantissa::numeric {

struct FormatParse {
  std::optional<FloatFormat> format; // set on success
  std::string error;                 // set on failure: names the field
};

// A named format or a spec string (at most kMaxSpecLength characters).
FormatParse parseFormatSpec(std::string_view text);
inline constexpr std::size_t kMaxSpecLength = 256;

// A JSON object as described above (at most kMaxFormatFileBytes bytes).
FormatParse parseFormatJson(std::string_view json);
// A JSON file as described above; errors name the file.
FormatParse readFormatFile(const std::filesystem::path& path);
inline constexpr std::size_t kMaxFormatFileBytes = 64 * 1024;

// What the CLI takes for a format: a name, a spec, or a path ending in
// ".json" (or starting with '@') to a JSON file.
FormatParse parseFormatArgument(std::string_view text);

// "" if the format is well formed (the rules above: widths, bias inside a
// double's range, special rule possible for the widths), else the error.
std::string validateFormat(const FloatFormat& format);

// Tensors store elements of at most 16 bits unless the format is a named
// one with its own storage (fp32, fp64, tf32). "" if `format` can be a
// tensor's element format, else a message saying why not.
inline constexpr int kMaxTensorFormatBits = 16;
std::string tensorFormatError(const FloatFormat& format);

} // namespace mantissa::numeric
