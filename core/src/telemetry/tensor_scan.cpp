// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "telemetry/scan.h"

#include <mantissa/telemetry/tensor_scan.h>

#include <mantissa/numeric/format_spec.h>

#include <stdexcept>
#include <string>

namespace mantissa::telemetry {

const std::shared_ptr<const CastView>& builtinCastView() {
  static const std::shared_ptr<const CastView> view = [] {
    auto v = std::make_shared<CastView>();
    const auto& t = detail::viewThresholds();
    v->thresholds.assign(t.begin(), t.end());
    return std::shared_ptr<const CastView>(std::move(v));
  }();
  return view;
}

std::shared_ptr<const CastView> makeCastView(std::span<const numeric::FloatFormat> formats) {
  auto v = std::make_shared<CastView>(*builtinCastView());
  for (const numeric::FloatFormat& f : formats) {
    bool known = false;
    for (const CastTarget t : kCastTargets)
      known = known || f.sameEncoding(numeric::formatInfo(formatIdOf(t)));
    for (const numeric::FloatFormat& g : v->formats)
      known = known || f.sameEncoding(g);
    if (known)
      continue;
    if (const std::string e = castFormatError(f); !e.empty())
      throw std::invalid_argument(e);
    if (v->formats.size() == kMaxCastFormats)
      throw std::invalid_argument("at most " + std::to_string(kMaxCastFormats) +
                                  " formats beyond fp16, bf16, fp8-e4m3 and fp8-e5m2; " + f.name +
                                  " is one more");
    v->formats.push_back(f);
    const CastThresholds c = castThresholds(f);
    v->thresholds.insert(v->thresholds.end(), {c.zeroBelow, c.normalBelow, c.overflowFrom});
  }
  return v;
}

std::optional<std::vector<numeric::FloatFormat>> parseCastFormatList(std::string_view list,
                                                                     std::string& error) {
  std::vector<std::string> items;
  std::string_view rest = list;
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    const bool field = item.find('=') != std::string_view::npos &&
                       !items.empty() && items.back().find(':') != std::string::npos;
    if (field)
      items.back() += "," + std::string(item);
    else
      items.emplace_back(item);
    if (comma == std::string_view::npos)
      break;
    rest = rest.substr(comma + 1);
  }
  std::vector<numeric::FloatFormat> formats;
  for (const std::string& item : items) {
    const numeric::FormatParse p = numeric::parseFormatSpec(item);
    if (!p.format) {
      error = p.error;
      return std::nullopt;
    }
    formats.push_back(*p.format);
  }
  try {
    (void)makeCastView(formats);
  } catch (const std::invalid_argument& e) {
    error = e.what();
    return std::nullopt;
  }
  return formats;
}

TensorScan& TensorScan::operator+=(const TensorScan& other) {
  hist += other.hist;
  for (std::size_t j = 0; j < below.size(); ++j)
    below[j] += other.below[j];
  if (!view)
    view = other.view;
  bits += other.bits;
  return *this;
}

void scanInto(std::span<const float> values, TensorScan& scan) {
  const std::vector<std::uint32_t>& t = scan.castView().thresholds;
  detail::scan(values, 1.0f, t, scan.hist, std::span(scan.below).first(t.size()), &scan.bits);
}

} // namespace mantissa::telemetry
