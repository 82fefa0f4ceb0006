// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// mantissa-cli inspect: how every format stores a value, bit by bit.
#include "args.h"
#include "commands.h"
#include "numeric_cli.h"

#include <mantissa/numeric/codec.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <random>
#include <vector>

namespace mantissa::cli {
namespace {

using namespace numeric;

// One format's view of the input.
struct Row {
  const FloatFormat* format;
  EncodeResult encoded; // bits and what happened on the way in
  Decoded decoded;
  RoundingError error;
};

const char* className(FloatClass c) {
  switch (c) {
  case FloatClass::Zero: return "zero";
  case FloatClass::Subnormal: return "subnormal";
  case FloatClass::Normal: return "normal";
  case FloatClass::Infinity: return "inf";
  case FloatClass::NaN: return "nan";
  }
  return "nan";
}

std::string mantissaHex(const FloatFormat& f, std::uint64_t mantissa) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "0x%0*llx", (f.mantissaBits + 3) / 4,
                static_cast<unsigned long long>(mantissa));
  return buffer;
}

std::string shortNumber(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", v);
  return buffer;
}

// NaN and inf are not JSON numbers: they become null.
nlohmann::ordered_json number(double v) { return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(); }

nlohmann::ordered_json rowJson(const Row& r, const ExactValue& input, Rounding rounding) {
  const FloatFormat& f = *r.format;
  const Decoded& d = r.decoded;
  return {
      {"format", f.name},
      {"bits", formatBitsHex(f, r.encoded.bits)},
      {"sign", d.negative ? 1 : 0},
      {"exponent", d.biasedExponent},
      {"exponent_unbiased", d.unbiasedExponent},
      {"mantissa", mantissaHex(f, d.mantissa)},
      {"implicit_bit", d.implicitBit},
      {"class", className(d.cls)},
      {"value", d.exactDecimal},
      {"formula", d.formula},
      {"input", input.toString()},
      {"rounding", roundingName(rounding)},
      {"abs_error", number(r.error.absoluteApprox)},
      {"abs_error_exact", r.error.absolute.toString()},
      {"rel_error", number(r.error.relative)},
      {"ulp", number(ulp(f, r.encoded.bits))},
      {"next_up", formatBitsHex(f, nextUp(f, r.encoded.bits))},
      {"next_down", formatBitsHex(f, nextDown(f, r.encoded.bits))},
      {"inexact", r.encoded.inexact},
      {"overflow", r.encoded.overflowed},
      {"underflow", r.encoded.underflowed},
      {"flushed", r.encoded.flushed},
      {"invalid", r.encoded.invalid},
  };
}

std::string notes(const EncodeResult& e) {
  std::string s;
  auto add = [&](bool on, const char* word) {
    if (on)
      s += s.empty() ? word : std::string(",") + word;
  };
  add(e.overflowed, "overflow");
  add(e.underflowed, "underflow");
  add(e.flushed, "flushed");
  add(e.invalid, "invalid");
  return s.empty() ? "-" : s;
}

void printTable(const std::vector<Row>& rows, const std::string& heading) {
  const std::vector<std::string> header{"format", "bits",  "s",   "exp",  "e",   "mantissa",
                                        "class",  "value", "abs error", "rel error", "ulp", "notes"};
  std::vector<std::vector<std::string>> cells{header};
  for (const Row& r : rows) {
    const FloatFormat& f = *r.format;
    const Decoded& d = r.decoded;
    cells.push_back({std::string(f.name), formatBitsHex(f, r.encoded.bits), d.negative ? "1" : "0",
                     std::to_string(d.biasedExponent), std::to_string(d.unbiasedExponent),
                     mantissaHex(f, d.mantissa), className(d.cls), d.exactDecimal,
                     shortNumber(r.error.absoluteApprox), shortNumber(r.error.relative),
                     shortNumber(ulp(f, r.encoded.bits)), notes(r.encoded)});
  }
  std::vector<std::size_t> width(header.size(), 0);
  for (const auto& line : cells)
    for (std::size_t c = 0; c < line.size(); ++c)
      width[c] = std::max(width[c], line[c].size());
  std::cout << heading << "\n\n";
  for (const auto& line : cells) {
    std::string text;
    for (std::size_t c = 0; c < line.size(); ++c)
      text += line[c] + (c + 1 < line.size() ? std::string(width[c] - line[c].size() + 2, ' ') : "");
    std::cout << text << "\n";
  }
}

} // namespace

int runInspect(const Args& args) {
  ArgParser parser("inspect", "Show how FP32, TF32, FP16, BF16, FP8-E4M3 and FP8-E5M2 store a "
                              "value, bit by bit,\nwith the exact stored value, the rounding error "
                              "and the ULP. --format mx shows the OCP\nMicroscaling formats instead: "
                              "FP6 E2M3 and E3M2, FP4 E2M1, the E8M0 scale and INT8.");
  parser.positional("VALUE", "decimal (0.1, -0, 1e-8), hex float (0x1.8p-3), inf or nan", false);
  parser.option("format", "FORMAT",
                "one format (" + knownFormatNames() + "), a JSON file (FILE.json), all (the six "
                "above fp64), mx, or fnuz (the 8-bit floats side by side)", "all");
  parser.option("bits", "0xHEX", "decode these raw bits of --format instead of a VALUE");
  parser.flag("json", "Print a JSON array, one object per format");
  addEncodeOptions(parser);
  if (auto rc = parser.parse(args))
    return *rc;
  const auto settings = encodeSettings(parser);
  if (!settings)
    return 2;
  const auto valueText = parser.positionalValue("VALUE");
  const auto bitsText = parser.optionalValue("bits");
  if (valueText.has_value() == bitsText.has_value()) {
    std::cerr << "mantissa-cli inspect: give either a VALUE or --bits 0xHEX --format NAME\n";
    return 2;
  }

  std::vector<FloatFormat> formats;
  const std::string formatName = lowerCase(parser.value("format"));
  if (formatName == "all") {
    for (FormatId id : explorerFormats())
      formats.push_back(formatInfo(id));
  } else if (formatName == "mx") {
    for (FormatId id : microscalingFormats())
      formats.push_back(formatInfo(id));
  } else if (formatName == "fnuz") {
    for (FormatId id : {FormatId::Fp8E4M3, FormatId::Fp8E4M3Fnuz, FormatId::Fp8E4M3B11Fnuz, FormatId::Fp8E3M4,
                        FormatId::Fp8E5M2, FormatId::Fp8E5M2Fnuz})
      formats.push_back(formatInfo(id));
  } else if (auto f = parseAnyFormatOption("inspect", "format", parser.value("format"))) {
    formats.push_back(*f);
  } else {
    return 2;
  }

  ExactValue input;
  std::string heading;
  std::vector<Row> rows;
  if (bitsText) {
    if (formats.size() != 1) {
      std::cerr << "mantissa-cli inspect: --bits needs --format NAME (which format the bits are)\n";
      return 2;
    }
    const FloatFormat& f = formats.front();
    const auto bits = parseHexBits(*bitsText);
    if (!bits || !fitsFormat(f, *bits)) {
      std::cerr << "mantissa-cli inspect: --bits: '" << *bitsText << "' "
                << (bits ? "has more bits than " : "is not a hex bit pattern for ") << f.name
                << " (" << f.totalBits() << " bits)\n";
      return 2;
    }
    input = ExactValue::fromDouble(toDouble(f, *bits));
    EncodeResult e;
    e.bits = *bits;
    rows.push_back({&f, e, decode(f, *bits), roundingError(f, *bits, input)});
    heading = "bits " + formatBitsHex(f, *bits) + " of " + std::string(f.name);
  } else {
    const ParseResult parsed = parseNumber(*valueText);
    if (!parsed.value) {
      std::cerr << "mantissa-cli inspect: " << parsed.error << "\n";
      return 2;
    }
    input = *parsed.value;
    std::mt19937 rng(static_cast<std::mt19937::result_type>(settings->seed));
    for (const FloatFormat& f : formats) {
      EncodeOptions o = settings->options;
      o.random = rng();
      const EncodeResult e = encode(f, input, o);
      rows.push_back({&f, e, decode(f, e.bits), roundingError(f, e.bits, input)});
    }
    heading = "input " + *valueText + " = " + input.toString() + "   rounding " +
              std::string(roundingName(settings->options.rounding)) +
              (settings->options.flushSubnormals ? ", ftz" : "") +
              (settings->options.overflow == OverflowMode::Saturate ? ", saturate" : "");
  }

  if (parser.has("json")) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const Row& r : rows)
      out.push_back(rowJson(r, input, settings->options.rounding));
    std::cout << out.dump(2) << "\n";
  } else {
    printTable(rows, heading);
  }
  return 0;
}

} // namespace mantissa::cli
