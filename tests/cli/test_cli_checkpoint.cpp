// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// `mantissa-cli checkpoint FILE [--json]` on safetensors files packed by hand
// in this test (8-byte little-endian length, JSON header, data): the listing
// states what the bytes hold, NaN and infinities are counted, and a bad file
// is refused with a message naming the tensor. train --checkpoint, --resume
// and --save-every, and sample, on the files train writes.
#include "cli_runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <bit>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

using mantissa::test::runCli;
namespace fs = std::filesystem;

std::string le(std::uint64_t v, int bytes) {
  std::string s(std::size_t(bytes), '\0');
  for (int i = 0; i < bytes; ++i)
    s[std::size_t(i)] = char((v >> (8 * i)) & 0xff);
  return s;
}
std::string f32(float v) { return le(std::bit_cast<std::uint32_t>(v), 4); }

fs::path writeFile(const std::string& name, const std::string& header, const std::string& data) {
  const fs::path dir = fs::temp_directory_path() / ("mantissa_cli_checkpoint_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path p = dir / name;
  const std::string bytes = le(header.size(), 8) + header + data;
  std::ofstream(p, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
  return p;
}

// w: F32 [2, 3] with one NaN and one -inf; h: F16 [2] = 1.0, 65504 (finite);
// ids: I64 [1]; config: a JSON object; vocab: a plain string.
fs::path sample() {
  const std::string w = f32(1) + f32(std::numeric_limits<float>::quiet_NaN()) + f32(3) +
                        f32(-std::numeric_limits<float>::infinity()) + f32(5) + f32(6);
  const std::string h = le(0x3C00, 2) + le(0x7BFF, 2);
  const std::string ids = le(42, 8);
  const std::string header =
      R"({"__metadata__":{"config":"{\"model\":\"gpt\",\"steps\":300}","vocab":"ab\nc"},)"
      R"("transformer.wte.weight":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},)"
      R"("h":{"dtype":"F16","shape":[2],"data_offsets":[24,28]},)"
      R"("ids":{"dtype":"I64","shape":[1],"data_offsets":[28,36]}})";
  return writeFile("sample.safetensors", header, w + h + ids);
}

TEST(CliCheckpoint, ListsTensorsCountsNanAndPrettyPrintsTheConfig) {
  const auto r = runCli({"checkpoint", sample().string()});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("3 tensors, 36 bytes of data"), std::string::npos) << r.out;
  // name, dtype, shape, bytes, non-finite count, in data order.
  const auto row = [&](const std::string& name) {
    const auto at = r.out.find("\n" + name + " ");
    EXPECT_NE(at, std::string::npos) << name << " in:\n" << r.out;
    return at == std::string::npos ? std::string() : r.out.substr(at + 1, r.out.find('\n', at + 1) - at - 1);
  };
  const auto words = [](const std::string& line) {
    std::vector<std::string> w;
    std::istringstream in(line);
    for (std::string word; in >> word;)
      w.push_back(word);
    return w;
  };
  // 24 bytes, 2 of them NaN or infinite (the NaN and -inf).
  EXPECT_EQ(words(row("transformer.wte.weight")),
            (std::vector<std::string>{"transformer.wte.weight", "F32", "[2,", "3]", "24", "2"}));
  // 65504 is finite.
  EXPECT_EQ(words(row("h")), (std::vector<std::string>{"h", "F16", "[2]", "4", "0"}));
  // Integers are not scanned.
  EXPECT_EQ(words(row("ids")), (std::vector<std::string>{"ids", "I64", "[1]", "8", "-"}));
  EXPECT_LT(r.out.find("transformer.wte.weight"), r.out.find("\nh ")) << "data order";
  EXPECT_NE(r.out.find("1 tensor holds NaN or infinity"), std::string::npos) << r.out;
  // The config pretty-printed, one key a line; the other entry escaped.
  EXPECT_NE(r.out.find("  config:\n    {\n      \"model\": \"gpt\",\n      \"steps\": 300\n    }\n"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  vocab: ab\\x0ac"), std::string::npos) << r.out;
}

TEST(CliCheckpoint, JsonHoldsTheSameAsTheFile) {
  const auto r = runCli({"checkpoint", sample().string(), "--json"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["data_bytes"], 36);
  ASSERT_EQ(j["tensors"].size(), 3u);
  EXPECT_EQ(j["tensors"][0]["name"], "transformer.wte.weight");
  EXPECT_EQ(j["tensors"][0]["dtype"], "F32");
  EXPECT_EQ(j["tensors"][0]["shape"], nlohmann::json::array({2, 3}));
  EXPECT_EQ(j["tensors"][0]["bytes"], 24);
  EXPECT_EQ(j["tensors"][0]["nonfinite"], 2);
  EXPECT_EQ(j["tensors"][1]["nonfinite"], 0);
  EXPECT_FALSE(j["tensors"][2].contains("nonfinite"));
  EXPECT_EQ(j["tensors"][2]["data_offsets"], nlohmann::json::array({28, 36}));
  EXPECT_EQ(j["metadata"]["vocab"], "ab\nc");
  EXPECT_EQ(j["config"]["steps"], 300);
  EXPECT_EQ(j["data_offset"].get<std::uint64_t>() + 36, fs::file_size(sample()));
}

TEST(CliCheckpoint, BadFilesAreRefusedNamingTheTensor) {
  const auto overlap = writeFile("overlap.safetensors",
                                 R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                 R"("b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})",
                                 std::string(8, '\0'));
  auto r = runCli({"checkpoint", overlap.string()});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("mantissa-cli checkpoint: '" + overlap.string() + "': tensor \"b\""), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("overlap tensor \"a\""), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;

  const auto unknown = writeFile("unknown.safetensors",
                                 R"({"w":{"dtype":"F128","shape":[1],"data_offsets":[0,16]}})", std::string(16, '\0'));
  r = runCli({"checkpoint", unknown.string(), "--json"});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("tensor \"w\": unknown dtype \"F128\""), std::string::npos) << r.err;

  const auto truncated = writeFile("truncated.safetensors",
                                   R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", std::string(10, '\0'));
  r = runCli({"checkpoint", truncated.string()});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("tensor \"w\": \"data_offsets\" end at 16, past the end of the data (10 bytes)"),
            std::string::npos) << r.err;

  r = runCli({"checkpoint", (truncated.parent_path() / "absent.safetensors").string()});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("absent.safetensors"), std::string::npos) << r.err;

  r = runCli({"checkpoint"});
  EXPECT_EQ(r.exitCode, 2) << r.err;
}

// train --checkpoint writes the model at the end of the run, which checkpoint lists.
TEST(CliCheckpoint, TrainWritesACheckpointOfTheRun) {
  const auto dir = sample().parent_path();
  const auto file = dir / "gpt.safetensors";
  auto r = runCli({"train", "--data", "shakespeare", "--model", "gpt:layers=1,heads=2,embd=16,ctx=8",
                   "--batch", "4", "--steps", "2", "--eval-batches", "1", "--quiet", "--checkpoint",
                   file.string()});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  r = runCli({"checkpoint", file.string(), "--json"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  std::map<std::string, std::vector<std::uint64_t>> shapes;
  for (const auto& t : j["tensors"]) {
    const std::string name = t["name"];
    if (name.rfind("mantissa.", 0) == 0)
      continue; // the run's own state, beside the model
    EXPECT_EQ(t["dtype"], "F32");
    EXPECT_EQ(t["nonfinite"], 0);
    shapes[name] = t["shape"].get<std::vector<std::uint64_t>>();
  }
  EXPECT_EQ(shapes.size(), 2u + 12u + 2u) << r.out;
  EXPECT_EQ(shapes["transformer.wte.weight"], (std::vector<std::uint64_t>{65, 16}));
  EXPECT_EQ(shapes["transformer.wpe.weight"], (std::vector<std::uint64_t>{8, 16}));
  EXPECT_EQ(shapes["transformer.h.0.attn.c_attn.weight"], (std::vector<std::uint64_t>{48, 16}));
  EXPECT_EQ(shapes["transformer.h.0.mlp.c_proj.weight"], (std::vector<std::uint64_t>{16, 64}));
  EXPECT_EQ(shapes["transformer.ln_f.bias"], (std::vector<std::uint64_t>{16}));
  EXPECT_EQ(j["metadata"]["step"], "2");
  EXPECT_EQ(j["metadata"]["format_version"], "1");
  EXPECT_EQ(j["metadata"]["vocabulary"].get<std::string>().size(), 65u);
  EXPECT_EQ(j["config"]["model"], "gpt:layers=1,heads=2,embd=16,ctx=8");
}

TEST(CliCheckpoint, TrainRefusesACheckpointItCannotWriteBeforeTraining) {
  const auto dir = sample().parent_path();
  const auto log = dir / "refused.jsonl";
  auto r = runCli({"train", "--data", "spirals", "--model", "mlp:2-8-2", "--steps", "2", "--quiet",
                   "--log", log.string(), "--checkpoint", (dir / "absent" / "m.safetensors").string()});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--checkpoint: cannot write to '"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("test accuracy"), std::string::npos) << "no training ran: " << r.out;
  r = runCli({"train", "--data", "spirals", "--model", "mlp:2-8-2", "--steps", "2", "--quiet",
              "--save-every", "1"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--save-every: needs --checkpoint FILE"), std::string::npos) << r.err;
}

// The bytes of a file.
std::string contents(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A run of 12 steps, and the same run saved at step 6 (and every 3 steps)
// then resumed to 12: the two checkpoints are the same bytes, weights,
// state and metadata alike.
TEST(CliCheckpoint, ResumeContinuesTheRunBitForBit) {
  const auto dir = sample().parent_path();
  const std::vector<std::string> run = {"train", "--data", "mnist", "--model", "cnn:c4k3b-p2-f8",
                                        "--recipe", "bf16-mixed", "--optimizer", "adamw", "--lr",
                                        "0.003", "--batch", "8", "--quiet"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = run;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  const auto straight = dir / "straight.safetensors", half = dir / "half.safetensors",
             resumed = dir / "resumed.safetensors";
  auto r = runCli(with({"--steps", "12", "--checkpoint", straight.string()}));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  r = runCli(with({"--steps", "6", "--save-every", "3", "--checkpoint", half.string()}));
  ASSERT_EQ(r.exitCode, 0) << r.err;
  r = runCli({"checkpoint", half.string(), "--json"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["metadata"]["step"], "6");

  r = runCli({"train", "--resume", half.string(), "--steps", "12", "--quiet", "--checkpoint",
              resumed.string()});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_NE(r.out.find("12 steps"), std::string::npos) << r.out;
  EXPECT_TRUE(contents(straight) == contents(resumed))
      << "the resumed run's checkpoint differs from the run that never stopped";

  // What cannot be resumed, each with a message and no training.
  r = runCli({"train", "--resume", straight.string(), "--quiet"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("stopped at step 12 of 12; give a total above 12 (--steps M)"),
            std::string::npos) << r.err;
  r = runCli({"train", "--resume", half.string(), "--steps", "6", "--quiet"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("stopped at step 6 of 6"), std::string::npos) << r.err;
  r = runCli({"train", "--resume", half.string(), "--recipe", "fp32", "--quiet"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--recipe: a resumed run keeps the configuration"), std::string::npos) << r.err;
  r = runCli({"train", "--resume", sample().string(), "--quiet"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("no \"format\" in __metadata__"), std::string::npos) << r.err;
  r = runCli({"train", "--data", "mnist", "--model", "cnn:c4k3-p2-f8", "--steps", "1", "--quiet",
              "--init-from", half.string()});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--init-from: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'layers.0.bn.weight' is not part of the model cnn:c4k3-p2-f8"),
            std::string::npos) << r.err;
}

// A GPT saved by train generates text from the file alone: the prompt is
// kept, n characters follow, all from the saved vocabulary; the same seed
// gives the same text; a character outside the vocabulary is named.
TEST(CliCheckpoint, SampleGeneratesFromTheSavedModel) {
  const auto dir = sample().parent_path();
  const auto file = dir / "sampled.safetensors";
  auto r = runCli({"train", "--data", "shakespeare", "--model", "gpt:layers=1,heads=2,embd=16,ctx=8",
                   "--batch", "4", "--steps", "3", "--eval-batches", "1", "--quiet", "--checkpoint",
                   file.string()});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  r = runCli({"checkpoint", file.string(), "--json"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  const std::string vocabulary = nlohmann::json::parse(r.out)["metadata"]["vocabulary"];

  r = runCli({"sample", file.string(), "--prompt", "ROMEO:", "-n", "40", "--seed", "5"});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  ASSERT_EQ(r.out.size(), 6u + 40u + 1u) << r.out; // ASCII: one byte a character, then a newline
  EXPECT_EQ(r.out.substr(0, 6), "ROMEO:");
  for (char c : r.out.substr(6, 40))
    EXPECT_NE(vocabulary.find(c), std::string::npos) << "'" << c << "' is not in the vocabulary";
  const auto again = runCli({"sample", file.string(), "--prompt", "ROMEO:", "-n", "40", "--seed", "5"});
  EXPECT_EQ(again.out, r.out);

  // Temperature 0 takes the likeliest character each time: the seed does not matter.
  const auto greedy = runCli({"sample", file.string(), "-n", "30", "--temperature", "0", "--seed", "1"});
  ASSERT_EQ(greedy.exitCode, 0) << greedy.err;
  EXPECT_EQ(runCli({"sample", file.string(), "-n", "30", "--temperature", "0", "--seed", "2"}).out,
            greedy.out);
  EXPECT_NE(runCli({"sample", file.string(), "-n", "30", "--seed", "2"}).out,
            runCli({"sample", file.string(), "-n", "30", "--seed", "3"}).out)
      << "at temperature 1 the seed chooses";

  r = runCli({"sample", file.string(), "--prompt", "caf\xc3\xa9"});
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_NE(r.err.find("--prompt: character 4 (U+00E9) is not in the model's vocabulary"),
            std::string::npos) << r.err;
  r = runCli({"sample", sample().string()});
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_NE(r.err.find("mantissa-cli sample: "), std::string::npos) << r.err;
}

TEST(CliCheckpoint, NamesCannotDriveTheTerminal) {
  const auto p = writeFile("escape.safetensors",
                           "{\"x\\u001b[2J\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}", "z");
  const auto r = runCli({"checkpoint", p.string()});
  ASSERT_EQ(r.exitCode, 0) << r.err;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("x\\x1b[2J"), std::string::npos) << r.out;
}

} // namespace
