// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "ui/formats/number_text.h"

#include <cmath>

namespace mantissa::ui {
namespace {

constexpr QChar kMinus(0x2212);
constexpr int kPlainLimit = 32;
constexpr int kLineLength = 32;

QString superscript(int n) {
  static const char16_t kDigits[] = u"⁰¹²³⁴⁵⁶⁷⁸⁹";
  QString s = n < 0 ? QString(QChar(0x207B)) : QString();
  for (QChar c : QString::number(std::abs(n)))
    s += QChar(kDigits[c.digitValue()]);
  return s;
}

// "0.000123" -> digits "123", decimal exponent of the first digit -4.
QString toScientific(const QString& plain) {
  QString sign;
  QString s = plain;
  if (s.startsWith(u'-')) {
    sign = QStringLiteral("-");
    s = s.mid(1);
  }
  const qsizetype dot = s.indexOf(u'.');
  const QString intPart = dot < 0 ? s : s.left(dot);
  const QString fracPart = dot < 0 ? QString() : s.mid(dot + 1);
  QString digits = intPart + fracPart;
  qsizetype lead = 0;
  while (lead < digits.size() && digits[lead] == u'0')
    ++lead;
  if (lead == digits.size())
    return plain;
  digits = digits.mid(lead);
  while (digits.size() > 1 && digits.endsWith(u'0'))
    digits.chop(1);
  const qsizetype exponent = intPart.size() - 1 - lead;
  QString mantissa = digits.left(1);
  if (digits.size() > 1)
    mantissa += u'.' + digits.mid(1);
  return sign + mantissa + QStringLiteral("e") + QString::number(exponent);
}

} // namespace

QString powerOfTwoText(int exponent) {
  return QStringLiteral("2") + superscript(exponent);
}

QString powerOfTwoText(double value) {
  if (!(value > 0.0) || std::isinf(value))
    return {};
  int e = 0;
  const double m = std::frexp(value, &e);
  return m == 0.5 ? powerOfTwoText(e - 1) : QString();
}

int distinguishingDigits(const numeric::FloatFormat& format) {
  const double bits = format.mantissaBits + 1;
  return std::max(3, static_cast<int>(std::ceil(bits * std::log10(2.0))) + 1);
}

QString shortNumber(double value, int digits, bool forceSign) {
  if (std::isnan(value))
    return QStringLiteral("NaN");
  if (std::isinf(value))
    return value < 0 ? QString(kMinus) + QStringLiteral("∞") : QStringLiteral("∞");
  // Integers up to 2^53 print in full (69632, not 6.963e4).
  const bool integral = std::fabs(value) >= 1.0 && std::fabs(value) < 9007199254740992.0 &&
                        value == std::trunc(value);
  QString s = integral ? QString::number(value, 'f', 0) : QString::number(value, 'g', digits);
  // "1.49e-09" -> "1.49e-9", "1e+05" -> "1e5"
  const qsizetype e = s.indexOf(u'e');
  if (e >= 0) {
    QString exp = s.mid(e + 1);
    const bool negative = exp.startsWith(u'-');
    exp.remove(0, exp.startsWith(u'-') || exp.startsWith(u'+') ? 1 : 0);
    while (exp.size() > 1 && exp.startsWith(u'0'))
      exp.remove(0, 1);
    s = s.left(e + 1) + (negative ? QStringLiteral("-") : QString()) + exp;
  }
  if (forceSign && value >= 0 && !std::signbit(value))
    s.prepend(u'+');
  s.replace(u'-', kMinus);
  return s;
}

QString exactDigitsText(const std::string& exactDecimal) {
  QString s = QString::fromStdString(exactDecimal);
  if (s.size() > kPlainLimit) {
    const QString sci = toScientific(s);
    if (sci.size() < s.size())
      s = sci;
  }
  QString wrapped;
  for (qsizetype i = 0; i < s.size(); i += kLineLength)
    wrapped += (i > 0 ? QStringLiteral("\n") : QString()) + s.mid(i, kLineLength);
  return wrapped;
}

QString plainDigits(const QString& text) {
  QString s = text;
  s.remove(u'\n');
  return s;
}

} // namespace mantissa::ui
