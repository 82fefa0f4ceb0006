// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// mantissa-cli exercises: a worksheet and its key, the same for the same
// seed, written atomically as Markdown (and PDF with the GUI libraries); bad
// usage exits 2 with a message naming the option.
#include "cli_runner.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using mantissa::test::runCli;
namespace fs = std::filesystem;

namespace {

std::string readAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

struct ExercisesDir {
  fs::path path = fs::temp_directory_path() / ("mantissa-exercises-" + std::to_string(::getpid()));
  ExercisesDir() { fs::create_directories(path); }
  ~ExercisesDir() { fs::remove_all(path); }
};

} // namespace

TEST(CliExercises, SameSeedSameSheetWithQuestionsAndKey) {
  const std::vector<std::string> args{"exercises", "--format", "fp8-e4m3", "--kind", "round",
                                      "--count", "20", "--seed", "7"};
  const auto a = runCli(args), b = runCli(args);
  ASSERT_EQ(a.exitCode, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  EXPECT_NE(a.out.find("## Questions"), std::string::npos);
  EXPECT_NE(a.out.find("## Answer key"), std::string::npos);
  EXPECT_NE(a.out.find("\n20. x = "), std::string::npos);
  EXPECT_NE(a.out.find("### 20"), std::string::npos);
  auto other = args;
  other.back() = "8";
  EXPECT_NE(runCli(other).out, a.out);
  ExercisesDir dir;
  auto md = args;
  md.insert(md.end(), {"--out", (dir.path / "sheet.md").string()});
  ASSERT_EQ(runCli(md).exitCode, 0);
  EXPECT_EQ(readAll(dir.path / "sheet.md"), a.out);
#ifdef MANTISSA_CLI_HAS_UI
  auto pdf = args;
  pdf.insert(pdf.end(), {"--out", (dir.path / "sheet.pdf").string()});
  const auto r = runCli(pdf);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(readAll(dir.path / "sheet.pdf").rfind("%PDF-", 0), 0u);
#endif
}

TEST(CliExercises, BadUsageNamesTheOption) {
  const auto kind = runCli({"exercises", "--kind", "rnd"});
  EXPECT_EQ(kind.exitCode, 2);
  EXPECT_NE(kind.err.find("--kind: unknown kind 'rnd'"), std::string::npos) << kind.err;
  const auto fit = runCli({"exercises", "--format", "e8m0", "--kind", "round"});
  EXPECT_EQ(fit.exitCode, 2);
  EXPECT_NE(fit.err.find("do not apply to e8m0"), std::string::npos) << fit.err;
  EXPECT_EQ(runCli({"exercises", "--count", "501"}).exitCode, 2);
  EXPECT_EQ(runCli({"exercises", "--difficulty", "4"}).exitCode, 2);
  const auto out = runCli({"exercises", "--out", "sheet.txt"});
  EXPECT_EQ(out.exitCode, 2);
  EXPECT_NE(out.err.find("must end in .md or .pdf"), std::string::npos) << out.err;
  EXPECT_EQ(runCli({"exercises", "--out", "/nonexistent-dir/sheet.md"}).exitCode, 1);
}
