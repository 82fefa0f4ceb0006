// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "args.h"
#include "commands.h"

#include <mantissa/config.h>
#include <mantissa/numeric/cpu_features.h>

#include <iostream>

namespace mantissa::cli {

std::string versionText() {
  return std::string("mantissa-cli ") + kVersion + "\n" +
         "oneDNN " + numeric::onednnVersion() + " (" + numeric::onednnIsa() + ")\n" +
         "CPU: " + numeric::describeIsa() + "\n";
}

int runVersion(const Args& args) {
  ArgParser parser("version", "Print version, oneDNN version and the CPU's vector ISA.");
  if (auto rc = parser.parse(args))
    return *rc;
  std::cout << versionText();
  return 0;
}

} // namespace mantissa::cli
