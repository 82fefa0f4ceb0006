// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

#include <mantissa/numeric/codec.h>
#include <mantissa/numeric/exact_value.h>
#include <mantissa/numeric/format.h>
#include <mantissa/numeric/neighbour.h>

#include <QString>

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

namespace mantissa::ui {

struct ExplorerOptions {
  numeric::Rounding rounding = numeric::Rounding::NearestEven;
  bool flushSubnormals = false; // FTZ/DAZ
  bool saturate = false;        // overflow clamps to max finite instead of inf/NaN
  std::uint32_t seed = 1;       // stochastic rounding: same seed, same result
};

// How one format stores the current value.
struct FormatReading {
  const numeric::FloatFormat* format = nullptr;
  std::uint64_t bits = 0;
  numeric::Decoded decoded;
  bool isSource = false; // these bits were given (typed as bits, clicked, stepped)
  bool inexact = false;
  bool overflowed = false;  // |typed| beyond max finite: became inf, NaN or max
  bool underflowed = false; // non-zero typed value became zero
  bool flushed = false;     // flushed to zero by FTZ/DAZ
  double absError = 0.0;    // stored - typed (approximate, in double); NaN if undefined
  double relError = 0.0;    // absError / |typed|
  double ulp = 0.0;         // NaN for inf/NaN
  // The neighbours below and above (numeric::neighbourBelow / neighbourAbove
  // under the chosen conversion): a value, infinity, or at the format's end
  // what a value beyond becomes (NaN, or the end itself when it saturates).
  std::uint64_t prevBits = 0;
  std::uint64_t nextBits = 0;
  numeric::NeighbourKind prevKind = numeric::NeighbourKind::Value;
  numeric::NeighbourKind nextKind = numeric::NeighbourKind::Value;
};

// What the text field parsed into: a value, or raw bits of one format.
struct ExplorerInput {
  std::optional<numeric::ExactValue> value;
  std::optional<numeric::FormatId> bitsFormat;
  std::uint64_t bits = 0;
  QString error; // names the input and what is wrong; empty on success
  QString note;  // a non-error remark (e.g. how 0x... was read)
};

// Parses the explorer's syntax: anything parseNumber() accepts (decimal, hex
// float, inf, nan), "fmt:0xBITS" (or 0b binary) for raw bits of a format, and,
// when `bitsOf` is set, bare hex (or 0b binary) as bits of that format.
ExplorerInput parseExplorerInput(const QString& text, std::optional<numeric::FormatId> bitsOf);

// The explorer's state without widgets: the typed value and every format's
// reading of it. Widgets render readings(); tests can drive it directly.
class ExplorerModel {
public:
  ExplorerModel();

  // Returns the error message (state unchanged) or an empty string.
  QString setInput(const QString& text, std::optional<numeric::FormatId> bitsOf = std::nullopt);
  // The given format takes exactly `bits`; the typed value becomes its value
  // and every other format is re-encoded from it.
  void setBits(numeric::FormatId id, std::uint64_t bits);
  void toggleBit(numeric::FormatId id, int bitIndex); // bit 0 = least significant
  void step(numeric::FormatId id, int direction);     // +1: next up, -1: next down
  void setOptions(const ExplorerOptions& options);

  const ExplorerOptions& options() const { return m_options; }
  const numeric::ExactValue& typed() const { return m_typed; }
  const std::vector<FormatReading>& readings() const { return m_readings; }
  const FormatReading& reading(numeric::FormatId id) const;
  // A user-defined format (any FloatFormat, e.g. from CustomFormatForm): its
  // reading follows the typed value like the named ones'. Its bits are shown,
  // not edited (setBits, toggleBit and step take named formats). Returns the
  // format as stored here, at a stable address.
  const numeric::FloatFormat& addFormat(const numeric::FloatFormat& format);
  // The reading of the format at this address (a named one's formatInfo, or
  // one addFormat returned); the first reading if none.
  const FormatReading& reading(const numeric::FloatFormat& format) const;
  // The typed value as the text field should show it after setBits().
  QString typedText() const;

private:
  void recompute();

  ExplorerOptions m_options;
  numeric::ExactValue m_typed;
  std::optional<numeric::FormatId> m_source;
  std::uint64_t m_sourceBits = 0;
  std::vector<FormatReading> m_readings;
  std::deque<numeric::FloatFormat> m_added; // addFormat's, stable addresses
};

} // namespace mantissa::ui
