// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "format_regions.h"

#include <QObject>

#include <cmath>
#include <limits>

namespace mantissa::ui {

namespace {

std::vector<FormatRegion> runFormatRegions(numeric::FormatId format) {
  const numeric::FloatFormat& info = numeric::formatInfo(format);
  const QString name = QString::fromUtf8(info.displayName.data(),
                                         static_cast<qsizetype>(info.displayName.size()));
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const double minSub = std::log2(info.minSubnormal());
  if (format == numeric::FormatId::Bf16) {
    // Mantissa's FP32 -> BF16 casts flush subnormals to zero, as
    // VCVTNEPS2BF16 does: everything below BF16's (and FP32's) smallest
    // normal becomes zero, and no value lands in BF16's subnormal range,
    // which is left empty here (the Explorer shows the format's own
    // subnormals and says that the casts flush them).
    const double minNormal = std::log2(info.minNormal());
    return {
        {format, RegionKind::FlushToZero, -kInf, minNormal,
         QObject::tr("%1 → 0 (casts flush subnormals)").arg(name)},
        {format, RegionKind::Subnormal, minNormal, minNormal, QObject::tr("%1 subnormal").arg(name)},
        {format, RegionKind::Overflow, std::log2(info.maxFinite()), kInf,
         QObject::tr("%1 → inf").arg(name)},
    };
  }
  // Halfway between 0 and the smallest subnormal rounds to zero (ties to even),
  // so everything up to and including 2^(minSub - 1) is lost.
  return {
      {format, RegionKind::FlushToZero, -kInf, minSub - 1.0, QObject::tr("%1 → 0").arg(name)},
      {format, RegionKind::Subnormal, minSub, std::log2(info.minNormal()),
       QObject::tr("%1 subnormal").arg(name)},
      {format, RegionKind::Overflow, std::log2(info.maxFinite()), kInf,
       info.hasInfinity() ? QObject::tr("%1 → inf").arg(name)
                          : QObject::tr("%1 overflow").arg(name)},
  };
}

} // namespace

std::vector<FormatRegion> formatRegions(numeric::FormatId format, RegionVoice voice) {
  std::vector<FormatRegion> regions = runFormatRegions(format);
  if (voice == RegionVoice::RunFormat)
    return regions;
  const numeric::FloatFormat& info = numeric::formatInfo(format);
  const QString name = QString::fromUtf8(info.displayName.data(),
                                         static_cast<qsizetype>(info.displayName.size()));
  // Short: a label must fit between the edges of a narrow plot; the chart's
  // title says the rest ("shaded as it would be in FP16").
  const QString shortName =
      name.startsWith(QStringLiteral("FP8 ")) || name.startsWith(QStringLiteral("FP4 ")) ? name.mid(4) : name;
  for (FormatRegion& region : regions) {
    switch (region.kind) {
    case RegionKind::FlushToZero:
      region.label = QObject::tr("if %1: → 0").arg(shortName);
      break;
    case RegionKind::Subnormal:
      region.label = QObject::tr("if %1: subnormal").arg(shortName);
      break;
    case RegionKind::Overflow:
      region.label = info.hasInfinity() ? QObject::tr("if %1: → inf").arg(shortName)
                                        : QObject::tr("if %1: overflow").arg(shortName);
      break;
    }
  }
  return regions;
}

const std::vector<numeric::FormatId>& histogramFormats() {
  static const std::vector<numeric::FormatId> kFormats{
      numeric::FormatId::Fp16, numeric::FormatId::Bf16, numeric::FormatId::Fp8E5M2,
      numeric::FormatId::Fp8E4M3, numeric::FormatId::Fp4E2M1};
  return kFormats;
}

} // namespace mantissa::ui
