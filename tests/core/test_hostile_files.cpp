// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// Crafted files, as someone who mails a run log or shares a data folder could
// make them: each is refused with a message naming the problem, never read
// out of bounds, never allocated without bound, never run with numbers other
// than the ones written.
#include "test_data_util.h"

#include <mantissa/build_flags.h>
#include <mantissa/data/csv_loader.h>
#include <mantissa/io/json_text.h>
#include <mantissa/data/dataset.h>
#include <mantissa/data/idx_loader.h>
#include <mantissa/lessons/lesson_set.h>
#include <mantissa/model/mlp.h>
#include <mantissa/telemetry/frame.h>
#include <mantissa/train/run_config.h>
#include <mantissa/train/run_log.h>
#include <mantissa/train/session.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <string>

// ASan keeps freed blocks in a quarantine of up to 256 MB, which counts in the
// resident set the bounds below measure (a million rows through the export
// decimator peaked at 688 MiB with it). A 4 MB quarantine still catches use
// after free here. (ASAN_OPTIONS, read after this, can still set it.)
// Read by the ASan runtime only; a build without ASan never calls it.
extern "C" [[gnu::used]] const char* __asan_default_options() {
  return "quarantine_size_mb=4";
}

namespace {

namespace fs = std::filesystem;
using mantissa::testing::Bytes;
using mantissa::testing::idx;
using mantissa::testing::TempDir;
using mantissa::train::loadRunLog;
using mantissa::train::RunLogError;
using nlohmann::json;

// Peak resident set of this process so far, in bytes.
long long peakResidentBytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<long long>(u.ru_maxrss) * 1024;
}
constexpr long long kResidentBound = 512ll << 20; // "well under 1 GB"

// A telemetry frame as the trainer writes it: one tensor, 3 values in binade 0.
json goodFrame(std::int64_t step) {
  mantissa::telemetry::TelemetryFrame f;
  f.step = step;
  mantissa::telemetry::TensorTelemetry t;
  t.hist.bins[mantissa::telemetry::ExponentHistogram::index(0)] = 3;
  t.hist.total = 3;
  f.tensors.push_back(t);
  f.swamped = {0.25};
  return mantissa::telemetry::toJson(f);
}

std::string frameError(const json& frame) {
  try {
    mantissa::telemetry::fromJson(frame);
  } catch (const mantissa::telemetry::TelemetryJsonError& e) {
    return e.what();
  }
  return {};
}

class HostileRunLog : public ::testing::Test {
protected:
  fs::path write(const std::string& text, const std::string& name = "run.jsonl") const {
    const fs::path p = m_dir.path() / name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }
  std::string errorOf(const std::string& text) const {
    try {
      loadRunLog(write(text));
    } catch (const RunLogError& e) {
      return e.what();
    }
    return {};
  }
  static std::string stepLine(std::int64_t step, const json& telemetry = nullptr) {
    json j = {{"step", step}, {"loss", 1.0}};
    if (!telemetry.is_null())
      j["telemetry"] = telemetry;
    return j.dump() + "\n";
  }
  TempDir m_dir;
};

TEST(HostileFrame, GoodFrameLoads) {
  const auto f = mantissa::telemetry::fromJson(goodFrame(4));
  ASSERT_EQ(f.tensors.size(), 1u);
  EXPECT_EQ(f.tensors[0].hist.count(0), 3u);
}

// lo near INT64_MAX made first + size - 1 wrap, so the range check passed and
// the counts were written past the 277-entry bin array.
TEST(HostileFrame, LoNearInt64MaxIsRefused) {
  for (const json& lo : {json(std::numeric_limits<std::int64_t>::max()),
                        json(std::numeric_limits<std::int64_t>::max() - 1),
                        json(std::numeric_limits<std::uint64_t>::max()),
                        json(std::numeric_limits<std::int64_t>::min()), json(128), json(-150)}) {
    json f = goodFrame(0);
    f["tensors"][0]["lo"] = lo;
    f["tensors"][0]["counts"] = json::array({1, 1, 1});
    const std::string e = frameError(f);
    EXPECT_NE(e.find(".lo"), std::string::npos) << lo.dump() << ": " << e;
  }
}

TEST(HostileFrame, UnreasonableLoWithEmptyCountsIsRefused) {
  json f = goodFrame(0);
  f["tensors"][0]["lo"] = std::numeric_limits<std::int64_t>::max();
  f["tensors"][0]["counts"] = json::array();
  f["tensors"][0]["total"] = 0;
  EXPECT_NE(frameError(f).find("lowest binade's exponent in [-149, 127]"), std::string::npos)
      << frameError(f);
}

TEST(HostileFrame, TooManyBinsAreRefused) {
  json f = goodFrame(0);
  f["tensors"][0]["lo"] = -149;
  f["tensors"][0]["counts"] = json::array();
  for (int i = 0; i < 278; ++i)
    f["tensors"][0]["counts"].push_back(0);
  EXPECT_NE(frameError(f).find("278 bins, more than the 277"), std::string::npos) << frameError(f);
  f["tensors"][0]["lo"] = 127;
  f["tensors"][0]["counts"] = json::array({0, 0});
  EXPECT_NE(frameError(f).find("leave the FP32 binades"), std::string::npos) << frameError(f);
}

// 2^63 + 2^63 + 5 wraps to 5 in uint64.
TEST(HostileFrame, CountsThatWrapTheTotalAreRefused) {
  json f = goodFrame(0);
  const std::uint64_t half = std::uint64_t{1} << 63;
  f["tensors"][0]["lo"] = 0;
  f["tensors"][0]["counts"] = json::array({half, half, 5});
  f["tensors"][0]["total"] = 5;
  EXPECT_NE(frameError(f).find("add up to more than 2^64 - 1"), std::string::npos)
      << frameError(f);
  f["tensors"][0]["counts"] = json::array({5});
  f["tensors"][0]["zeros"] = half;
  f["tensors"][0]["nan"] = half;
  EXPECT_NE(frameError(f).find("add up to more than 2^64 - 1"), std::string::npos)
      << frameError(f);
}

TEST(HostileFrame, NegativeStepIsRefused) {
  EXPECT_NE(frameError(goodFrame(-1)).find("step index in [0, 2^62]"), std::string::npos);
}

TEST_F(HostileRunLog, HistogramOverflowFrameIsAnErrorWithLine) {
  json f = goodFrame(1);
  f["tensors"][0]["lo"] = std::numeric_limits<std::int64_t>::max() - 1;
  f["tensors"][0]["counts"] = json::array({7, 7, 7, 7});
  const std::string e = errorOf(stepLine(0) + stepLine(1, f));
  EXPECT_NE(e.find("run.jsonl:2: telemetry: "), std::string::npos) << e;
}

// A million levels crashed plot and report through a recursive copy.
TEST_F(HostileRunLog, DeepNestingIsRefusedBeforeParsing) {
  const std::size_t levels = 1'000'000;
  std::string header = R"({"header": true, "x": )";
  header += std::string(levels, '[') + std::string(levels, ']') + "}\n";
  const std::string e = errorOf(header + stepLine(0));
  EXPECT_NE(e.find("run.jsonl:1: JSON nested 1000001 levels deep, over the limit of 64"),
            std::string::npos)
      << e.substr(0, 200);
  // Brackets inside strings are text, not nesting.
  EXPECT_EQ(mantissa::io::jsonNestingDepth(R"({"a": "[[[[{{{{\"[[["})"), 1u);
  EXPECT_EQ(mantissa::io::jsonNestingDepth(R"({"a": [[1], {"b": [2]}]})"), 4u);
  // At the limit it loads.
  std::string ok = R"({"header": true, "x": )" + std::string(63, '[') + std::string(63, ']') + "}\n";
  EXPECT_NO_THROW(loadRunLog(write(ok + stepLine(0), "ok.jsonl")));
}

TEST_F(HostileRunLog, StepsAndEvalsMustBeInOrder) {
  std::string e = errorOf(R"({"step": -1, "loss": 1})" "\n");
  EXPECT_NE(e.find("\"step\" must be in [0, 4611686018427387904], got -1"), std::string::npos) << e;
  e = errorOf(stepLine(3) + stepLine(2));
  EXPECT_NE(e.find(":2: step 2 does not follow step 3"), std::string::npos) << e;
  e = errorOf(stepLine(0) + R"({"eval": true, "step": 5, "test_loss": 1, "test_accuracy": 0.5})" "\n" +
              R"({"eval": true, "step": 4, "test_loss": 1, "test_accuracy": 0.5})" "\n");
  EXPECT_NE(e.find(":3: eval at step 4 comes after the eval at step 5"), std::string::npos) << e;
  e = errorOf(stepLine(0) + stepLine(7) +
              R"({"eval": true, "step": 3, "test_loss": 1, "test_accuracy": 0.5})" "\n");
  EXPECT_NE(e.find(":3: eval at step 3 comes after step row 7"), std::string::npos) << e;
  e = errorOf(R"({"eval": true, "step": 9, "test_loss": 1, "test_accuracy": 0.5})" "\n" +
              stepLine(2));
  EXPECT_NE(e.find(":2: step 2 comes after the eval at step 9"), std::string::npos) << e;
  e = errorOf(R"({"eval": true, "step": -4, "test_loss": 1, "test_accuracy": 0.5})" "\n");
  EXPECT_NE(e.find("eval row: \"step\" must be in [0,"), std::string::npos) << e;
}

// frameAt() binary-searches: a frame must carry its row's step, in order.
TEST_F(HostileRunLog, TelemetryFrameBelongsToItsRow) {
  const std::string e = errorOf(stepLine(0, goodFrame(0)) + stepLine(1, goodFrame(-5)));
  EXPECT_NE(e.find(":2: telemetry:"), std::string::npos) << e;
  const std::string e2 = errorOf(stepLine(0, goodFrame(0)) + stepLine(5, goodFrame(2)));
  EXPECT_NE(e2.find(":2: telemetry: frame of step 2 in step row 5"), std::string::npos) << e2;
  const auto log = loadRunLog(write(stepLine(0, goodFrame(0)) + stepLine(3) +
                                    stepLine(5, goodFrame(5)) + stepLine(9, goodFrame(9))));
  ASSERT_NE(log.frameAt(5), nullptr);
  EXPECT_EQ(log.frameAt(5)->step, 5);
  EXPECT_EQ(log.frameAt(3), nullptr);
  EXPECT_EQ(log.frameAt(9)->step, 9);
}

TEST_F(HostileRunLog, RowIntegersThatDoNotFitAreRefused) {
  std::string e = errorOf(R"({"step": 0, "loss": 1, "growth_tracker": 4294967297})" "\n");
  EXPECT_NE(e.find("\"growth_tracker\" must be in [0, 2147483647]"), std::string::npos) << e;
  e = errorOf(R"({"step": 18446744073709551615, "loss": 1})" "\n");
  EXPECT_NE(e.find("\"step\" must be in [0,"), std::string::npos) << e;
  e = errorOf(R"({"header": true, "total_steps": -3})" "\n");
  EXPECT_NE(e.find("header: \"total_steps\" must be in [0,"), std::string::npos) << e;
}

// Same ranges as the CLI flags: --batch 4294967312 is refused, so is the config key.
TEST_F(HostileRunLog, HeaderConfigIsRangeChecked) {
  std::string e = errorOf(R"({"header": true, "config": {"batch": 4294967312}})" "\n");
  EXPECT_NE(e.find("header: config: batch: 4294967312 is out of range"), std::string::npos) << e;
  e = errorOf(R"({"header": true, "config": {"batch": 70000}})" "\n");
  EXPECT_NE(e.find("header: config: batch: must be in [1, 65536], got 70000"), std::string::npos)
      << e;
}

TEST_F(HostileRunLog, DevZeroAndFifoAreRefusedNotRead) {
  if (fs::exists("/dev/zero")) {
    try {
      loadRunLog("/dev/zero");
      ADD_FAILURE() << "/dev/zero loaded";
    } catch (const RunLogError& e) {
      EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
    }
  }
  const fs::path fifo = m_dir.path() / "pipe.jsonl";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  try {
    loadRunLog(fifo); // with no writer: must not block
    ADD_FAILURE() << "a FIFO loaded";
  } catch (const RunLogError& e) {
    EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
  }
  try {
    loadRunLog(m_dir.path());
    ADD_FAILURE() << "a directory loaded";
  } catch (const RunLogError& e) {
    EXPECT_NE(std::string(e.what()).find("is a directory"), std::string::npos) << e.what();
  }
  EXPECT_LT(peakResidentBytes(), kResidentBound);
}

TEST_F(HostileRunLog, OversizedLogIsRefusedBeforeReading) {
  const fs::path big = write(stepLine(0), "big.jsonl");
  fs::resize_file(big, mantissa::train::kMaxRunLogBytes + 1); // sparse: no disk used
  try {
    loadRunLog(big);
    ADD_FAILURE() << "an oversized log loaded";
  } catch (const RunLogError& e) {
    EXPECT_NE(std::string(e.what()).find("over the limit of 256 MiB for run logs"),
              std::string::npos)
        << e.what();
  }
  EXPECT_LT(peakResidentBytes(), kResidentBound);
}

TEST(HostileConfig, IntegersAreRangeCheckedNotTruncated) {
  using mantissa::train::ConfigError;
  using mantissa::train::runConfigFromJson;
  const auto errorOf = [](const json& j) -> std::string {
    try {
      runConfigFromJson(j).validate();
    } catch (const ConfigError& e) {
      return e.what();
    }
    return {};
  };
  EXPECT_NE(errorOf({{"batch", 4294967312LL}}).find("batch: 4294967312 is out of range"),
            std::string::npos);
  EXPECT_NE(errorOf({{"telemetry_every", -4294967295LL}}).find("telemetry_every:"),
            std::string::npos);
  EXPECT_NE(errorOf({{"grad_accumulation", 4294967297LL}}).find("grad_accumulation:"),
            std::string::npos);
  EXPECT_NE(errorOf({{"scaler_growth_interval", 4294967296LL}}).find("scaler_growth_interval:"),
            std::string::npos);
  EXPECT_NE(errorOf({{"steps", 1LL << 41}}).find("steps: must be in [1, 2^40]"), std::string::npos);
  EXPECT_NE(errorOf({{"epochs", 1000001}}).find("epochs: must be in [1, 1000000]"),
            std::string::npos);
  EXPECT_NE(errorOf({{"steps", 10}, {"warmup_steps", std::numeric_limits<std::int64_t>::max()}})
                .find("warmup_steps: must be in [0, 2^40]"),
            std::string::npos);
  EXPECT_NE(errorOf({{"steps", 10}, {"eval_every", 1LL << 50}}).find("eval_every: must be in"),
            std::string::npos);
  EXPECT_NE(errorOf({{"steps", 10}, {"seed", std::numeric_limits<std::uint64_t>::max()}})
                .find("seed: must be in [0, 2^63 - 1]"),
            std::string::npos);
  // In range: read exactly.
  const auto c = runConfigFromJson({{"batch", 65536}, {"steps", 1LL << 40}});
  EXPECT_EQ(c.batch, 65536);
  EXPECT_EQ(c.steps, 1LL << 40);
}

// The largest epochs allowed times the steps of an epoch stays far from int64's
// end; the session computes the product with an overflow check anyway.
TEST(HostileConfig, EpochsTimesStepsIsTheNumberAsked) {
  mantissa::train::RunConfig c;
  c.data = "spirals";
  c.model = "mlp:2-8-2:relu";
  c.batch = 1;
  c.epochs = 1'000'000;
  c.schedule = "cosine";
  c.warmupSteps = 1LL << 40;
  const mantissa::train::Session s(c);
  EXPECT_EQ(s.totalSteps(), 1'000'000LL * 2000);
}

// 200x200 test images against 28x28 training images overflowed the input
// buffer in evaluate(); smaller ones evaluated stale inputs.
TEST(HostileData, TrainAndTestShapesMustMatch) {
  TempDir dir;
  const auto images = [](std::uint32_t n, std::uint32_t side) {
    return idx(0x08, {n, side, side}, Bytes(std::size_t(n) * side * side, 7));
  };
  const auto labels = [](std::uint32_t n) { return idx(0x08, {n}, Bytes(n, 1)); };
  dir.write("train-images-idx3-ubyte", images(4, 28));
  dir.write("train-labels-idx1-ubyte", labels(4));
  dir.write("t10k-images-idx3-ubyte", images(2, 200));
  dir.write("t10k-labels-idx1-ubyte", labels(2));
  mantissa::testing::expectDataError(
      [&] { mantissa::data::loadDataSpec(dir.path().string()); },
      {"t10k-images-idx3-ubyte", "200x200 images", "training set", "28x28 images"});
  mantissa::testing::expectDataError(
      [&] { mantissa::data::loadDataSpec((dir.path() / "train-images-idx3-ubyte").string()); },
      {"200x200 images", "28x28 images"});
  dir.write("t10k-images-idx3-ubyte", images(2, 7));
  mantissa::testing::expectDataError(
      [&] { mantissa::data::loadDataSpec(dir.path().string()); }, {"7x7 images", "28x28 images"});
}

TEST(HostileData, SessionRefusesMismatchedTrainTestInMemory) {
  auto tt = std::make_shared<mantissa::data::TrainTest>(mantissa::data::loadBuiltin("spirals", 1));
  tt->test.features = 3;
  tt->test.x.resize(tt->test.size() * 3);
  mantissa::train::RunConfig c;
  c.data = "spirals";
  c.model = "mlp:2-8-2:relu";
  c.steps = 1;
  try {
    mantissa::train::Session s(c, tt);
    ADD_FAILURE() << "a session with 2-feature training and 3-feature test data was made";
  } catch (const mantissa::train::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("test set"), std::string::npos) << e.what();
  }
}

} // namespace

namespace {

// A million steps with telemetry every 10 and an evaluation every 100: what
// --export keeps stays under its caps, evenly spread, first and last included.
TEST(HostileExport, DecimatorKeepsBoundedEvenlySpacedRows) {
  mantissa::train::RunLogDecimator d;
  d.add({{"header", true}});
  const std::int64_t n = 1'000'000;
  const json frame = goodFrame(0);
  for (std::int64_t s = 0; s < n; ++s) {
    json row = {{"step", s}, {"loss", 1.0 / double(s + 1)}};
    if (s % 10 == 0) {
      json f = frame;
      f["step"] = s;
      row["telemetry"] = std::move(f);
    }
    if (s == 777'777)
      row["events"] = json::array({{{"event", "backoff"}, {"scale_before", 2.0}, {"scale_after", 1.0}}});
    d.add(row);
    if ((s + 1) % 100 == 0)
      d.add({{"eval", true}, {"step", s + 1}, {"test_loss", 0.5}, {"test_accuracy", 0.5}});
    ASSERT_LE(d.stepRows(), mantissa::train::kMaxExportStepRows + 1);
    ASSERT_LE(d.frames(), mantissa::train::kMaxExportFrames + 1);
    ASSERT_LE(d.evals(), mantissa::train::kMaxExportEvals + 1);
  }
  d.add({{"summary", true}, {"steps", n}});
  const auto log = d.take();
  ASSERT_FALSE(log.steps.empty());
  EXPECT_EQ(log.steps.front().step, 0);
  EXPECT_EQ(log.steps.back().step, n - 1);
  EXPECT_GE(log.steps.size(), mantissa::train::kMaxExportStepRows / 4);
  EXPECT_LE(log.steps.size(), mantissa::train::kMaxExportStepRows + mantissa::train::kMaxExportEvals + 1);
  EXPECT_GE(log.frames.size(), mantissa::train::kMaxExportFrames / 4);
  EXPECT_GE(log.evals.size(), mantissa::train::kMaxExportEvals / 4);
  EXPECT_EQ(log.evals.back().step % 100, 0);
  // Evenly spaced: no gap between kept rows is more than 4x the median gap.
  std::vector<std::int64_t> gaps;
  for (std::size_t i = 1; i < log.steps.size(); ++i)
    gaps.push_back(log.steps[i].step - log.steps[i - 1].step);
  std::vector<std::int64_t> sorted = gaps;
  std::nth_element(sorted.begin(), sorted.begin() + std::ptrdiff_t(sorted.size() / 2), sorted.end());
  const std::int64_t median = sorted[sorted.size() / 2];
  EXPECT_LE(*std::max_element(gaps.begin(), gaps.end()), 4 * median);
  bool eventKept = false;
  for (const auto& r : log.steps)
    eventKept |= r.step == 777'777 && !r.events.empty();
  EXPECT_TRUE(eventKept);
  EXPECT_LT(peakResidentBytes(), kResidentBound);
}

} // namespace

namespace {

using mantissa::data::parseCsv;
using mantissa::testing::expectDataError;

TEST(HostileCsv, ByteOrderMarkIsNotAHeader) {
  const auto d = parseCsv("\xEF\xBB\xBF" "1,0.5,0.25\n0,1,2\n", "bom.csv");
  ASSERT_EQ(d.size(), 2u); // the first row is data, not a header
  EXPECT_EQ(d.y[0], 1);
  EXPECT_EQ(d.x[0], 0.5f);
  const auto h = parseCsv("\xEF\xBB\xBF" "label,a,b\n1,0.5,0.25\n", "bomh.csv");
  EXPECT_EQ(h.size(), 1u);
}

TEST(HostileCsv, OneBadCellInTheFirstLineIsAnErrorNotAHeader) {
  expectDataError([] { parseCsv("1,0.5,oops\n0,1,2\n", "bad.csv"); },
                  {"bad.csv: line 1, column 3", "'oops'", "is not a number"});
  expectDataError([] { parseCsv("label,0.5,x\n0,1,2\n", "mixed.csv"); }, {"mixed.csv: line 1, column 1", "'label'"});
}

TEST(HostileCsv, AtMostOneSign) {
  expectDataError([] { parseCsv("0,1\n1,+-1\n", "s.csv"); }, {"line 2, column 2", "'+-1'"});
  expectDataError([] { parseCsv("0,1\n1,++1\n", "s.csv"); }, {"line 2, column 2", "'++1'"});
  expectDataError([] { parseCsv("0,1\n1,--1\n", "s.csv"); }, {"line 2, column 2"});
  const auto d = parseCsv("0,+1\n1,-1\n", "s.csv");
  EXPECT_EQ(d.x[0], 1.0f);
  EXPECT_EQ(d.x[1], -1.0f);
}

// A wide first line and then many blank lines: the reservation was lines x
// columns and failed with std::bad_alloc instead of a data error.
TEST(HostileCsv, WideFirstLineAndBlankLinesReserveNothingHuge) {
  std::string text = "0";
  for (int i = 0; i < 100'000; ++i)
    text += ",1";
  text += std::string(2'000'000, '\n');
  const auto d = parseCsv(text, "wide.csv");
  EXPECT_EQ(d.size(), 1u);
  EXPECT_EQ(d.features, 100'000);
  EXPECT_LT(peakResidentBytes(), kResidentBound);
}

TEST(HostileCsv, SampleLimitIsNamed) {
  std::string text;
  text.reserve((mantissa::data::kMaxSamples + 1) * 4);
  for (std::size_t i = 0; i <= mantissa::data::kMaxSamples; ++i)
    text += "0,1\n";
  expectDataError([&] { parseCsv(text, "many.csv"); },
                  {"many.csv: line 4194305", "more than 4194304 samples"});
  EXPECT_LT(peakResidentBytes(), kResidentBound);
}

// About 1 MB of gzip holding 2^29 one-pixel images used to inflate to ~10 GB
// (bytes, floats, labels, split copies, shuffle order): refused from the header.
TEST(HostileData, GzipBombIsRefusedFromItsHeader) {
  TempDir dir;
  const std::uint32_t n = 1u << 29;
  const Bytes header = idx(0x08, {n, 1, 1}, {});
  // The payload: 2^29 zero bytes, gzip'ed in 1 MiB pieces (one member each).
  Bytes file = mantissa::testing::gzip(header);
  const Bytes chunk(1 << 20, 0);
  const Bytes gz = mantissa::testing::gzip(chunk);
  for (int i = 0; i < 512; ++i)
    file.insert(file.end(), gz.begin(), gz.end());
  dir.write("train-images-idx3-ubyte.gz", file);
  dir.write("train-labels-idx1-ubyte.gz", mantissa::testing::gzip(idx(0x08, {n}, {})));
  expectDataError(
      [&] { mantissa::data::loadDataSpec((dir.path() / "train-images-idx3-ubyte.gz").string()); },
      {"header declares 536870912 images, over the limit of 4194304 samples"});
  EXPECT_LT(peakResidentBytes(), kResidentBound);
}

// At the limits (4 Mi images of 16 pixels = 64 Mi values, gzip'ed) a file loads
// and is split with the resident set well under 1 GB; one pixel more is refused.
TEST(HostileData, LargestAcceptedIdxLoadsInBoundedMemory) {
  if (mantissa::builtWithSanitizer())
    GTEST_SKIP() << "ASan's shadow memory and quarantine change the resident set; the bound is "
                    "checked in the plain build";
  TempDir dir;
  const std::uint32_t n = std::uint32_t(mantissa::data::kMaxSamples);
  Bytes pixels(std::size_t(n) * 16);
  for (std::size_t i = 0; i < pixels.size(); ++i)
    pixels[i] = std::uint8_t(i * 2654435761u >> 24);
  Bytes labels(n);
  for (std::size_t i = 0; i < labels.size(); ++i)
    labels[i] = std::uint8_t(i % 10);
  dir.write("big-images-idx3-ubyte.gz", mantissa::testing::gzip(idx(0x08, {n, 4, 4}, pixels)));
  dir.write("big-labels-idx1-ubyte.gz", mantissa::testing::gzip(idx(0x08, {n}, labels)));
  pixels = Bytes();
  labels = Bytes();
  const auto tt =
      mantissa::data::loadDataSpec((dir.path() / "big-images-idx3-ubyte.gz").string());
  EXPECT_EQ(tt.train.size() + tt.test.size(), std::size_t(n));
  EXPECT_EQ(tt.train.x.size() + tt.test.x.size(), mantissa::data::kMaxSampleValues);
  EXPECT_LT(peakResidentBytes(), 700ll << 20);
  dir.write("wide-images-idx3-ubyte", idx(0x08, {n / 2 + 1, 4, 8}, {}));
  expectDataError([&] { mantissa::data::loadIdx(dir.path() / "wide-images-idx3-ubyte",
                                                dir.path() / "big-labels-idx1-ubyte.gz"); },
                  {"over the limit of 2^26 pixels"});
}

// The in-place split is a partition of the rows: every sample once, 80/20,
// the same every time.
TEST(HostileData, SplitIsAPartitionOfTheRows) {
  TempDir dir;
  std::string text = "label,a,b\n";
  for (int i = 0; i < 1001; ++i)
    text += std::to_string(i % 3) + "," + std::to_string(i) + "," + std::to_string(-i) + "\n";
  const auto path = dir.writeText("rows.csv", text).string();
  const auto a = mantissa::data::loadDataSpec(path);
  const auto b = mantissa::data::loadDataSpec(path);
  EXPECT_EQ(a.train.x, b.train.x);
  EXPECT_EQ(a.train.size(), 800u);
  EXPECT_EQ(a.test.size(), 201u);
  std::vector<int> seen(1001, 0);
  for (const auto* d : {&a.train, &a.test})
    for (std::size_t r = 0; r < d->size(); ++r) {
      const int i = int(d->x[2 * r]);
      ASSERT_GE(i, 0);
      ASSERT_LT(i, 1001);
      EXPECT_EQ(d->x[2 * r + 1], float(-i));
      EXPECT_EQ(d->y[r], i % 3);
      ++seen[std::size_t(i)];
    }
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), 1001);
  // Shuffled: the training set is not the first 800 rows in order.
  int inPlace = 0;
  for (std::size_t r = 0; r < a.train.size(); ++r)
    inPlace += int(a.train.x[2 * r]) == int(r);
  EXPECT_LT(inPlace, 50);
}

} // namespace

namespace {

// A manifest listing one file 100,000 times read and stored it 100,000 times.
TEST(HostileLessons, ManifestReadsEachFileOnce) {
  std::size_t reads = 0;
  const auto reader = [&](const fs::path&) -> std::string {
    ++reads;
    return "# Title\n" + std::string(1000, 'x') + "\n";
  };
  json list = json::array();
  for (int i = 0; i < 900; ++i)
    list.push_back({{"title", "T"}, {"file", i % 2 ? "a.md" : "./a.md"}});
  list.push_back({{"title", "B"}, {"file", "b.md"}});
  const auto set = mantissa::lessons::parseLessons(json{{"lessons", list}}.dump(), "/lessons", reader);
  ASSERT_TRUE(set.error.empty()) << set.error;
  EXPECT_EQ(reads, 2u);
  ASSERT_EQ(set.lessons.size(), 901u);
  EXPECT_TRUE(set.lessons[0].ok());
  EXPECT_TRUE(set.lessons[900].ok());
  EXPECT_NE(set.lessons[1].error.find("already lists this file as lesson 1"), std::string::npos)
      << set.lessons[1].error;
  EXPECT_TRUE(set.lessons[1].text.empty());
}

TEST(HostileLessons, LessonCountAndTotalSizeAreBounded) {
  const auto reader = [](const fs::path&) -> std::string {
    return "# Title\n" + std::string(mantissa::lessons::kMaxLessonBytes - 100, 'x') + "\n";
  };
  json list = json::array();
  for (int i = 0; i < 40; ++i)
    list.push_back({{"title", "T"}, {"file", std::to_string(i) + ".md"}});
  const auto set = mantissa::lessons::parseLessons(json{{"lessons", list}}.dump(), "/lessons", reader);
  ASSERT_EQ(set.lessons.size(), 40u);
  EXPECT_TRUE(set.lessons[31].ok()) << set.lessons[31].error;
  EXPECT_NE(set.lessons[32].error.find("together are larger than 32 MiB"), std::string::npos)
      << set.lessons[32].error;
  json many = json::array();
  for (std::size_t i = 0; i <= mantissa::lessons::kMaxLessons; ++i)
    many.push_back({{"title", "T"}, {"file", "a.md"}});
  const auto big = mantissa::lessons::parseLessons(json{{"lessons", many}}.dump(), "/lessons", reader);
  EXPECT_NE(big.error.find("1001 lessons, more than the limit of 1000"), std::string::npos) << big.error;
  EXPECT_TRUE(big.lessons.empty());
}

// 100,000 width-1 layers took 3.1 GB.
TEST(HostileModel, LayerAndParameterLimits) {
  std::string spec = "mlp:2";
  for (int i = 0; i < 100'000; ++i)
    spec += "-1";
  spec += "-2";
  try {
    mantissa::model::parseMlpSpec(spec);
    ADD_FAILURE() << "100001 layers accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("more than 64 layers"), std::string::npos);
  }
  std::string ok = "mlp:2";
  for (int i = 0; i < 63; ++i)
    ok += "-4";
  ok += "-2";
  EXPECT_EQ(mantissa::model::parseMlpSpec(ok).layers(), 64);
  try {
    mantissa::model::parseMlpSpec("mlp:65536-65536-10");
    ADD_FAILURE() << "4 Gi parameters accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("parameters, over the limit of 134217728"), std::string::npos)
        << e.what();
  }
  EXPECT_LT(peakResidentBytes(), kResidentBound);
}

} // namespace

namespace {

TEST_F(HostileRunLog, RowLimitIsNamedAndMemoryStaysBounded) {
  std::string text;
  text.reserve((mantissa::train::kMaxRunLogRows + 1) * 24);
  for (std::size_t s = 0; s <= mantissa::train::kMaxRunLogRows; ++s)
    text += "{\"step\":" + std::to_string(s) + ",\"loss\":1}\n";
  const std::string e = errorOf(text);
  EXPECT_NE(e.find("run.jsonl:1048577: more than 1048576 rows, the limit of a run log"),
            std::string::npos)
      << e;
  // ASan's shadow and quarantine change the resident set
  if (!mantissa::builtWithSanitizer()) {
    EXPECT_LT(peakResidentBytes(), 640ll << 20);
  }
}

TEST(HostileData, DataFileSizeLimitIsNamed) {
  TempDir dir;
  const auto path = dir.write("huge.csv", Bytes{'0', ',', '1', '\n'});
  fs::resize_file(path, (std::uintmax_t{512} << 20) + 1); // sparse
  expectDataError([&] { mantissa::data::loadDataSpec(path.string()); },
                  {"huge.csv", "over the 512 MiB limit for data files"});
  EXPECT_LT(peakResidentBytes(), kResidentBound);
}

} // namespace
