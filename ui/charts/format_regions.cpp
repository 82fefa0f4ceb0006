// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "format_regions.h"

#include <mantissa/numeric/format_limits.h>

#include <QObject>

#include <limits>

namespace mantissa::ui {

namespace {

using numeric::OverflowTo;

QString overflowWord(OverflowTo to) {
  switch (to) {
  case OverflowTo::Infinity: return QObject::tr("→ inf");
  case OverflowTo::NanOrMax: return QObject::tr("overflow");
  case OverflowTo::Max: return QObject::tr("saturates");
  }
  return {};
}

} // namespace

QString formatKey(const numeric::FloatFormat& format) { return QString::fromStdString(format.name); }

QString formatKey(numeric::FormatId format) { return formatKey(numeric::formatInfo(format)); }

QString formatDisplayName(const numeric::FloatFormat& format) {
  const std::string& name = format.displayName.empty() ? format.name : format.displayName;
  return QString::fromStdString(name);
}

std::vector<FormatRegion> formatRegions(const numeric::FloatFormat& format, RegionVoice voice) {
  const numeric::FormatLimits limits = numeric::formatLimits(format);
  const QString key = formatKey(format);
  const QString name = formatDisplayName(format);
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<FormatRegion> regions{
      {key, RegionKind::FlushToZero, -kInf, limits.flushToZeroLog2,
       limits.castsFlushSubnormals ? QObject::tr("%1 → 0 (casts flush subnormals)").arg(name)
                                   : QObject::tr("%1 → 0").arg(name)},
      {key, RegionKind::Subnormal, limits.subnormalLoLog2, limits.subnormalHiLog2,
       QObject::tr("%1 subnormal").arg(name)},
      {key, RegionKind::Overflow, limits.overflowLog2, kInf,
       QObject::tr("%1 %2").arg(name, overflowWord(limits.overflow))},
  };
  if (voice == RegionVoice::RunFormat)
    return regions;
  // Short: a label must fit between the edges of a narrow plot; the chart's
  // title says the rest ("shaded as it would be in FP16").
  const QString shortName =
      name.startsWith(QStringLiteral("FP8 ")) || name.startsWith(QStringLiteral("FP4 ")) ? name.mid(4) : name;
  regions[0].label = QObject::tr("if %1: → 0").arg(shortName);
  regions[1].label = QObject::tr("if %1: subnormal").arg(shortName);
  regions[2].label = QObject::tr("if %1: %2").arg(shortName, overflowWord(limits.overflow));
  return regions;
}

std::vector<FormatRegion> formatRegions(numeric::FormatId format, RegionVoice voice) {
  return formatRegions(numeric::formatInfo(format), voice);
}

const std::vector<numeric::FormatId>& histogramFormats() {
  static const std::vector<numeric::FormatId> kFormats{
      numeric::FormatId::Fp16, numeric::FormatId::Bf16, numeric::FormatId::Fp8E5M2,
      numeric::FormatId::Fp8E4M3, numeric::FormatId::Fp4E2M1};
  return kFormats;
}

} // namespace mantissa::ui
