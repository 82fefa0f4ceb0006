// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// A small declarative command-line parser shared by every subcommand.
//
//   ArgParser p("inspect", "Show how every format stores a value.");
//   p.option("format", "NAME", "fp32, fp16, ... or all", "all");
//   p.flag("json", "Print JSON instead of a table");
//   p.positional("VALUE", "decimal, hex float, inf or nan");
//   if (auto rc = p.parse(args)) return *rc;  // error or --help handled
//   std::string fmt = p.value("format");

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mantissa::cli {

class ArgParser {
public:
  ArgParser(std::string command, std::string summary);

  // --name VALUE (also --name=VALUE); fallback used when absent.
  void option(std::string name, std::string valueName, std::string help,
              std::optional<std::string> fallback = std::nullopt);
  // --name (boolean switch).
  void flag(std::string name, std::string help);
  // Positional arguments in order; optional ones must come last.
  void positional(std::string name, std::string help, bool required = true);

  // Parses; returns an exit code when the caller should stop (2 on a usage
  // error, printed to stderr; 0 after printing --help to stdout).
  std::optional<int> parse(const std::vector<std::string>& args);

  bool has(const std::string& name) const;          // option given or flag set
  std::string value(const std::string& name) const; // option value or fallback ("" if none)
  std::optional<std::string> optionalValue(const std::string& name) const;
  std::optional<std::string> positionalValue(const std::string& name) const;

  std::string usage() const;
  const std::string& command() const { return m_command; }

private:
  struct Spec {
    std::string name;
    std::string valueName; // empty for flags
    std::string help;
    std::optional<std::string> fallback;
  };
  struct Positional {
    std::string name;
    std::string help;
    bool required;
  };
  const Spec* find(const std::string& name) const;

  std::string m_command;
  std::string m_summary;
  std::vector<Spec> m_specs;
  std::vector<Positional> m_positionals;
  std::map<std::string, std::string> m_values;
  std::map<std::string, std::string> m_positionalValues;
};

// " (did you mean 'NAME'?)" when one of `choices` is within a small edit
// distance of `given` (letter case ignored), "" otherwise.
std::string didYouMean(const std::string& given, const std::vector<std::string>& choices);
// The choice itself, or nullopt.
std::optional<std::string> closestName(const std::string& given,
                                       const std::vector<std::string>& choices);

// Rows of cells as aligned columns two spaces apart, one line each, to
// standard output: columns from `rightFrom` on are right-aligned (numbers);
// the others are left-aligned, the last cell of a row unpadded.
void printTable(const std::vector<std::vector<std::string>>& cells, std::size_t rightFrom);

// ASCII lower case: names (recipes, presets, scalers, ...) are matched case-insensitively.
std::string lowerCase(std::string text);

// Text of outside input fit to quote in a message: control and non-ASCII
// bytes escaped (\xNN), cut after `limit` characters with "... (N bytes)".
std::string quoteInput(const std::string& text, std::size_t limit = 60);

// Parse functions that print "mantissa-cli CMD: --NAME: ..." to stderr on error.
std::optional<long long> parseInteger(const std::string& command, const std::string& name,
                                      const std::string& text, long long min, long long max);
std::optional<double> parseReal(const std::string& command, const std::string& name,
                                const std::string& text);

} // namespace mantissa::cli
