// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Answer checking and the worksheet's Markdown.
#include <mantissa/lessons/exercise.h>

#include <mantissa/numeric/codec.h>
#include <mantissa/numeric/exact_value.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <utility>

namespace mantissa::lessons {

using numeric::ExactValue;
using numeric::FloatFormat;

namespace {

constexpr std::size_t kMaxAnswerLength = 400;

std::string trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return std::string(s);
}

std::string lower(std::string s) {
  for (char& c : s)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// What a student typed: a pattern of the part's format, or a number.
struct Typed {
  std::optional<std::uint64_t> code;
  std::optional<ExactValue> value;
  std::string error;
};

Typed interpret(const FloatFormat& f, const std::string& text) {
  Typed t;
  const int width = f.totalBits();
  // A bit string: only 0/1 after removing spaces, '_' and an "0b" prefix,
  // with exactly the format's width.
  std::string bits;
  for (char c : text)
    if (c != ' ' && c != '_' && c != '\t')
      bits += c;
  if (bits.size() > 2 && (bits.rfind("0b", 0) == 0 || bits.rfind("0B", 0) == 0)) {
    bits.erase(0, 2);
    if (bits.size() != static_cast<std::size_t>(width) ||
        bits.find_first_not_of("01") != std::string::npos) {
      t.error = "'" + text + "' is not " + std::to_string(width) + " bits of " + std::string(f.displayName);
      return t;
    }
  }
  if (bits.size() == static_cast<std::size_t>(width) && bits.find_first_not_of("01") == std::string::npos) {
    std::uint64_t v = 0;
    for (char c : bits)
      v = (v << 1) | static_cast<std::uint64_t>(c - '0');
    t.code = v;
    return t;
  }
  // A hex code: 0x and hex digits only (a hex float has '.' or 'p').
  if (bits.size() > 2 && (bits.rfind("0x", 0) == 0 || bits.rfind("0X", 0) == 0) &&
      bits.find_first_not_of("0123456789abcdefABCDEF", 2) == std::string::npos) {
    std::string digits = bits.substr(2);
    const auto first = digits.find_first_not_of('0');
    digits = first == std::string::npos ? "0" : digits.substr(first);
    std::uint64_t v = 0;
    const auto r = std::from_chars(digits.data(), digits.data() + digits.size(), v, 16);
    if (r.ec != std::errc() || (width < 64 && (v >> width) != 0)) {
      t.error = "'" + text + "' has more than the " + std::to_string(width) + " bits of " +
                std::string(f.displayName);
      return t;
    }
    t.code = v;
    return t;
  }
  // 2^k, -2^k.
  std::string s = lower(bits);
  const bool negative = !s.empty() && s[0] == '-';
  if (s.rfind(negative ? "-2^" : "2^", 0) == 0) {
    const std::string exp = s.substr(negative ? 3 : 2);
    int k = 0;
    const auto r = std::from_chars(exp.data(), exp.data() + exp.size(), k);
    if (r.ec == std::errc() && r.ptr == exp.data() + exp.size() && k > -2000 && k < 2000) {
      t.value = ExactValue::finite(negative, {1u}, k, 2);
      return t;
    }
  }
  numeric::ParseResult p = numeric::parseNumber(text);
  if (!p.value) {
    t.error = "'" + text + "' is not a number, a bit string or a hex code";
    return t;
  }
  t.value = std::move(*p.value);
  return t;
}

bool isNan(const FloatFormat& f, std::uint64_t bits) {
  return numeric::classify(f, bits) == numeric::FloatClass::NaN;
}

std::string describe(const FloatFormat& f, std::uint64_t bits) {
  return numeric::formatBitsHex(f, bits) + " (" + numeric::decode(f, bits).exactDecimal + ")";
}

PartGrade gradeNumber(const AnswerPart& part, const std::string& text) {
  const FloatFormat& f = numeric::formatInfo(part.format);
  const Typed t = interpret(f, text);
  PartGrade g;
  const std::string key = part.form == AnswerForm::Code ? part.keyText : part.value;
  if (!t.error.empty()) {
    g.feedback = t.error + ".";
    return g;
  }
  if (t.code) {
    g.correct = *t.code == part.bits || (isNan(f, *t.code) && isNan(f, part.bits));
    g.feedback = g.correct ? "Correct: " + describe(f, *t.code) + "."
                           : describe(f, *t.code) + " is not it; the answer is " + key + ".";
    return g;
  }
  const numeric::EncodeResult r = numeric::encode(f, *t.value);
  const bool sameCode = r.bits == part.bits || (isNan(f, r.bits) && isNan(f, part.bits));
  if (part.form == AnswerForm::Code) {
    // The value must be the key's exactly: rounding it is the exercise.
    g.correct = sameCode && !r.inexact;
    if (g.correct)
      g.feedback = "Correct: " + describe(f, r.bits) + ".";
    else if (r.inexact)
      g.feedback = t.value->toString() + " is not a value of " + std::string(f.displayName) +
                   "; the answer is " + key + ".";
    else
      g.feedback = t.value->toString() + " is " + numeric::formatBitsHex(f, r.bits) +
                   "; the answer is " + key + ".";
    return g;
  }
  g.correct = sameCode;
  g.feedback = g.correct ? "Correct: " + part.value + "."
                         : t.value->toString() + " is not it; the answer is " + key + ".";
  return g;
}

PartGrade gradeIndices(const AnswerPart& part, const std::string& text) {
  PartGrade g;
  const std::string s = lower(text);
  std::vector<int> given;
  if (s != "none" && s != "-" && s != "no" && s != "nothing") {
    std::string token;
    const auto flush = [&]() -> bool {
      const std::string t = std::exchange(token, std::string());
      if (t.empty() || t == "and")
        return true;
      int v = 0;
      const auto r = std::from_chars(t.data(), t.data() + t.size(), v);
      if (r.ec != std::errc() || r.ptr != t.data() + t.size() || v < 1 || v > 1000)
        return false;
      given.push_back(v);
      return true;
    };
    for (char c : s + " ") {
      if (c == ',' || c == ';' || c == ' ' || c == '(' || c == ')') {
        if (!flush()) {
          g.feedback = "'" + text + "' is not a list of item numbers (write \"2, 5\" or \"none\").";
          return g;
        }
      } else {
        token += c;
      }
    }
    if (given.empty()) {
      g.feedback = "Write item numbers (\"2, 5\") or \"none\".";
      return g;
    }
  }
  std::sort(given.begin(), given.end());
  given.erase(std::unique(given.begin(), given.end()), given.end());
  g.correct = given == part.indices;
  g.feedback = g.correct ? "Correct: " + part.keyText + "." : "The answer is " + part.keyText + ".";
  return g;
}

PartGrade gradeDigits(const AnswerPart& part, const std::string& text) {
  PartGrade g;
  std::string digits;
  for (char c : lower(text))
    if (std::isdigit(static_cast<unsigned char>(c)) != 0)
      digits += c;
    else if (c != ' ' && c != ',' && c != 'g' && c != 'r' && c != 's' && c != '=' && c != ';') {
      g.feedback = "'" + text + "' is not a digit string (write \"101\").";
      return g;
    }
  g.correct = digits == part.digits;
  g.feedback = g.correct ? "Correct: " + part.digits + "." : "The answer is " + part.digits + ".";
  return g;
}

} // namespace

bool Grade::correct() const {
  return !parts.empty() && std::all_of(parts.begin(), parts.end(), [](const PartGrade& p) { return p.correct; });
}

PartGrade gradePart(const AnswerPart& part, std::string_view answer) {
  const std::string text = trimmed(answer);
  if (text.empty())
    return {false, "No answer."};
  if (text.size() > kMaxAnswerLength)
    return {false, "The answer is longer than " + std::to_string(kMaxAnswerLength) + " characters."};
  switch (part.form) {
  case AnswerForm::Code:
  case AnswerForm::Value: return gradeNumber(part, text);
  case AnswerForm::Indices: return gradeIndices(part, text);
  case AnswerForm::Digits: return gradeDigits(part, text);
  }
  return {};
}

Grade gradeAnswer(const Exercise& exercise, std::span<const std::string> answers) {
  Grade g;
  for (std::size_t i = 0; i < exercise.parts.size(); ++i)
    g.parts.push_back(gradePart(exercise.parts[i], i < answers.size() ? answers[i] : std::string()));
  return g;
}

std::string_view exerciseAnswerRules() {
  return "Give a bit pattern as its bits (\"0101 0011\"), its hex code (\"0x53\") or the exact value it "
         "holds (\"26\", \"2^-3\", \"inf\"); a value as a decimal or 2^k that rounds to it in the format. "
         "Lists are item numbers (\"2, 5\") or \"none\"; G R S are three digits (\"101\").";
}

std::string sheetMarkdown(const Sheet& sheet) {
  std::string md = "# Worksheet: " + sheet.title + "\n\n";
  md += std::to_string(sheet.items.size()) + " items, difficulty " + std::to_string(sheet.spec.difficulty) +
        ". Generated by Mantissa from seed " + std::to_string(sheet.spec.seed) +
        ": the same seed gives the same sheet.\n\n";
  md += std::string(exerciseAnswerRules()) + "\n\n## Questions\n\n";
  int n = 0;
  for (const Exercise& ex : sheet.items) {
    md += std::to_string(++n) + ". " + ex.question + "\n";
    for (std::size_t i = 0; i < ex.items.size(); ++i)
      md += "   - (" + std::to_string(i + 1) + ") " + ex.items[i] + "\n";
    for (const AnswerPart& p : ex.parts)
      md += "   - " + p.label + ": ____________________\n";
    md += "\n";
  }
  md += "## Answer key\n\n";
  n = 0;
  for (const Exercise& ex : sheet.items) {
    md += "### " + std::to_string(++n) + "\n\n";
    for (const AnswerPart& p : ex.parts)
      md += "- " + p.label + ": **" + p.keyText + "**\n";
    md += "\nWorked solution:\n\n";
    int s = 0;
    for (const std::string& step : ex.steps)
      md += std::to_string(++s) + ". " + step + "\n";
    md += "\n";
  }
  return md;
}

} // namespace mantissa::lessons
