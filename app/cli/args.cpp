// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "args.h"

#include <mantissa/io/excerpt.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <sstream>

namespace mantissa::cli {

ArgParser::ArgParser(std::string command, std::string summary)
    : m_command(std::move(command)), m_summary(std::move(summary)) {
  flag("help", "Show this help and exit");
}

void ArgParser::option(std::string name, std::string valueName, std::string help,
                       std::optional<std::string> fallback) {
  m_specs.push_back({std::move(name), std::move(valueName), std::move(help), std::move(fallback)});
}

void ArgParser::flag(std::string name, std::string help) {
  m_specs.push_back({std::move(name), {}, std::move(help), std::nullopt});
}

void ArgParser::positional(std::string name, std::string help, bool required) {
  m_positionals.push_back({std::move(name), std::move(help), required});
}

const ArgParser::Spec* ArgParser::find(const std::string& name) const {
  for (const auto& spec : m_specs)
    if (spec.name == name)
      return &spec;
  return nullptr;
}

std::optional<int> ArgParser::parse(const std::vector<std::string>& args) {
  auto fail = [&](const std::string& message) {
    std::cerr << "mantissa-cli " << m_command << ": " << message << "\n"
              << "Try 'mantissa-cli " << m_command << " --help'.\n";
    return 2;
  };
  std::size_t nextPositional = 0;
  bool onlyPositionals = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    // A lone "-" or a negative number ("-0", "-1e-8") is a positional value.
    const bool looksNegativeNumber = arg.size() > 1 && arg[0] == '-' && arg[1] != '-';
    if (!onlyPositionals && arg == "--") {
      onlyPositionals = true;
      continue;
    }
    if (!onlyPositionals && arg.rfind("--", 0) == 0) {
      std::string name = arg.substr(2);
      std::optional<std::string> inlineValue;
      if (auto eq = name.find('='); eq != std::string::npos) {
        inlineValue = name.substr(eq + 1);
        name = name.substr(0, eq);
      }
      const Spec* spec = find(name);
      if (!spec) {
        std::vector<std::string> names;
        for (const auto& s : m_specs)
          names.push_back(s.name);
        const auto near = closestName(name, names);
        return fail("unknown option '--" + quoteInput(name) + "'" +
                    (near ? " (did you mean '--" + *near + "'?)" : std::string()));
      }
      // A setting given twice would silently keep one of the two values.
      if (m_values.count(name) != 0)
        return fail("option '--" + name + "' given more than once; give it once");
      if (spec->valueName.empty()) {
        if (inlineValue)
          return fail("option '--" + name + "' takes no value");
        m_values[name] = "1";
      } else if (inlineValue) {
        m_values[name] = *inlineValue;
      } else {
        if (i + 1 >= args.size())
          return fail("option '--" + name + "' needs a value (" + spec->valueName + ")");
        m_values[name] = args[++i];
      }
      // An empty value would quietly mean the default (--policy "" the recipe's).
      if (!spec->valueName.empty() && m_values[name].empty())
        return fail("option '--" + name + "' has an empty value; give " + spec->valueName +
                    " or leave the option out");
      continue;
    }
    if (!onlyPositionals && !looksNegativeNumber && arg.size() > 1 && arg[0] == '-')
      return fail("unknown option '" + quoteInput(arg) + "'");
    if (nextPositional >= m_positionals.size())
      return fail("unexpected argument '" + quoteInput(arg) + "'");
    m_positionalValues[m_positionals[nextPositional++].name] = arg;
  }
  if (has("help")) {
    std::cout << usage();
    return 0;
  }
  for (std::size_t i = nextPositional; i < m_positionals.size(); ++i)
    if (m_positionals[i].required)
      return fail("missing " + m_positionals[i].name);
  return std::nullopt;
}

bool ArgParser::has(const std::string& name) const { return m_values.count(name) != 0; }

std::string ArgParser::value(const std::string& name) const {
  if (auto it = m_values.find(name); it != m_values.end())
    return it->second;
  const Spec* spec = find(name);
  return spec && spec->fallback ? *spec->fallback : std::string();
}

std::optional<std::string> ArgParser::optionalValue(const std::string& name) const {
  if (auto it = m_values.find(name); it != m_values.end())
    return it->second;
  const Spec* spec = find(name);
  return spec ? spec->fallback : std::nullopt;
}

std::optional<std::string> ArgParser::positionalValue(const std::string& name) const {
  if (auto it = m_positionalValues.find(name); it != m_positionalValues.end())
    return it->second;
  return std::nullopt;
}

std::string ArgParser::usage() const {
  std::ostringstream out;
  out << "Usage: mantissa-cli " << m_command;
  if (m_specs.size() > 1)
    out << " [OPTIONS]";
  for (const auto& p : m_positionals)
    out << (p.required ? " " : " [") << p.name << (p.required ? "" : "]");
  out << "\n\n" << m_summary << "\n";
  if (!m_positionals.empty()) {
    out << "\nArguments:\n";
    for (const auto& p : m_positionals)
      out << "  " << p.name << std::string(p.name.size() < 22 ? 22 - p.name.size() : 1, ' ')
          << p.help << "\n";
  }
  out << "\nOptions:\n";
  for (const auto& s : m_specs) {
    std::string left = "--" + s.name + (s.valueName.empty() ? "" : " " + s.valueName);
    out << "  " << left << std::string(left.size() < 22 ? 22 - left.size() : 1, ' ') << s.help;
    if (s.fallback && !s.fallback->empty())
      out << " (default: " << *s.fallback << ")";
    out << "\n";
  }
  return out.str();
}

namespace {

std::size_t editDistance(const std::string& a, const std::string& b) {
  // Optimal string alignment: insertions, deletions, substitutions and
  // transpositions of neighbours ("trian" is one edit from "train").
  const auto same = [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
  };
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i)
    d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j)
    d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1,
                          d[i - 1][j - 1] + (same(a[i - 1], b[j - 1]) ? 0 : 1)});
      if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1]))
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

} // namespace

std::optional<std::string> closestName(const std::string& given,
                                       const std::vector<std::string>& choices) {
  // Up to one edit in four characters (at least 1, at most 3): "bf16-mix"
  // finds bf16-mixed, "fp8" is not taken for fp32.
  const std::size_t allowed = std::clamp<std::size_t>(given.size() / 4, 1, 3);
  std::string best;
  std::size_t bestDistance = allowed + 1;
  for (const auto& choice : choices) {
    const std::size_t d = editDistance(given, choice);
    if (d < bestDistance) {
      best = choice;
      bestDistance = d;
    }
  }
  if (best.empty())
    return std::nullopt;
  return best;
}

std::string didYouMean(const std::string& given, const std::vector<std::string>& choices) {
  const auto best = closestName(given, choices);
  return best ? " (did you mean '" + quoteInput(*best) + "'?)" : std::string();
}

std::string lowerCase(std::string text) {
  for (char& c : text)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string quoteInput(const std::string& text, std::size_t limit) {
  return io::excerpt(text, limit);
}

std::optional<long long> parseInteger(const std::string& command, const std::string& name,
                                      const std::string& text, long long min, long long max) {
  long long value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || value < min || value > max) {
    std::cerr << "mantissa-cli " << command << ": --" << name << ": '" << quoteInput(text)
              << "' is not a whole number from " << min << " to " << max << "\n";
    return std::nullopt;
  }
  return value;
}

std::optional<double> parseReal(const std::string& command, const std::string& name,
                                const std::string& text) {
  char* end = nullptr;
  const double value = text.empty() ? 0.0 : std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(value)) {
    std::cerr << "mantissa-cli " << command << ": --" << name << ": '" << quoteInput(text)
              << "' is not a finite number\n";
    return std::nullopt;
  }
  return value;
}

void printTable(const std::vector<std::vector<std::string>>& cells, std::size_t rightFrom) {
  if (cells.empty())
    return;
  std::vector<std::size_t> width(cells[0].size(), 0);
  for (const auto& row : cells)
    for (std::size_t c = 0; c < row.size() && c < width.size(); ++c)
      width[c] = std::max(width[c], row[c].size());
  for (const auto& row : cells) {
    std::string line;
    for (std::size_t c = 0; c < row.size() && c < width.size(); ++c) {
      const std::string pad(width[c] - row[c].size(), ' ');
      line += (c ? "  " : "") + (c >= rightFrom ? pad + row[c] : row[c] + (c + 1 < row.size() ? pad : ""));
    }
    std::cout << line << "\n";
  }
}

} // namespace mantissa::cli
