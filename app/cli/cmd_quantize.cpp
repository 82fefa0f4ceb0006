// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// mantissa-cli quantize: values on stdin, one block-scaled scheme's scales
// and element bits out.
#include "args.h"
#include "commands.h"
#include "numeric_cli.h"

#include <mantissa/numeric/block_quant.h>
#include <mantissa/numeric/codec.h>
#include <mantissa/numeric/format_spec.h>
#include <mantissa/numeric/value_list.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace mantissa::cli {
namespace {

using namespace numeric;

constexpr std::size_t kMaxInputBytes = 64u << 20;

std::size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::string schemeNames() {
  std::string names;
  for (BlockScheme s : allSchemes())
    names += (names.empty() ? "" : ", ") + std::string(schemeInfo(s).name);
  return names;
}

std::string number(double v) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.9g", v);
  return buffer;
}

nlohmann::ordered_json jsonNumber(double v) {
  return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json();
}

std::string hex(std::uint64_t bits, int totalBits) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "0x%0*llx", (totalBits + 3) / 4, static_cast<unsigned long long>(bits));
  return buffer;
}

std::string scaleText(const FloatFormat& sf, const QuantBlock& b) {
  std::string s = hex(b.scaleBits, sf.totalBits()) + " = ";
  if (std::isnan(b.scale))
    return s + "NaN";
  if (sf.layout == Layout::UnsignedExponent)
    return s + "2^" + std::to_string(b.scaleExponent);
  return s + number(b.scale);
}

std::string flagsText(std::uint8_t f) {
  std::string s;
  auto add = [&](std::uint8_t bit, const char* word) {
    if (f & bit)
      s += s.empty() ? word : std::string(",") + word;
  };
  add(kSaturated, "saturated");
  add(kLostToZero, "lost-to-zero");
  add(kSubnormal, "subnormal");
  add(kNotFinite, "not-finite");
  return s.empty() ? "-" : s;
}

std::string percent(double fraction) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f%%", 100.0 * fraction);
  return buffer;
}

std::string decibels(double db) {
  if (std::isinf(db))
    return "inf (exact)";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f dB", db);
  return buffer;
}

} // namespace

int runQuantize(const Args& args) {
  ArgParser parser("quantize",
                   "Read numbers on stdin (separated by spaces, commas or newlines; '#' starts a\n"
                   "comment) and quantize them with one block-scaled scheme. Prints each block's\n"
                   "scale and each element's bits, stored value and what was lost.\n"
                   "Schemes: " +
                       schemeNames());
  parser.option("scheme", "NAME", "the block scheme (required), or all for every scheme's statistics");
  parser.option("scale-rounding", "MODE",
                "MX schemes: floor (OCP MX v1.0), ceil, even or rceil", "floor");
  parser.option("rounding", "MODE", "element rounding: nearest-even, toward-zero, up, down or stochastic",
                "nearest-even");
  parser.option("seed", "S", "Seed of the random bits for --rounding stochastic", "1");
  parser.option("shape", "RxC", "the values as R rows of C (blocks run along rows)");
  parser.option("element", "FORMAT",
                "another element format: a name or spec of at most 16 bits (fp8-e4m3fnuz, e3m4, int4, ...)");
  parser.option("scale", "FORMAT", "another scale format: ue8m0 (MX), ue4m3 or fp8-e4m3 (NVFP4's rule), fp32");
  parser.flag("weight-blocks", "fp8-block: 128x128 blocks instead of 1x128 tiles (needs --shape)");
  parser.flag("json", "Print JSON instead of text");
  if (auto rc = parser.parse(args))
    return *rc;

  if (!parser.has("scheme")) {
    std::cerr << "mantissa-cli quantize: missing --scheme NAME (" << schemeNames() << ")\n";
    return 2;
  }
  const std::string schemeName = parser.value("scheme");
  const bool all = schemeName == "all";
  const auto scheme = all ? std::optional(BlockScheme::Mxfp8E4M3) : parseSchemeName(schemeName);
  if (!scheme) {
    std::cerr << "mantissa-cli quantize: --scheme: unknown scheme '" << schemeName << "'";
    std::string best;
    std::size_t bestDistance = 4;
    for (BlockScheme s : allSchemes()) {
      const std::size_t d = editDistance(schemeName, schemeInfo(s).name);
      if (d < bestDistance) {
        bestDistance = d;
        best = schemeInfo(s).name;
      }
    }
    if (!best.empty())
      std::cerr << "; did you mean '" << best << "'?";
    std::cerr << " (known: " << schemeNames() << ")\n";
    return 2;
  }
  const SchemeInfo& info = schemeInfo(*scheme);

  QuantizeOptions options;
  const std::string scaleRounding = parser.value("scale-rounding");
  const auto sr = parseScaleRoundingName(scaleRounding);
  if (!sr) {
    std::cerr << "mantissa-cli quantize: --scale-rounding: unknown mode '" << scaleRounding
              << "' (known: floor, ceil, even, rceil)\n";
    return 2;
  }
  if (parser.has("scale-rounding") && !info.isMx() && !all) {
    std::cerr << "mantissa-cli quantize: --scale-rounding applies to the MX schemes (E8M0 scales); "
              << info.name << " computes its scales in FP32\n";
    return 2;
  }
  options.scaleRounding = *sr;
  const std::string mode = parser.value("rounding");
  const auto rounding = parseRoundingName(mode);
  if (!rounding) {
    std::cerr << "mantissa-cli quantize: --rounding: unknown mode '" << mode
              << "' (known: nearest-even, toward-zero, up, down, stochastic)\n";
    return 2;
  }
  options.elementRounding = *rounding;
  const auto seed = parseInteger("quantize", "seed", parser.value("seed"), 0,
                                 std::numeric_limits<long long>::max());
  if (!seed)
    return 2;
  options.seed = static_cast<std::uint64_t>(*seed);
  std::size_t rows = 0;
  if (const auto shape = parser.optionalValue("shape")) {
    const auto x = shape->find_first_of("xX");
    const auto r = x == std::string::npos ? std::nullopt
                                          : parseInteger("quantize", "shape", shape->substr(0, x), 1, 1 << 24);
    const auto c = r ? parseInteger("quantize", "shape", shape->substr(x + 1), 1, 1 << 24) : std::nullopt;
    if (!r || !c) {
      if (x == std::string::npos)
        std::cerr << "mantissa-cli quantize: --shape: '" << *shape << "' is not RxC (e.g. 4x128)\n";
      return 2;
    }
    rows = static_cast<std::size_t>(*r);
    options.cols = static_cast<std::size_t>(*c);
  }
  options.weightBlocks = parser.has("weight-blocks");
  if (options.weightBlocks && ((*scheme != BlockScheme::Fp8Block && !all) || rows == 0)) {
    std::cerr << "mantissa-cli quantize: --weight-blocks needs --scheme fp8-block and --shape RxC\n";
    return 2;
  }

  // The input, bounded before it is parsed.
  std::string text;
  {
    std::vector<char> buffer(1 << 16);
    while (std::cin.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || std::cin.gcount() > 0) {
      text.append(buffer.data(), static_cast<std::size_t>(std::cin.gcount()));
      if (text.size() > kMaxInputBytes) {
        std::cerr << "mantissa-cli quantize: the input is larger than " << (kMaxInputBytes >> 20)
                  << " MiB\n";
        return 1;
      }
    }
  }
  const ValueListResult parsed = parseValueList(text);
  if (!parsed.error.empty()) {
    std::cerr << "mantissa-cli quantize: " << parsed.error << "\n";
    return 1;
  }
  const std::vector<double>& values = parsed.values;
  if (values.empty()) {
    std::cerr << "mantissa-cli quantize: no values on stdin\n";
    return 1;
  }
  if (rows != 0 && rows * options.cols != values.size()) {
    std::cerr << "mantissa-cli quantize: --shape " << rows << "x" << options.cols << " needs "
              << rows * options.cols << " values; stdin has " << values.size() << "\n";
    return 1;
  }

  if (all && (parser.has("element") || parser.has("scale"))) {
    std::cerr << "mantissa-cli quantize: --element and --scale apply to one --scheme, not all\n";
    return 2;
  }
  if (all) {
    const auto table = whatIf(values, options);
    if (parser.has("json")) {
      nlohmann::ordered_json out = nlohmann::ordered_json::array();
      for (const auto& row : table)
        out.push_back({{"scheme", schemeInfo(row.scheme).name},
                       {"fraction_saturated", row.stats.fractionSaturated},
                       {"fraction_lost_to_zero", row.stats.fractionLostToZero},
                       {"fraction_subnormal", row.stats.fractionSubnormal},
                       {"sqnr_db", std::isnan(row.stats.sqnrDb)   ? nlohmann::ordered_json()
                                   : std::isinf(row.stats.sqnrDb) ? nlohmann::ordered_json("inf")
                                                                  : nlohmann::ordered_json(row.stats.sqnrDb)},
                       {"blocks", row.stats.blocks},
                       {"blocks_max_clipped", row.stats.blocksMaxClipped}});
      std::cout << out.dump(2) << "\n";
      return 0;
    }
    std::cout << values.size() << " values, every scheme (MX scale rounding "
              << scaleRoundingName(options.scaleRounding) << ")\n\n"
              << "scheme       saturated  lost to zero  subnormal  SQNR         blocks clipped\n";
    for (const auto& row : table) {
      char line[256];
      std::snprintf(line, sizeof line, "%-11s  %-9s  %-12s  %-9s  %-11s  %zu of %zu\n",
                    std::string(schemeInfo(row.scheme).name).c_str(), percent(row.stats.fractionSaturated).c_str(),
                    percent(row.stats.fractionLostToZero).c_str(), percent(row.stats.fractionSubnormal).c_str(),
                    (std::isnan(row.stats.sqnrDb) ? std::string("-") : decibels(row.stats.sqnrDb)).c_str(),
                    row.stats.blocksMaxClipped, row.stats.blocks);
      std::cout << line;
    }
    return 0;
  }

  FloatFormat ef = formatInfo(info.element), sf = formatInfo(info.scale);
  if (parser.has("element")) {
    const auto f = parseAnyFormatOption("quantize", "element", parser.value("element"));
    if (!f)
      return 2;
    if (const std::string error = tensorFormatError(*f); !error.empty()) {
      std::cerr << "mantissa-cli quantize: --element: " << error << "\n";
      return 2;
    }
    ef = *f;
  }
  if (parser.has("scale")) {
    const auto f = parseAnyFormatOption("quantize", "scale", parser.value("scale"));
    if (!f)
      return 2;
    sf = *f;
  }
  QuantizedTensor q;
  try {
    q = quantize(values, *scheme, ef, sf, options);
  } catch (const std::invalid_argument& e) {
    std::cerr << "mantissa-cli " << e.what() << "\n";
    return 2;
  }
  const QuantStats stats = quantStats(values, q);
  const bool mxScale = sf.layout == Layout::UnsignedExponent;

  if (parser.has("json")) {
    nlohmann::ordered_json out;
    out["scheme"] = info.name;
    out["element_format"] = ef.name;
    out["scale_format"] = sf.name;
    out["block_size"] = info.blockSize;
    out["scale_rounding"] = mxScale ? nlohmann::ordered_json(scaleRoundingName(options.scaleRounding))
                                        : nlohmann::ordered_json();
    out["rounding"] = roundingName(options.elementRounding);
    out["rows"] = q.rows;
    out["cols"] = q.cols;
    out["tensor_scale"] = {{"bits", hex(q.tensorScaleBits, 32)}, {"value", jsonNumber(q.tensorScale)}};
    auto& blocks = out["blocks"] = nlohmann::ordered_json::array();
    for (std::size_t b = 0; b < q.blocks.size(); ++b) {
      const QuantBlock& blk = q.blocks[b];
      nlohmann::ordered_json j{{"index", b},
                               {"row", blk.row},
                               {"col", blk.col},
                               {"rows", blk.rows},
                               {"cols", blk.cols},
                               {"amax", jsonNumber(blk.amax)},
                               {"scale_bits", hex(blk.scaleBits, sf.totalBits())},
                               {"scale", jsonNumber(blk.scale)}};
      if (mxScale)
        j["scale_exponent"] = std::isnan(blk.scale) ? nlohmann::ordered_json() : nlohmann::ordered_json(blk.scaleExponent);
      j["max_clipped"] = blk.maxClipped;
      blocks.push_back(std::move(j));
    }
    auto& elements = out["elements"] = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < values.size(); ++i)
      elements.push_back({{"index", i},
                          {"input", jsonNumber(values[i])},
                          {"block", q.blockOf[i]},
                          {"bits", hex(q.elementBits[i], ef.totalBits())},
                          {"element", jsonNumber(q.elementValue[i])},
                          {"value", jsonNumber(q.dequantized[i])},
                          {"saturated", (q.flags[i] & kSaturated) != 0},
                          {"lost_to_zero", (q.flags[i] & kLostToZero) != 0},
                          {"subnormal", (q.flags[i] & kSubnormal) != 0}});
    out["stats"] = {{"values", stats.count},
                    {"not_finite", stats.nonFinite},
                    {"fraction_saturated", stats.fractionSaturated},
                    {"fraction_lost_to_zero", stats.fractionLostToZero},
                    {"fraction_subnormal", stats.fractionSubnormal},
                    {"sqnr_db", std::isnan(stats.sqnrDb) ? nlohmann::ordered_json()
                                : std::isinf(stats.sqnrDb) ? nlohmann::ordered_json("inf")
                                                           : nlohmann::ordered_json(stats.sqnrDb)},
                    {"blocks", stats.blocks},
                    {"blocks_max_clipped", stats.blocksMaxClipped}};
    std::cout << out.dump(2) << "\n";
    return 0;
  }

  std::cout << "scheme " << info.name << ": " << ef.name << " elements, " << sf.name << " scales";
  if (info.blockSize > 0)
    std::cout << ", blocks of " << info.blockSize;
  if (mxScale)
    std::cout << ", scale rounding " << scaleRoundingName(options.scaleRounding);
  std::cout << "\n" << values.size() << " values (" << q.rows << " x " << q.cols << "), " << q.blocks.size()
            << (q.blocks.size() == 1 ? " block" : " blocks") << "\n";
  if (!mxScale && sf.totalBits() <= 8)
    std::cout << "tensor scale (fp32) " << hex(q.tensorScaleBits, 32) << " = " << number(q.tensorScale) << "\n";
  for (std::size_t b = 0; b < q.blocks.size(); ++b) {
    const QuantBlock& blk = q.blocks[b];
    std::cout << "\nblock " << b << "  rows " << blk.row << ".." << blk.row + blk.rows - 1 << " cols "
              << blk.col << ".." << blk.col + blk.cols - 1 << "  amax " << number(blk.amax) << "  scale "
              << scaleText(sf, blk) << (blk.maxClipped ? "  (maximum clipped)" : "") << "\n";
    std::cout << "  index  input            bits  element      value            note\n";
    for (std::size_t r = blk.row; r < blk.row + blk.rows; ++r)
      for (std::size_t c = blk.col; c < blk.col + blk.cols; ++c) {
        const std::size_t i = r * q.cols + c;
        char line[256];
        std::snprintf(line, sizeof line, "  %5zu  %-15s  %-4s  %-11s  %-15s  %s\n", i, number(values[i]).c_str(),
                      hex(q.elementBits[i], ef.totalBits()).c_str(), number(q.elementValue[i]).c_str(),
                      number(q.dequantized[i]).c_str(), flagsText(q.flags[i]).c_str());
        std::cout << line;
      }
  }
  std::cout << "\nsaturated " << percent(stats.fractionSaturated) << ", lost to zero "
            << percent(stats.fractionLostToZero) << ", subnormal " << percent(stats.fractionSubnormal)
            << ", SQNR " << (std::isnan(stats.sqnrDb) ? std::string("-") : decibels(stats.sqnrDb))
            << ", blocks with a clipped maximum " << stats.blocksMaxClipped << " of " << stats.blocks << "\n";
  return 0;
}

} // namespace mantissa::cli
