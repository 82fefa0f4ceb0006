// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "cli_runner.h"

#include <mantissa/config.h>
#include <mantissa/kernels/matmul_path.h>
#include <mantissa/numeric/cpu_features.h>

#include <gtest/gtest.h>

using mantissa::test::runCli;

TEST(CliVersion, PrintsVersionOnednnAndIsa) {
  auto r = runCli({"--version"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find(mantissa::kVersion), std::string::npos);
  EXPECT_NE(r.out.find("oneDNN 2."), std::string::npos) << r.out;
  // The one BF16 label (kernels::bf16Support), as the GUI shows it.
  EXPECT_NE(r.out.find(mantissa::kernels::bf16Support().label), std::string::npos) << r.out;
}

TEST(CliVersion, UnknownCommandFailsWithMessage) {
  auto r = runCli({"frobnicate"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("unknown command 'frobnicate'"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST(CliVersion, UnknownOptionFailsWithMessage) {
  auto r = runCli({"version", "--bogus"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("unknown option '--bogus'"), std::string::npos) << r.err;
}
