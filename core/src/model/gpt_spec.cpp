// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// GPT spec parsing: "gpt:layers=4,heads=4,embd=128,ctx=64".
#include <mantissa/amp/policy.h>
#include <mantissa/model/gpt.h>

#include <array>
#include <charconv>
#include <stdexcept>

#include <mantissa/io/excerpt.h>

namespace mantissa::model {
namespace {

[[noreturn]] void fail(std::string_view spec, const std::string& problem) {
  throw std::invalid_argument("model spec '" + io::excerpt(spec) + "': " + problem +
                              " (expected e.g. gpt:layers=4,heads=4,embd=128,ctx=64)");
}

struct Field {
  std::string_view key;
  int GptSpec::*member;
  int max;
};

constexpr std::array<Field, 4> kFields{Field{"layers", &GptSpec::layers, kGptMaxLayers},
                                       Field{"heads", &GptSpec::heads, kGptMaxHeads},
                                       Field{"embd", &GptSpec::embd, kGptMaxEmbd},
                                       Field{"ctx", &GptSpec::ctx, kGptMaxCtx}};

} // namespace

bool isGptSpec(std::string_view spec) {
  return spec == "gpt" || spec.starts_with("gpt:");
}

GptSpec parseGptSpec(std::string_view spec) {
  if (!isGptSpec(spec))
    fail(spec, "must be 'gpt' or start with 'gpt:'");
  GptSpec result;
  if (spec == "gpt")
    return result;
  std::string_view rest = spec.substr(4);
  if (rest.empty())
    fail(spec, "nothing after 'gpt:'");
  std::array<bool, kFields.size()> seen{};
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0)
      fail(spec, "'" + io::excerpt(item) + "' is not key=value");
    const std::string_view key = item.substr(0, eq), value = item.substr(eq + 1);
    std::size_t index = kFields.size();
    for (std::size_t i = 0; i < kFields.size(); ++i)
      if (kFields[i].key == key)
        index = i;
    if (index == kFields.size()) {
      std::string hint;
      for (const Field& f : kFields)
        if (amp::editDistance(key, f.key) <= 2)
          hint = "; did you mean '" + std::string(f.key) + "'?";
      fail(spec, "unknown key '" + io::excerpt(key) + "'" + hint +
                     " (keys: layers, heads, embd, ctx)");
    }
    if (seen[index])
      fail(spec, "'" + io::excerpt(key) + "' is given twice");
    seen[index] = true;
    const Field& f = kFields[index];
    int n = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (value.empty() || ec == std::errc::invalid_argument || end != value.data() + value.size())
      fail(spec, io::excerpt(key) + " '" + io::excerpt(value) + "' is not a whole number");
    if (ec == std::errc::result_out_of_range || n < 1 || n > f.max)
      fail(spec, io::excerpt(key) + " " + io::excerpt(value) + " is outside [1, " +
                     std::to_string(f.max) + "]");
    result.*(f.member) = n;
    if (comma == std::string_view::npos)
      break;
    rest = rest.substr(comma + 1);
    if (rest.empty())
      fail(spec, "trailing ','");
  }
  if (result.embd % result.heads != 0)
    fail(spec, "embd " + std::to_string(result.embd) + " is not divisible by heads " +
                   std::to_string(result.heads));
  return result;
}

} // namespace mantissa::model
