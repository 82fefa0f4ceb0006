// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// `mantissa-cli quantize`'s input: numeric::parseValueList, then every
// accepted list quantized with the scheme, scale rounding and shape the first
// byte picks. Properties: a rejection names a line and column; an accepted
// list quantizes into element bits that fit the element format, one block
// per value at most, finite values in blocks with a finite scale dequantize
// to finite values no larger than the element maximum x scale, and the
// statistics are fractions.

#include <mantissa/numeric/block_quant.h>
#include <mantissa/numeric/value_list.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace mantissa::numeric;
  if (size < 1 || size > 16384)
    return 0;
  const std::uint8_t pick = data[0];
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  ValueListLimits limits;
  limits.maxValues = 4096;
  const ValueListResult parsed = parseValueList(text, limits);
  if (!parsed.error.empty()) {
    if (parsed.line == 0 || parsed.column == 0 || !parsed.values.empty())
      std::abort(); // a rejection must say where
    return 0;
  }
  const auto schemes = allSchemes();
  const BlockScheme scheme = schemes[pick % schemes.size()];
  QuantizeOptions options;
  options.scaleRounding = static_cast<ScaleRounding>((pick / 16) % 4);
  options.elementRounding = (pick & 0x40) ? Rounding::Stochastic : Rounding::NearestEven;
  const std::size_t n = parsed.values.size();
  if ((pick & 0x80) && n % 2 == 0 && n > 0) {
    options.cols = n / 2; // two rows
    options.weightBlocks = (pick & 0x08) != 0;
  }
  const QuantizedTensor q = quantize(parsed.values, scheme, options);
  const SchemeInfo& info = schemeInfo(scheme);
  const FloatFormat& element = formatInfo(info.element);
  if (q.elementBits.size() != n || q.dequantized.size() != n || q.blocks.size() > n)
    std::abort();
  for (std::size_t i = 0; i < n; ++i) {
    if ((q.elementBits[i] >> element.totalBits()) != 0)
      std::abort(); // bits wider than the element format
    if (q.blockOf[i] >= q.blocks.size())
      std::abort();
    const QuantBlock& b = q.blocks[q.blockOf[i]];
    if (std::isfinite(parsed.values[i]) && std::isfinite(b.scale)) {
      const double top = element.maxFinite() * b.scale * q.tensorScale;
      if (!std::isfinite(q.dequantized[i]) || std::fabs(q.dequantized[i]) > top)
        std::abort();
    }
  }
  const QuantStats s = quantStats(parsed.values, q);
  for (double f : {s.fractionSaturated, s.fractionLostToZero, s.fractionSubnormal})
    if (!(f >= 0.0 && f <= 1.0))
      std::abort();
  if (s.count + s.nonFinite != n)
    std::abort();
  return 0;
}
