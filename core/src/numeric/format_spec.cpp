// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/numeric/format_spec.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>
#include <sstream>

namespace mantissa::numeric {
namespace {

constexpr int kMaxExponentBits = 11;
constexpr int kMaxMantissaBits = 52;
constexpr long long kMaxBiasMagnitude = 1'000'000; // far past any double's range

FormatParse fail(std::string message) { return FormatParse{std::nullopt, std::move(message)}; }

std::string lowered(std::string_view text) {
  std::string s(text);
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

// Printable, quoted and cut to 40 characters for messages.
std::string quoted(std::string_view s) {
  std::string out = "'";
  for (char c : s.substr(0, 40))
    out += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
  if (s.size() > 40)
    out += "...";
  return out + "'";
}

std::optional<long long> parseInteger(std::string_view s) {
  long long v = 0;
  if (!s.empty() && s.front() == '+')
    s.remove_prefix(1);
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size())
    return std::nullopt;
  return v;
}

std::optional<NanEncoding> parseSpecial(std::string_view s) {
  for (NanEncoding rule : {NanEncoding::Ieee, NanEncoding::AllOnesOnly, NanEncoding::Fnuz, NanEncoding::None})
    if (specialRuleName(rule) == s)
      return rule;
  return std::nullopt;
}

std::optional<bool> parseYesNo(std::string_view s) {
  if (s == "yes" || s == "true" || s == "1" || s == "on")
    return true;
  if (s == "no" || s == "false" || s == "0" || s == "off")
    return false;
  return std::nullopt;
}

std::string displayNameOf(const FloatFormat& f) {
  std::string s = f.hasSign() ? "E" : "UE";
  s += std::to_string(f.exponentBits) + "M" + std::to_string(f.mantissaBits);
  s += " b" + std::to_string(f.bias()) + " " + std::string(specialRuleName(f.nan));
  if (!f.subnormals)
    s += " nosub";
  return s;
}

// The named format with this encoding, else the format as Custom.
FloatFormat canonical(FloatFormat f, std::string displayName) {
  for (FormatId id : namedFormats()) {
    const FloatFormat& named = formatInfo(id);
    if (named.sameEncoding(f))
      return displayName.empty() ? named : [&] {
        FloatFormat g = named;
        g.displayName = displayName;
        return g;
      }();
  }
  f.id = FormatId::Custom;
  f.layout = Layout::SignExponentMantissa;
  f.exponentBias = f.bias();
  f.name = f.spec();
  f.displayName = displayName.empty() ? displayNameOf(f) : std::move(displayName);
  return f;
}

FloatFormat plainFormat(int e, int m, bool sign) {
  FloatFormat f{FormatId::Custom, "", "", e, m, NanEncoding::Ieee};
  f.signBit = sign;
  return f;
}

// Applies one "key=value" field to f; "" or the error.
std::string applyField(FloatFormat& f, std::string_view key, std::string_view value) {
  if (value.empty())
    return std::string(key) + ": no value after '='";
  if (key == "bias") {
    const auto v = parseInteger(value);
    if (!v)
      return "bias: " + quoted(value) + " is not an integer";
    if (*v > kMaxBiasMagnitude || *v < -kMaxBiasMagnitude)
      return "bias: " + quoted(value) + " is far outside any double's exponent range";
    f.exponentBias = static_cast<int>(*v);
  } else if (key == "special") {
    const auto rule = parseSpecial(value);
    if (!rule)
      return "special: " + quoted(value) + " is not one of ieee, fn, fnuz, none";
    f.nan = *rule;
  } else if (key == "subnormals") {
    const auto yes = parseYesNo(value);
    if (!yes)
      return "subnormals: " + quoted(value) + " is not yes or no";
    f.subnormals = *yes;
  } else if (key == "sign") {
    const auto yes = parseYesNo(value);
    if (!yes)
      return "sign: " + quoted(value) + " is not yes or no";
    f.signBit = *yes;
  } else {
    return "unknown field " + quoted(key) + " (the fields are bias, special, subnormals, sign)";
  }
  return {};
}

// "e4m3", "ue4m3" -> widths; nullopt if the text is not of that shape.
std::optional<FloatFormat> parseWidths(std::string_view base, std::string& error) {
  bool sign = true;
  if (!base.empty() && base.front() == 'u') {
    sign = false;
    base.remove_prefix(1);
  }
  if (base.size() < 4 || base.front() != 'e')
    return std::nullopt;
  const auto mPos = base.find('m');
  if (mPos == std::string_view::npos)
    return std::nullopt;
  const std::string_view eText = base.substr(1, mPos - 1), mText = base.substr(mPos + 1);
  const auto allDigits = [](std::string_view s) {
    return !s.empty() && s.size() <= 6 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (!allDigits(eText) || !allDigits(mText))
    return std::nullopt;
  const int e = std::stoi(std::string(eText)), m = std::stoi(std::string(mText));
  if (e > kMaxExponentBits) {
    error = "exponent bits: " + std::to_string(e) + " is more than " + std::to_string(kMaxExponentBits);
    return std::nullopt;
  }
  if (m > kMaxMantissaBits) {
    error = "mantissa bits: " + std::to_string(m) + " is more than " + std::to_string(kMaxMantissaBits);
    return std::nullopt;
  }
  return plainFormat(e, m, sign);
}

FormatParse finish(FloatFormat f, std::string displayName) {
  if (std::string error = validateFormat(f); !error.empty())
    return fail(std::move(error));
  return FormatParse{canonical(std::move(f), std::move(displayName)), {}};
}

} // namespace

std::string validateFormat(const FloatFormat& f) {
  if (f.layout != Layout::SignExponentMantissa)
    return {}; // E8M0 and the integers exist only as named formats
  const int e = f.exponentBits, m = f.mantissaBits;
  if (e < 0 || e > kMaxExponentBits)
    return "exponent bits: " + std::to_string(e) + " is outside 0.." + std::to_string(kMaxExponentBits);
  if (m < 0 || m > kMaxMantissaBits)
    return "mantissa bits: " + std::to_string(m) + " is outside 0.." + std::to_string(kMaxMantissaBits);
  if (e + m < 1)
    return "exponent bits + mantissa bits: at least 1 is needed";
  switch (f.nan) {
  case NanEncoding::Ieee:
    if (e < 2 || m < 1)
      return "special: ieee needs at least 2 exponent bits and 1 mantissa bit (inf and NaN live in the "
             "all-ones exponent); use fn, fnuz or none";
    break;
  case NanEncoding::AllOnesOnly:
    if (e + m < 2)
      return "special: fn needs at least 2 bits besides the sign (its NaN is the all-ones pattern)";
    break;
  case NanEncoding::Fnuz:
    if (!f.hasSign())
      return "special: fnuz needs a sign bit (its NaN is the pattern of -0)";
    break;
  case NanEncoding::None: break;
  }
  if (!f.subnormals && e == 0)
    return "subnormals: a format without exponent bits has only subnormals";
  const long long bias = f.bias();
  if (bias > kMaxBiasMagnitude || bias < -kMaxBiasMagnitude)
    return "bias: " + std::to_string(bias) + " is far outside any double's exponent range";
  // The largest finite value is below 2^(largest + 1); a double's below 2^1024.
  const long long largest = (1ll << e) - (f.nan == NanEncoding::Ieee ? 2 : 1) - bias;
  const long long smallest = 1 - bias - (f.subnormals ? m : 0);
  if (largest > 1023)
    return "bias: " + std::to_string(bias) + " puts the largest exponent at 2^" + std::to_string(largest) +
           ", past a double's 2^1023";
  if (smallest < -1074)
    return "bias: " + std::to_string(bias) + " puts the smallest value at 2^" + std::to_string(smallest) +
           ", below a double's 2^-1074";
  return {};
}

std::string tensorFormatError(const FloatFormat& f) {
  if (f.id != FormatId::Custom || f.totalBits() <= kMaxTensorFormatBits)
    return {};
  return "format " + f.name + ": " + std::to_string(f.totalBits()) + " bits; a tensor's element format has at most " +
         std::to_string(kMaxTensorFormatBits) + " bits (wider ones are for the Explorer)";
}

FormatParse parseFormatSpec(std::string_view text) {
  if (text.size() > kMaxSpecLength)
    return fail("format: the spec is longer than " + std::to_string(kMaxSpecLength) + " characters");
  const std::string lower = lowered(trimmed(text));
  if (lower.empty())
    return fail("format: empty");
  const auto colon = lower.find(':');
  const std::string_view whole(lower);
  const std::string_view base = trimmed(whole.substr(0, colon));
  const std::string_view fields = colon == std::string::npos ? std::string_view() : whole.substr(colon + 1);

  std::optional<FloatFormat> f;
  std::string error;
  if (const auto id = parseFormatName(base)) {
    const FloatFormat& named = formatInfo(*id);
    if (colon == std::string::npos)
      return FormatParse{named, {}};
    if (named.layout != Layout::SignExponentMantissa)
      return fail("format: " + named.name + " has no fields to set (they apply to sign/exponent/mantissa formats)");
    f = named;
    f->exponentBias = named.bias();
  } else {
    f = parseWidths(base, error);
    if (!f)
      return fail(error.empty() ? "unknown format " + quoted(base) +
                                      ": neither a named format nor eXmY (e4m3, ue4m3, e5m2:bias=15, ...)"
                                : error);
  }
  if (colon != std::string::npos) {
    bool seen[4] = {};
    std::string_view rest = fields;
    if (trimmed(rest).empty())
      return fail("format: nothing after ':' (fields are bias, special, subnormals, sign)");
    while (true) {
      const auto comma = rest.find(',');
      const std::string_view item = trimmed(rest.substr(0, comma));
      const auto eq = item.find('=');
      if (item.empty())
        return fail("format: an empty field between commas");
      if (eq == std::string_view::npos)
        return fail("format: field " + quoted(item) + " has no '=' (write bias=8, special=fnuz, ...)");
      const std::string_view key = trimmed(item.substr(0, eq)), value = trimmed(item.substr(eq + 1));
      constexpr std::string_view kKeys[] = {"bias", "special", "subnormals", "sign"};
      for (int k = 0; k < 4; ++k)
        if (key == kKeys[k]) {
          if (seen[k])
            return fail(std::string(key) + ": given twice");
          seen[k] = true;
        }
      if (std::string e = applyField(*f, key, value); !e.empty())
        return fail(std::move(e));
      if (comma == std::string_view::npos)
        break;
      rest = rest.substr(comma + 1);
    }
  }
  return finish(std::move(*f), {});
}

FormatParse parseFormatJson(std::string_view json) {
  if (json.size() > kMaxFormatFileBytes)
    return fail("format JSON: longer than " + std::to_string(kMaxFormatFileBytes) + " bytes");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(json.begin(), json.end());
  } catch (const nlohmann::json::exception& e) {
    return fail(std::string("format JSON: not valid JSON (") + e.what() + ")");
  }
  if (!j.is_object())
    return fail("format JSON: the top level must be an object");
  std::string displayName;
  if (auto it = j.find("name"); it != j.end()) {
    if (!it->is_string() || it->get<std::string>().empty() || it->get<std::string>().size() > 40)
      return fail("name: must be a string of 1 to 40 characters");
    displayName = it->get<std::string>();
  }
  if (auto it = j.find("spec"); it != j.end()) {
    for (const auto& [key, value] : j.items())
      if (key != "spec" && key != "name")
        return fail("spec: give either \"spec\" or the fields, not both (found \"" + key.substr(0, 40) + "\")");
    if (!it->is_string())
      return fail("spec: must be a string");
    FormatParse p = parseFormatSpec(it->get<std::string>());
    if (p.format && !displayName.empty())
      p.format->displayName = displayName;
    return p;
  }
  const auto intField = [&](const char* key, const char* label, std::optional<long long>& out) -> std::string {
    const auto it = j.find(key);
    if (it == j.end())
      return {};
    if (!it->is_number_integer())
      return std::string(label) + ": must be an integer";
    out = it->get<long long>();
    return {};
  };
  std::optional<long long> e, m, bias;
  if (auto err = intField("exponent_bits", "exponent_bits", e); !err.empty())
    return fail(err);
  if (auto err = intField("mantissa_bits", "mantissa_bits", m); !err.empty())
    return fail(err);
  if (auto err = intField("bias", "bias", bias); !err.empty())
    return fail(err);
  if (!e)
    return fail("exponent_bits: missing");
  if (!m)
    return fail("mantissa_bits: missing");
  if (*e < 0 || *e > kMaxExponentBits)
    return fail("exponent_bits: " + std::to_string(*e) + " is outside 0.." + std::to_string(kMaxExponentBits));
  if (*m < 0 || *m > kMaxMantissaBits)
    return fail("mantissa_bits: " + std::to_string(*m) + " is outside 0.." + std::to_string(kMaxMantissaBits));
  FloatFormat f = plainFormat(static_cast<int>(*e), static_cast<int>(*m), true);
  if (bias) {
    if (*bias > kMaxBiasMagnitude || *bias < -kMaxBiasMagnitude)
      return fail("bias: " + std::to_string(*bias) + " is far outside any double's exponent range");
    f.exponentBias = static_cast<int>(*bias);
  }
  for (const auto& [key, value] : j.items()) {
    if (key == "exponent_bits" || key == "mantissa_bits" || key == "bias" || key == "name")
      continue;
    if (key == "special") {
      if (!value.is_string())
        return fail("special: must be one of \"ieee\", \"fn\", \"fnuz\", \"none\"");
      if (auto err = applyField(f, "special", value.get<std::string>()); !err.empty())
        return fail(err);
    } else if (key == "subnormals" || key == "sign") {
      if (!value.is_boolean())
        return fail(key + ": must be true or false");
      (key == "sign" ? f.signBit : f.subnormals) = value.get<bool>();
    } else {
      return fail("unknown field \"" + key.substr(0, 40) +
                  "\" (the fields are exponent_bits, mantissa_bits, bias, special, subnormals, sign, name, spec)");
    }
  }
  return finish(std::move(f), std::move(displayName));
}

FormatParse readFormatFile(const std::filesystem::path& path) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec)
    return fail(path.string() + ": cannot read (" + ec.message() + ")");
  if (size > kMaxFormatFileBytes)
    return fail(path.string() + ": larger than " + std::to_string(kMaxFormatFileBytes) + " bytes");
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in && !in.eof())
    return fail(path.string() + ": cannot read");
  FormatParse p = parseFormatJson(text.str());
  if (!p.format)
    p.error = path.string() + ": " + p.error;
  return p;
}

FormatParse parseFormatArgument(std::string_view text) {
  if (!text.empty() && text.front() == '@')
    return readFormatFile(std::filesystem::path(std::string(text.substr(1))));
  if (text.size() > 5 && lowered(text.substr(text.size() - 5)) == ".json")
    return readFormatFile(std::filesystem::path(std::string(text)));
  return parseFormatSpec(text);
}

} // namespace mantissa::numeric
