// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/formats/explorer_model.h"

#include <QObject>
#include <QRegularExpression>

#include <cmath>
#include <limits>

namespace mantissa::ui {
namespace {

using numeric::FloatClass;
using numeric::FormatId;

constexpr int kMaxTypedTextLength = 40;

QString cleaned(const QString& text) {
  QString s;
  s.reserve(text.size());
  for (QChar c : text) {
    if (c.isSpace() || c == QChar(0x200B))
      continue;
    s += c == QChar(0x2212) ? QChar(u'-') : c; // U+2212 MINUS SIGN
  }
  return s;
}

// Raw bits: "0x..." hex or "0b..." binary; bare hex only when `allowBare`.
std::optional<std::uint64_t> parseBits(const QString& s, bool allowBare, int* digitsBase) {
  QString digits = s;
  int base = 16;
  if (s.startsWith(QLatin1String("0x"), Qt::CaseInsensitive)) {
    digits = s.mid(2);
  } else if (s.startsWith(QLatin1String("0b"), Qt::CaseInsensitive)) {
    digits = s.mid(2);
    base = 2;
  } else if (!allowBare) {
    return std::nullopt;
  }
  static const QRegularExpression hex(QStringLiteral("^[0-9A-Fa-f]{1,16}$"));
  static const QRegularExpression bin(QStringLiteral("^[01]{1,64}$"));
  if (!(base == 16 ? hex : bin).match(digits).hasMatch())
    return std::nullopt;
  *digitsBase = base;
  bool ok = false;
  const std::uint64_t bits = digits.toULongLong(&ok, base);
  return ok ? std::optional(bits) : std::nullopt;
}

QString formatNames() {
  QStringList names;
  for (FormatId id : numeric::explorerFormats())
    names << QString::fromUtf8(numeric::formatInfo(id).name.data(),
                               qsizetype(numeric::formatInfo(id).name.size()));
  return names.join(QStringLiteral(", "));
}

void readBits(ExplorerInput& in, const QString& original, const QString& digits, FormatId id) {
  const auto& f = numeric::formatInfo(id);
  const QString name = QString::fromUtf8(f.displayName.data(), qsizetype(f.displayName.size()));
  int base = 16;
  const auto bits = parseBits(digits, true, &base);
  if (!bits) {
    in.error = QObject::tr("'%1' is not a bit pattern: write hex like 0x3dcccccd or binary "
                           "like 0b0011")
                   .arg(original);
    return;
  }
  if (f.totalBits() < 64 && (*bits >> f.totalBits()) != 0) {
    in.error = QObject::tr("'%1' has more bits than %2 holds (%3 bits)")
                   .arg(original, name)
                   .arg(f.totalBits());
    return;
  }
  in.bitsFormat = id;
  in.bits = *bits;
}

std::uint32_t stochasticBits(std::uint32_t seed, FormatId id) {
  // SplitMix64 of (seed, format): reproducible, independent per format.
  std::uint64_t z = (std::uint64_t(seed) << 8 | std::uint64_t(id)) + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return static_cast<std::uint32_t>((z ^ (z >> 31)) >> 32);
}

} // namespace

ExplorerInput parseExplorerInput(const QString& text, std::optional<numeric::FormatId> bitsOf) {
  ExplorerInput in;
  const QString s = cleaned(text);
  if (s.isEmpty()) {
    in.error = QObject::tr("Type a number (0.1, -0, 1e-8, 0x1.8p-3, inf, nan) or bits "
                           "(fp16:0x2e66)");
    return in;
  }
  if (const qsizetype colon = s.indexOf(u':'); colon >= 0) {
    const QString name = s.left(colon);
    const auto id = numeric::parseFormatName(name.toLower().toStdString());
    if (!id) {
      in.error = QObject::tr("'%1' is not a format; use one of %2").arg(name, formatNames());
      return in;
    }
    readBits(in, text.trimmed(), s.mid(colon + 1), *id);
    return in;
  }
  if (bitsOf) {
    readBits(in, text.trimmed(), s, *bitsOf);
    return in;
  }
  const numeric::ParseResult parsed = numeric::parseNumber(s.toStdString());
  if (!parsed.value) {
    in.error = parsed.error.empty() ? QObject::tr("'%1' is not a number").arg(text.trimmed())
                                    : QString::fromStdString(parsed.error);
    return in;
  }
  in.value = parsed.value;
  int base = 16;
  if (parseBits(s, false, &base) && base == 16)
    in.note = QObject::tr("%1 was read as the number %2; for raw bits pick \"Bits of\" or type "
                          "fp32:%1")
                  .arg(s, QString::fromStdString(parsed.value->toString()));
  return in;
}

ExplorerModel::ExplorerModel() {
  for (FormatId id : numeric::explorerFormats()) {
    FormatReading r;
    r.format = &numeric::formatInfo(id);
    m_readings.push_back(r);
  }
  recompute();
}

QString ExplorerModel::setInput(const QString& text, std::optional<numeric::FormatId> bitsOf) {
  const ExplorerInput in = parseExplorerInput(text, bitsOf);
  if (!in.error.isEmpty())
    return in.error;
  if (in.bitsFormat) {
    setBits(*in.bitsFormat, in.bits);
  } else {
    m_typed = *in.value;
    m_source.reset();
    recompute();
  }
  return {};
}

void ExplorerModel::setBits(numeric::FormatId id, std::uint64_t bits) {
  const auto& f = numeric::formatInfo(id);
  m_source = id;
  m_sourceBits = bits;
  const numeric::Decoded d = numeric::decode(f, bits);
  if (d.cls == FloatClass::NaN)
    m_typed = numeric::ExactValue::nan(d.negative);
  else
    m_typed = numeric::ExactValue::fromDouble(d.value);
  recompute();
}

void ExplorerModel::toggleBit(numeric::FormatId id, int bitIndex) {
  const auto& f = numeric::formatInfo(id);
  if (bitIndex < 0 || bitIndex >= f.totalBits())
    return;
  setBits(id, reading(id).bits ^ (std::uint64_t(1) << bitIndex));
}

void ExplorerModel::step(numeric::FormatId id, int direction) {
  const auto& f = numeric::formatInfo(id);
  const std::uint64_t bits = reading(id).bits;
  setBits(id, direction > 0 ? numeric::nextUp(f, bits) : numeric::nextDown(f, bits));
}

void ExplorerModel::setOptions(const ExplorerOptions& options) {
  m_options = options;
  recompute();
}

const FormatReading& ExplorerModel::reading(numeric::FormatId id) const {
  for (const FormatReading& r : m_readings)
    if (r.format->id == id)
      return r;
  return m_readings.front();
}

const numeric::FloatFormat& ExplorerModel::addFormat(const numeric::FloatFormat& format) {
  const numeric::FloatFormat& f = m_added.emplace_back(format);
  FormatReading r;
  r.format = &f;
  m_readings.push_back(r);
  recompute();
  return f;
}

const FormatReading& ExplorerModel::reading(const numeric::FloatFormat& format) const {
  for (const FormatReading& r : m_readings)
    if (r.format == &format)
      return r;
  return m_readings.front();
}

QString ExplorerModel::typedText() const {
  if (m_source) {
    const numeric::Decoded& d = reading(*m_source).decoded;
    if (d.cls == FloatClass::NaN)
      return QStringLiteral("nan");
    if (d.cls == FloatClass::Infinity)
      return d.negative ? QStringLiteral("-inf") : QStringLiteral("inf");
    if (d.exactDecimal.size() <= kMaxTypedTextLength)
      return QString::fromStdString(d.exactDecimal);
    return QString::asprintf("%a", d.value); // exact and short
  }
  return QString::fromStdString(m_typed.toString());
}

void ExplorerModel::recompute() {
  const double typed = m_typed.approximate();
  for (FormatReading& r : m_readings) {
    const numeric::FloatFormat& f = *r.format;
    numeric::EncodeOptions eo;
    eo.rounding = m_options.rounding;
    eo.flushSubnormals = m_options.flushSubnormals;
    eo.overflow =
        m_options.saturate ? numeric::OverflowMode::Saturate : numeric::OverflowMode::Infinity;
    eo.random = stochasticBits(m_options.seed, f.id);
    r.isSource = m_source && *m_source == f.id && f.id != FormatId::Custom;
    if (r.isSource) {
      r.bits = m_sourceBits;
      r.inexact = r.overflowed = r.underflowed = r.flushed = false;
    } else {
      const numeric::EncodeResult e = numeric::encode(f, m_typed, eo);
      r.bits = e.bits;
      r.inexact = e.inexact;
      r.overflowed = e.overflowed;
      r.underflowed = e.underflowed;
      r.flushed = e.flushed;
    }
    r.decoded = numeric::decode(f, r.bits);
    const double stored = r.decoded.value;
    constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
    if (std::isnan(typed) || std::isnan(stored)) {
      r.absError = r.relError = kNaN;
    } else if (std::isinf(typed) || std::isinf(stored)) {
      r.absError = typed == stored ? 0.0 : stored - typed;
      r.relError = typed == stored ? 0.0 : std::numeric_limits<double>::infinity();
    } else {
      r.absError = stored - typed;
      r.relError = typed != 0.0        ? r.absError / std::fabs(typed)
                   : r.absError == 0.0 ? 0.0
                                       : std::numeric_limits<double>::infinity();
    }
    r.ulp = numeric::ulp(f, r.bits);
    const numeric::Neighbour below = numeric::neighbourBelow(f, r.bits, eo);
    const numeric::Neighbour above = numeric::neighbourAbove(f, r.bits, eo);
    r.prevBits = below.bits;
    r.prevKind = below.kind;
    r.nextBits = above.bits;
    r.nextKind = above.kind;
  }
}

} // namespace mantissa::ui
