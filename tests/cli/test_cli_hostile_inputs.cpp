// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// mantissa-cli fed hostile input through its readers: --config files nested
// 200,000 levels deep, with a key twice, a number past a double or a header
// of the wrong type; run logs whose scaling frames list no tensors, whose
// tensor names hold commas, newlines and terminal escapes, whose summary has
// a field of the wrong type, or with a line of 20 MB; a 100 MB line on
// convert's stdin; a FIFO or a link to /dev/zero where the matmul path cache
// should be. Each runs under a time limit and an address-space cap
// (runCliLimited) and ends with a message naming the file, the line and the
// field, and the documented exit status, in bounded memory.
#include <mantissa/build_flags.h>
#include "cli_runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using mantissa::test::CliLimits;
using mantissa::test::CliResult;
using mantissa::test::runCliLimited;
namespace fs = std::filesystem;
using nlohmann::json;

fs::path tempDir() {
  const fs::path dir =
      fs::temp_directory_path() / ("mantissa_cli_hostile_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

fs::path writeFile(const std::string& name, const std::string& text) {
  const fs::path p = tempDir() / name;
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

std::string readText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The contract every case checks: ended by itself (no crash, no hang) with
// the exit status given, and nothing of nlohmann's exception text.
void expectClean(const CliResult& r, int exitCode) {
  EXPECT_FALSE(r.timedOut) << "killed at the time limit";
  EXPECT_EQ(r.exitCode, exitCode) << r.err.substr(0, 400);
  EXPECT_FALSE(contains(r.err, "json.exception")) << r.err.substr(0, 400);
  EXPECT_FALSE(contains(r.err, "terminate called")) << r.err.substr(0, 400);
}

CliResult train(const fs::path& config) {
  return runCliLimited({"train", "--config", config.string(), "--steps", "1", "--quiet"}, {});
}

// A --config whose "config" nests 200,000 levels crashed train in readConfigFile.
TEST(CliHostileInputs, DeeplyNestedConfigIsRefusedNamingTheFile) {
  const std::string deep = std::string(200000, '[') + std::string(200000, ']');
  const fs::path config =
      writeFile("deep.json", R"({"header": true, "config": {"x": )" + deep + "}}");
  const CliResult r = train(config);
  expectClean(r, 2);
  EXPECT_TRUE(contains(r.err, "--config " + config.string() +
                                  ": JSON nested 200002 levels deep, over the limit of 64"))
      << r.err.substr(0, 400);
  // The same as the first line of a run log.
  const fs::path log = writeFile("deep.jsonl", R"({"header": true, "config": {"x": )" + deep +
                                                   "}}\n" + R"({"step": 0, "loss": 1})" + "\n");
  const CliResult l = train(log);
  expectClean(l, 2);
  EXPECT_TRUE(contains(l.err, "deep.jsonl: JSON nested 200002 levels deep"))
      << l.err.substr(0, 400);
}

// {"steps": 5, "steps": 7} ran 7 steps without a word.
TEST(CliHostileInputs, DuplicateKeyInAConfigIsAnErrorNamingTheKey) {
  const fs::path config = writeFile("twice.json", R"({"data": "spirals", "steps": 5, "steps": 7})");
  const CliResult r = train(config);
  expectClean(r, 2);
  EXPECT_TRUE(contains(r.err, "--config " + config.string() + ": duplicate key \"steps\""))
      << r.err;
}

// "lr": 1e999 printed [json.exception.out_of_range.406] without the file;
// {"header": 1} leaked type_error.302.
TEST(CliHostileInputs, ConfigMessagesNameFileAndField) {
  fs::path config = writeFile("huge-lr.json", "{\n  \"data\": \"spirals\",\n  \"lr\": 1e999\n}");
  CliResult r = train(config);
  expectClean(r, 2);
  EXPECT_TRUE(contains(r.err, "--config " + config.string() + ": line 3, column "))
      << r.err;
  EXPECT_TRUE(contains(r.err, "number out of range \"1e999\"")) << r.err;

  config = writeFile("header-1.json", R"({"header": 1})");
  r = train(config);
  expectClean(r, 2);
  EXPECT_TRUE(contains(r.err, "--config " + config.string() +
                                  ": \"header\" must be true (a run log's header line), got 1"))
      << r.err;

  config = writeFile("lr-text.json", R"({"data": "spirals", "lr": "fast"})");
  r = train(config);
  expectClean(r, 2);
  EXPECT_TRUE(contains(r.err, config.string())) << r.err;
  EXPECT_TRUE(contains(r.err, "lr")) << r.err;
}

// A two-step fp8-delayed run's log, its lines as JSON objects.
std::vector<json> fp8Log() {
  static std::vector<json> rows;
  if (rows.empty()) {
    const fs::path log = tempDir() / "fp8.jsonl";
    const CliResult r = runCliLimited({"train", "--data", "spirals", "--recipe", "fp8-delayed",
                                       "--steps", "2", "--quiet", "--log", log.string()},
                                      {});
    EXPECT_EQ(r.exitCode, 0) << r.err;
    std::istringstream in(readText(log));
    for (std::string line; std::getline(in, line);)
      rows.push_back(json::parse(line));
  }
  return rows;
}

fs::path writeLog(const std::string& name, const std::vector<json>& rows) {
  std::string text;
  for (const json& row : rows)
    text += row.dump() + "\n";
  return writeFile(name, text);
}

// "tensors": [] made --tensor call front() on an empty list.
TEST(CliHostileInputs, ScalesOfFramesWithoutTensorsIsAMessage) {
  std::vector<json> rows = fp8Log();
  ASSERT_GE(rows.size(), 3u);
  for (json& row : rows)
    if (row.contains("scaling"))
      row["scaling"]["tensors"] = json::array();
  const fs::path log = writeLog("no-tensors.jsonl", rows);
  CliResult r = runCliLimited({"scales", log.string(), "--tensor", "layer1.w"}, {});
  expectClean(r, 1);
  EXPECT_TRUE(contains(r.err, "no tensor named 'layer1.w'")) << r.err;
  EXPECT_TRUE(contains(r.err, "scaling frames list no tensors")) << r.err;
  r = runCliLimited({"scales", log.string()}, {});
  expectClean(r, 0);
}

// A tensor name with a comma or a newline forged CSV rows; an escape
// sequence reached the terminal.
TEST(CliHostileInputs, ScalesQuotesCsvAndEscapesText) {
  std::vector<json> rows = fp8Log();
  const std::string forged = "evil,\"name\"\n1,forged,row";
  const std::string escape = "red\x1b[31mname\x07";
  std::string original;
  for (json& row : rows)
    if (row.contains("scaling")) {
      auto& tensors = row["scaling"]["tensors"];
      ASSERT_GE(tensors.size(), 2u);
      original = tensors[0]["name"].get<std::string>();
      tensors[0]["name"] = forged;
      tensors[1]["name"] = escape;
    }
  const fs::path log = writeLog("names.jsonl", rows);
  CliResult r = runCliLimited({"scales", log.string(), "--format", "csv"}, {});
  expectClean(r, 0);
  // RFC 4180: the field quoted, its quotes doubled, the newline inside the quotes.
  EXPECT_TRUE(contains(r.out, ",\"evil,\"\"name\"\"\n1,forged,row\",")) << r.out.substr(0, 600);
  EXPECT_FALSE(contains(r.out, "\n1,forged,row,")) << r.out.substr(0, 600);
  EXPECT_FALSE(contains(r.out, "\n0,evil,")) << r.out.substr(0, 600);
  r = runCliLimited({"scales", log.string()}, {});
  expectClean(r, 0);
  EXPECT_FALSE(contains(r.out, "\x1b")) << "an escape sequence reached the terminal";
  EXPECT_FALSE(contains(r.out, "\x07"));
  EXPECT_TRUE(contains(r.out, "red\\x1b[31mname\\x07")) << r.out;
  EXPECT_TRUE(contains(r.out, "evil,\"name\"\\x0a1,forged,row")) << r.out;
}

#ifdef MANTISSA_CLI_HAS_UI
// A summary with "stopped_early": 1 printed [json.exception.type_error.302]
// naming neither file nor field.
TEST(CliHostileInputs, ReportNamesTheLineAndFieldOfAWrongType) {
  const std::string step = R"({"step": 0, "loss": 1})" "\n";
  const fs::path log = writeFile("wrong-type.jsonl", step + R"({"summary": true, "stopped_early": 1})" "\n");
  const fs::path out = tempDir() / "wrong-type.html";
  CliResult r = runCliLimited({"report", log.string(), "--out", out.string()}, {});
  expectClean(r, 1);
  EXPECT_TRUE(contains(r.err, log.string() +
                                  ":2: summary: \"stopped_early\" must be true or false, got 1"))
      << r.err;
  EXPECT_FALSE(fs::exists(out));

  const fs::path header = writeFile("wrong-header.jsonl",
                                    R"({"header": true, "matmul_emulated": "no"})" "\n" + step);
  r = runCliLimited({"plot", header.string(), "--chart", "loss", "--out",
                     (tempDir() / "h.svg").string()},
                    {});
  expectClean(r, 1);
  EXPECT_TRUE(contains(r.err, header.string() +
                                  ":1: header: \"matmul_emulated\" must be true or false, got \"no\""))
      << r.err;
}

// One 20 MB line (under the 256 MiB file limit) took plot to 574 MB; a 200
// MB one aborted it with bad_alloc.
TEST(CliHostileInputs, PlotRefusesALongLineNamingItInBoundedMemory) {
  std::string row = R"({"step": 1, "loss": 1, "junk": [0)";
  while (row.size() < (20u << 20))
    row += ",0";
  row += "]}";
  const fs::path log = writeFile("long-line.jsonl", R"({"step": 0, "loss": 1})" "\n" + row + "\n");
  row.clear();
  row.shrink_to_fit();
  const CliResult r = runCliLimited({"plot", log.string(), "--chart", "loss", "--out",
                                     (tempDir() / "long.svg").string()},
                                    {});
  expectClean(r, 1);
  EXPECT_TRUE(contains(r.err, log.string() + ":2: line of ")) << r.err;
  EXPECT_TRUE(contains(r.err, "bytes, over the limit of 8 MiB for one line of a run log")) << r.err;
  if (!mantissa::builtWithSanitizer()) {
    EXPECT_LT(r.peakResidentBytes, 200ll << 20) << "the whole file is 20 MB";
  }
  fs::remove(log);
}
#endif

// A 1.6 GB line on stdin printed the lines before it and exited 0: a line
// past the limit is refused with its number, holding no more of it.
TEST(CliHostileInputs, ConvertRefusesALongLineWithItsNumberAndTheLimit) {
  const fs::path input = tempDir() / "long-line.txt";
  {
    std::ofstream out(input, std::ios::binary);
    out << "1.5\n";
    const std::string chunk(1 << 20, '1');
    for (int i = 0; i < 100; ++i) // 100 MB of one number
      out << chunk;
    out << "\n2.5\n";
  }
  CliLimits limits;
  limits.stdinPath = input.string();
  const CliResult r = runCliLimited({"convert", "--to", "fp16"}, limits);
  fs::remove(input);
  expectClean(r, 1);
  EXPECT_TRUE(contains(r.err, "mantissa-cli convert: line 2: longer than the limit of 1 MiB for "
                              "one line"))
      << r.err.substr(0, 400);
  EXPECT_EQ(r.out, "") << "nothing is printed when a line is refused";
  if (!mantissa::builtWithSanitizer()) {
    EXPECT_LT(r.peakResidentBytes, 64ll << 20) << "the line is 100 MB";
  }
}

// A FIFO at the matmul path cache hung train; a link to /dev/zero took 2.1 GB.
TEST(CliHostileInputs, MatmulPathCacheThatIsNoFileIsIgnored) {
  for (const char* kind : {"fifo", "zero"}) {
    const fs::path cacheHome = tempDir() / (std::string("cache-") + kind);
    fs::create_directories(cacheHome / "mantissa");
    const fs::path cache = cacheHome / "mantissa" / "matmul_paths.json";
    fs::remove(cache);
    if (std::string(kind) == "fifo")
      ASSERT_EQ(::mkfifo(cache.c_str(), 0600), 0);
    else
      fs::create_symlink("/dev/zero", cache);
    CliLimits limits;
    limits.timeoutMs = 120000;
    limits.environment = {"XDG_CACHE_HOME=" + cacheHome.string()};
    const CliResult r = runCliLimited({"train", "--data", "spirals", "--recipe", "bf16-mixed",
                                       "--matmul", "auto", "--steps", "2", "--batch", "32",
                                       "--quiet"},
                                      limits);
    expectClean(r, 0);
    EXPECT_TRUE(contains(r.out, "test accuracy")) << kind << ": " << r.out << r.err;
    if (!mantissa::builtWithSanitizer()) {
      EXPECT_LT(r.peakResidentBytes, 1ll << 30) << kind;
    }
  }
}

} // namespace
