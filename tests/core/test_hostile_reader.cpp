// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The shared reader of outside input (io/json_text.h, io/json_fields.h,
// io/regular_file.h, io/line_reader.h and the run log's line reader on top of
// them), fed what a hostile file or stream can hold: nesting 200,000 levels
// deep, a key given twice, numbers past a double, fields of the wrong type or
// out of range, lines of many megabytes or with no end. Each is refused with
// a message naming the line and the field, in bounded memory and time: the
// cases that crashed or grew without bound run in a child process under an
// address-space cap and an alarm, so a regression fails the test instead of
// taking the test binary (or the machine) with it.
#include "test_data_util.h"

#include <mantissa/build_flags.h>
#include <mantissa/io/json_fields.h>
#include <mantissa/io/json_text.h>
#include <mantissa/io/line_reader.h>
#include <mantissa/io/regular_file.h>
#include <mantissa/train/run_log.h>
#include <mantissa/train/run_log_stream.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;
using mantissa::testing::TempDir;
using namespace mantissa;
using nlohmann::json;

// Runs `body` in a child process with at most `seconds` of time and `bytes`
// of address space (not under sanitizers, whose shadow memory needs more) and
// returns the text it returned, or why it did not return.
std::string capped(const std::function<std::string()>& body, unsigned seconds = 60,
                   long long bytes = 1ll << 30) {
  int fds[2];
  if (::pipe(fds) != 0)
    return "pipe failed";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    if (!mantissa::builtWithSanitizer()) {
      rlimit cap{rlim_t(bytes), rlim_t(bytes)};
      ::setrlimit(RLIMIT_AS, &cap);
    }
    ::alarm(seconds);
    std::string out;
    try {
      out = body();
    } catch (const std::exception& e) {
      out = std::string("uncaught exception: ") + e.what();
    }
    for (std::size_t at = 0; at < out.size();) {
      const ssize_t n = ::write(fds[1], out.data() + at, out.size() - at);
      if (n <= 0)
        break;
      at += std::size_t(n);
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string got;
  char buffer[4096];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;)
    got.append(buffer, std::size_t(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFSIGNALED(status))
    return WTERMSIG(status) == SIGALRM ? "timed out"
                                       : "killed by signal " + std::to_string(WTERMSIG(status));
  return got;
}

template <class F> std::string errorOf(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

std::string nested(std::size_t levels) {
  return std::string(levels, '[') + std::string(levels, ']');
}

// ---------------------------------------------------------------- JSON text

TEST(HostileJsonText, MessagesSayWhatAndWhereInTheProgramsWords) {
  using io::parseJsonText;
  std::string e = errorOf([] { parseJsonText(R"({"steps": 5, "steps": 7})"); });
  EXPECT_EQ(e, R"(duplicate key "steps")");
  e = errorOf([] { parseJsonText(R"({"config": {"lr": 1, "lr": 2}})"); });
  EXPECT_EQ(e, R"(duplicate key "lr" (in "config"))");
  e = errorOf([] { parseJsonText("{\n  \"lr\": 1e999\n}"); });
  EXPECT_NE(e.find("line 2, "), std::string::npos) << e;
  EXPECT_NE(e.find(R"(number out of range "1e999")"), std::string::npos) << e;
  e = errorOf([] { parseJsonText("{\n  \"a\": tru\n}"); });
  EXPECT_EQ(e.rfind("line 2, column ", 0), 0u) << e;
  EXPECT_NE(e.find("not valid JSON"), std::string::npos) << e;
  e = errorOf([] { parseJsonText(R"({"a": 1)"); });
  EXPECT_NE(e.find("the text ends before the value does"), std::string::npos) << e;
  e = errorOf([] { parseJsonText(nested(65)); });
  EXPECT_EQ(e, "JSON nested 65 levels deep, over the limit of 64");
  for (const std::string& text : {std::string(R"({"a": 1, "a": 1})"), std::string("[1e999]"),
                                  std::string("{x}"), nested(100)})
    EXPECT_EQ(errorOf([&] { parseJsonText(text); }).find("json.exception"), std::string::npos);
  // Same keys in different objects, and at the limit, are fine.
  EXPECT_EQ(parseJsonText(R"([{"a": 1}, {"a": 2, "b": {"a": 3}}])")[1]["b"]["a"], 3);
  EXPECT_TRUE(parseJsonText(nested(64)).is_array());
  // Brackets inside strings are text, not nesting.
  EXPECT_EQ(io::jsonNestingDepth(R"({"a": "[[[[{{{{\"[[["})"), 1u);
  EXPECT_EQ(io::jsonNestingDepth(R"({"a": [[1], {"b": [2]}]})"), 4u);
}

// 200,000 levels: refused at level 65 while parsing, in little memory.
// A NUL byte would end nlohmann's input: "{}\0" followed by anything must not
// read as {} (a --config file so made trained on defaults).
TEST(HostileJsonText, ANulByteIsRefusedWithItsPlaceNotTakenForTheEnd) {
  using namespace std::string_literals;
  std::string e = errorOf([] { io::parseJsonText("{}\0\0\0s[[[["s); });
  EXPECT_EQ(e.rfind("line 1, column 3: ", 0), 0u) << e;
  EXPECT_NE(e.find("NUL byte"), std::string::npos) << e;
  e = errorOf([] { io::parseJsonText("{\"a\": 1,\n \"b\": \"x\0y\"}"s); });
  EXPECT_EQ(e.rfind("line 2, column 9: ", 0), 0u) << e;
}

TEST(HostileJsonText, DeepNestingIsRefusedWhileParsing) {
  const std::string e = capped(
      [] { return errorOf([] { io::parseJsonText(R"({"config": )" + nested(200000) + "}"); }); },
      60, 512ll << 20);
  EXPECT_EQ(e, "JSON nested 200001 levels deep, over the limit of 64");
}

TEST(HostileJsonFields, TypedReadsNameWhereAndField) {
  const json o = json::parse(R"({"stopped_early": 1, "steps": -3, "name": 7, "x": 0.5})");
  const io::JsonFields f(o, "run.jsonl:9", "summary");
  EXPECT_EQ(errorOf([&] { f.boolean("stopped_early"); }),
            R"(run.jsonl:9: summary: "stopped_early" must be true or false, got 1)");
  EXPECT_EQ(errorOf([&] { f.integer("steps", 0, 100); }),
            R"(run.jsonl:9: summary: "steps" must be in [0, 100], got -3)");
  EXPECT_EQ(errorOf([&] { f.string("name"); }), R"(run.jsonl:9: summary: "name" must be a string, got 7)");
  EXPECT_EQ(errorOf([&] { f.numberIn("x", 0.0, 0.25); }),
            R"(run.jsonl:9: summary: "x" must be in [0, 0.25], got 0.5)");
  EXPECT_FALSE(f.boolean("absent").has_value());
}

// ---------------------------------------------------------------- run logs

class HostileReader : public ::testing::Test {
protected:
  fs::path write(const std::string& text, const std::string& name = "run.jsonl") const {
    const fs::path p = m_dir.path() / name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  std::string loadError(const std::string& text) const {
    const fs::path p = write(text);
    return errorOf([&] { train::loadRunLog(p); });
  }
  TempDir m_dir;
};

const std::string kStep0 = R"({"step": 0, "loss": 1.0})" "\n";

// Follow mode: a step row nesting 200,000 arrays crashed RunLogStream::feed
// (the copy of the row recursed once per level).
TEST(HostileReaderStream, DeepStepRowIsAnErrorNamingTheLine) {
  const std::string e = capped([] {
    train::RunLogStream stream("live.jsonl");
    stream.feed(R"({"header": true})" "\n");
    return errorOf([&] {
      stream.feed(R"({"step": 0, "loss": 1, "x": )" + nested(200000) + "}\n");
    });
  });
  EXPECT_EQ(e, "live.jsonl:2: JSON nested 200001 levels deep, over the limit of 64");
}

// A line that never ends (a sparse file, a stream of garbage) is refused
// once it passes the line limit, holding no more of it than that.
TEST(HostileReaderStream, ALineWithoutEndIsRefusedAtTheLineLimit) {
  const std::string e = capped(
      [] {
        train::RunLogStream stream("live.jsonl");
        stream.feed(R"({"step": 0, "loss": 1})" "\n");
        const std::string chunk(std::size_t{1} << 20, ' ');
        for (int i = 0; i < 2048; ++i) { // 2 GB of one line, fed 1 MiB at a time
          const std::string error = errorOf([&] { stream.feed(chunk); });
          if (error != "no error")
            return error + " after " + std::to_string(i + 1) + " MiB";
        }
        return std::string("accepted 2 GB of one line");
      },
      60, 512ll << 20);
  EXPECT_EQ(e, "live.jsonl:2: line longer than the limit of 8 MiB for one line of a run log "
               "after 9 MiB");
}

TEST_F(HostileReader, LongLineIsRefusedBeforeParsingNamingItsNumber) {
  // 20 MB of one step row (a 20 MB line took 574 MB to plot).
  std::string row = R"({"step": 1, "loss": 1, "junk": [0)";
  row.reserve(20u << 20);
  while (row.size() < (20u << 20))
    row += ",0";
  row += "]}\n";
  const fs::path p = write(kStep0 + row);
  const std::string e = capped([&] { return errorOf([&] { train::loadRunLog(p); }); }, 60,
                               256ll << 20);
  EXPECT_EQ(e, p.string() + ":2: line of " + std::to_string(row.size() - 1) +
                   " bytes, over the limit of 8 MiB for one line of a run log");
}

TEST_F(HostileReader, DuplicateKeyInARowIsAnErrorNamingTheKey) {
  const std::string e = loadError(kStep0 + R"({"step": 1, "loss": 1, "loss": 9})" "\n");
  EXPECT_NE(e.find("run.jsonl:2: duplicate key \"loss\""), std::string::npos) << e;
}

// Wrong types in the header and summary ended the GUI with nlohmann's
// type_error when Open Run or the report read them.
TEST_F(HostileReader, HeaderAndSummaryTypesAreCheckedWhenRead) {
  std::string e = loadError(R"({"header": true, "matmul_emulated": "no"})" "\n" + kStep0);
  EXPECT_NE(e.find(R"(run.jsonl:1: header: "matmul_emulated" must be true or false, got "no")"),
            std::string::npos) << e;
  e = loadError(kStep0 + R"({"summary": true, "stopped_early": 1})" "\n");
  EXPECT_NE(e.find(R"(run.jsonl:2: summary: "stopped_early" must be true or false, got 1)"),
            std::string::npos) << e;
  e = loadError(kStep0 + R"({"summary": true, "divergence": {"step": "four"}})" "\n");
  EXPECT_NE(e.find(R"(run.jsonl:2: summary: divergence: "step" must be an integer)"),
            std::string::npos) << e;
  e = loadError(R"({"header": true, "recipe_table": [1]})" "\n" + kStep0);
  EXPECT_NE(e.find(R"(run.jsonl:1: header: "recipe_table" must hold objects)"), std::string::npos)
      << e;
  // What the trainer and the tap write reads as before.
  EXPECT_EQ(loadError(R"({"header": true, "matmul_emulated": false, "scaler": null})" "\n" + kStep0 +
                      R"({"summary": true, "stopped_early": false, "test_accuracy": null})" "\n"),
            "no error");
}

// A loss scale of -1 or 5e-324 and an accuracy of 1e308 were accepted and
// the charts drew "..." for their labels.
TEST_F(HostileReader, OutOfRangeFieldsAreErrorsNamingLineAndField) {
  const auto step = [](const std::string& extra) {
    return R"({"step": 1, "loss": 1, )" + extra + "}\n";
  };
  struct Case {
    std::string line, expected;
  };
  for (const Case& c : {
           Case{step(R"("loss_scale": -1)"), R"(:2: step row: "loss_scale" must be in [)"},
           Case{step(R"("loss_scale": 5e-324)"), R"(:2: step row: "loss_scale" must be in [)"},
           Case{step(R"("loss_scale": 1e308)"), R"(:2: step row: "loss_scale" must be in [)"},
           Case{step(R"("train_accuracy": 1e308)"), R"(:2: step row: "train_accuracy" must be in [0, 1])"},
           Case{step(R"("events": [{"event": "backoff", "scale_before": -2, "scale_after": 1}])"),
                R"(:2: scaler event: "scale_before" must be in [)"},
           Case{R"({"eval": true, "step": 2, "test_loss": 1, "test_accuracy": 88})" "\n",
                R"(:2: eval row: "test_accuracy" must be in [0, 1])"},
           Case{R"({"summary": true, "test_accuracy": -0.5})" "\n",
                R"(:2: summary: "test_accuracy" must be in [0, 1])"},
       }) {
    const std::string e = loadError(kStep0 + c.line);
    EXPECT_NE(e.find(c.expected), std::string::npos) << c.line << e;
  }
  // The ends of the ranges, 0 (a float32 scale backed off below its
  // subnormals) and null (a non-finite value as logged) load.
  EXPECT_EQ(loadError(kStep0 +
                      R"({"step": 1, "loss": 1, "loss_scale": 1.4012984643248171e-45, "train_accuracy": 1})"
                      "\n"
                      R"({"step": 3, "loss": 1, "loss_scale": 0, "train_accuracy": 0})"
                      "\n"
                      R"({"step": 4, "loss": 1, "loss_scale": 3.4028234663852886e+38, "train_accuracy": null})"
                      "\n"),
            "no error");
}

// ---------------------------------------------------------------- files and lines

TEST_F(HostileReader, RegularFileRefusesFifoAndDevZeroWithoutBlocking) {
  const fs::path fifo = m_dir.path() / "fifo.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const fs::path zero = m_dir.path() / "zero.json";
  fs::create_symlink("/dev/zero", zero);
  for (const fs::path& p : {fifo, zero}) {
    const std::string e = capped(
        [&] { return errorOf([&] { io::readRegularFile(p, 1 << 20, "cache"); }); }, 20,
        256ll << 20);
    EXPECT_EQ(e, "cache '" + p.string() + "' is not a regular file (a device, FIFO or socket)");
  }
  const fs::path big = write(std::string(2000, 'x'), "big.json");
  EXPECT_EQ(errorOf([&] { io::readRegularFile(big, 1024, "cache"); }),
            "cache '" + big.string() + "': 2000 bytes, over the limit of 1 KiB for caches");
}

TEST(HostileLineReader, ALongLineIsRefusedWithItsNumberHoldingNoMoreThanTheLimit) {
  std::istringstream in("1\n22\n" + std::string(5000, '3') + "\n4");
  io::LineReader lines(in, 4096);
  std::string line;
  ASSERT_TRUE(lines.next(line));
  EXPECT_EQ(line, "1");
  ASSERT_TRUE(lines.next(line));
  EXPECT_EQ(line, "22");
  EXPECT_EQ(lines.lineNumber(), 2);
  EXPECT_EQ(errorOf([&] { lines.next(line); }), "line 3: longer than the limit of 4 KiB for one line");
  EXPECT_LE(line.capacity(), 8192u);

  std::istringstream last("a\n\nb");
  io::LineReader tail(last, 16);
  std::vector<std::string> got;
  while (tail.next(line))
    got.push_back(line);
  EXPECT_EQ(got, (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(tail.lineNumber(), 3);
}

} // namespace
