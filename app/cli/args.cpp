// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "args.h"

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
      if (!spec)
        return fail("unknown option '--" + name + "'");
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
      continue;
    }
    if (!onlyPositionals && !looksNegativeNumber && arg.size() > 1 && arg[0] == '-')
      return fail("unknown option '" + arg + "'");
    if (nextPositional >= m_positionals.size())
      return fail("unexpected argument '" + arg + "'");
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

std::optional<long long> parseInteger(const std::string& command, const std::string& name,
                                      const std::string& text, long long min, long long max) {
  long long value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || value < min || value > max) {
    std::cerr << "mantissa-cli " << command << ": --" << name << ": '" << text
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
    std::cerr << "mantissa-cli " << command << ": --" << name << ": '" << text
              << "' is not a finite number\n";
    return std::nullopt;
  }
  return value;
}

} // namespace mantissa::cli
