// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// A run saved at step k and resumed from the file takes the same steps as
// the run that never stopped: every loss, every parameter bit, every
// working copy, for every model and the recipes with state (Adam moments,
// the loss scaler, stochastic rounding's stream, Kahan compensation, FP8
// amax histories, BatchNorm's running statistics, a cosine schedule).
// The truth is the uninterrupted twin, run in the same process.
//
// And a checkpoint that does not fit is refused, naming the tensor, before
// the run changes.
#include <mantissa/amp/recipe.h>
#include <mantissa/io/safetensors.h>
#include <mantissa/model/gpt.h>
#include <mantissa/model/network.h>
#include <mantissa/train/checkpoint.h>
#include <mantissa/train/run_config.h>
#include <mantissa/train/session.h>

#include <gtest/gtest.h>

#include <unistd.h>

#include <bit>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace {

using namespace mantissa;
namespace fs = std::filesystem;

fs::path tempFile(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("mantissa_resume_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir / name;
}

struct ResumeCase {
  const char* name;
  const char* data;
  const char* model;
  const char* recipe;
  const char* optimizer;
  const char* scaler = "";
  const char* schedule = "constant";
  int gradAccumulation = 1;
};

void PrintTo(const ResumeCase& c, std::ostream* os) { *os << c.name; }

train::RunConfig configOf(const ResumeCase& rc) {
  train::RunConfig c;
  c.data = rc.data;
  c.model = rc.model;
  c.recipe = rc.recipe;
  c.optimizer = rc.optimizer;
  c.scaler = rc.scaler;
  c.schedule = rc.schedule;
  c.gradAccumulation = rc.gradAccumulation;
  c.lr = c.optimizer == "adamw" ? 3e-3 : 0.05;
  c.batch = 8;
  c.steps = 12;
  c.warmupSteps = 3;
  c.evalEvery = 0;
  c.seed = 11;
  if (!c.scaler.empty()) { // overflows at first, then growth every other step
    c.scalerInitScale = 0x1p40;
    c.scalerGrowthInterval = 2;
  }
  if (model::isGptSpec(c.model)) {
    c.evalBatches = 1;
    if (!amp::findRecipe(rc.recipe)) { // a policy (a recipe name stays the recipe)
      c.recipe = "fp32";
      c.policy = rc.recipe;
    }
  }
  return c;
}

// Every parameter's FP32 bits and working copy's bits, by name.
std::vector<std::pair<std::string, std::vector<std::uint32_t>>> bitsOf(train::Session& s) {
  std::vector<std::pair<std::string, std::vector<std::uint32_t>>> out;
  for (const auto& p : s.model().parameters()) {
    std::vector<std::uint32_t> v;
    for (float x : p.value->f32())
      v.push_back(std::bit_cast<std::uint32_t>(x));
    out.emplace_back(p.name, std::move(v));
    if (p.working) {
      const auto w = p.working->u16();
      out.emplace_back(p.name + " (working)", std::vector<std::uint32_t>(w.begin(), w.end()));
    }
  }
  return out;
}

class Resume : public ::testing::TestWithParam<ResumeCase> {};

TEST_P(Resume, TakesTheStepsOfTheRunThatNeverStopped) {
  const train::RunConfig c = configOf(GetParam());
  constexpr int k = 5;

  train::Session straight(c);
  std::vector<std::uint64_t> losses;
  while (!straight.finished())
    losses.push_back(std::bit_cast<std::uint64_t>(straight.step().loss));
  ASSERT_FALSE(straight.divergence().has_value());
  ASSERT_EQ(losses.size(), 12u);

  const fs::path file = tempFile(std::string(GetParam().name) + ".safetensors");
  {
    train::Session first(c);
    for (int i = 0; i < k; ++i)
      first.step();
    train::saveCheckpoint(first, file);
  }
  const train::CheckpointInfo info = train::readCheckpointInfo(file);
  EXPECT_TRUE(info.resumable);
  EXPECT_EQ(info.step, k);
  EXPECT_EQ(train::toJson(info.config), train::toJson(c)) << "the configuration travels with the file";

  train::Session resumed(info.config);
  train::restoreCheckpoint(resumed, file, train::RestoreScope::Everything);
  EXPECT_EQ(resumed.stepsDone(), k);
  for (int i = k; i < 12; ++i) {
    ASSERT_FALSE(resumed.finished());
    EXPECT_EQ(std::bit_cast<std::uint64_t>(resumed.step().loss), losses[std::size_t(i)])
        << "step " << i + 1 << "'s loss";
  }
  EXPECT_TRUE(resumed.finished());
  EXPECT_EQ(resumed.skippedSteps(), straight.skippedSteps());
  ASSERT_EQ(resumed.scaler() != nullptr, straight.scaler() != nullptr);
  if (const amp::LossScaler* scaler = resumed.scaler(); scaler && straight.scaler()) {
    EXPECT_EQ(scaler->scale(), straight.scaler()->scale());
    if (GetParam().scaler[0] != '\0') {
      EXPECT_LT(scaler->scale(), 0x1p40) << "the scaler backed off at least once";
    }
  }

  const auto a = bitsOf(straight), b = bitsOf(resumed);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].first, b[i].first);
    std::size_t differ = 0;
    for (std::size_t j = 0; j < a[i].second.size(); ++j)
      differ += a[i].second[j] != b[i].second[j];
    EXPECT_EQ(differ, 0u) << a[i].first << ": values differ from the run that never stopped";
  }
  fs::remove(file);
}

// Without the state, the same file restores the weights only, and the run
// then differs (the moments start from zero): the state is what makes it exact.
TEST(Resume, WeightsAloneDoNotContinueTheRun) {
  const train::RunConfig c = configOf({"adam", "spirals", "mlp:2-16-8-2", "fp32", "adamw"});
  const fs::path file = tempFile("weights_only.safetensors");
  train::Session straight(c), first(c);
  for (int i = 0; i < 5; ++i) {
    straight.step();
    first.step();
  }
  train::saveCheckpoint(first, file);
  train::Session fresh(c);
  train::restoreCheckpoint(fresh, file, train::RestoreScope::Weights);
  EXPECT_EQ(fresh.stepsDone(), 0);
  const auto a = bitsOf(straight), b = bitsOf(fresh);
  for (std::size_t i = 0; i < a.size(); ++i)
    EXPECT_EQ(a[i].second, b[i].second) << a[i].first << ": the weights are the saved ones";
  EXPECT_NE(straight.step().loss, fresh.step().loss) << "Adam's moments restart from zero";
  fs::remove(file);
}

INSTANTIATE_TEST_SUITE_P(
    Models, Resume,
    ::testing::Values(
        ResumeCase{"mlp_fp32_sgd", "spirals", "mlp:2-16-8-2", "fp32", "sgd"},
        ResumeCase{"mlp_bf16_adamw_cosine", "spirals", "mlp:2-16-8-2", "bf16-mixed", "adamw", "",
                   "cosine"},
        ResumeCase{"mlp_fp16_scaler_accumulation", "spirals", "mlp:2-16-8-2", "fp16-mixed", "sgd",
                   "pytorch", "constant", 2},
        ResumeCase{"mlp_bf16_pure_sr", "spirals", "mlp:2-16-8-2", "bf16-pure-sr", "sgd"},
        ResumeCase{"mlp_bf16_pure_kahan", "spirals", "mlp:2-16-8-2", "bf16-pure-kahan", "adamw"},
        ResumeCase{"mlp_fp8_delayed", "spirals", "mlp:2-16-8-2", "fp8-delayed", "adamw"},
        ResumeCase{"mlp_nvfp4", "spirals", "mlp:2-32-32-2", "nvfp4", "adamw"},
        ResumeCase{"cnn_batchnorm", "mnist", "cnn:c4k3b-p2-f8", "bf16-mixed", "adamw"},
        ResumeCase{"cnn_fp8_current", "mnist", "cnn:c4k3-p2-f8", "fp8-current", "sgd"},
        ResumeCase{"gpt_fp32", "shakespeare", "gpt:layers=1,heads=2,embd=16,ctx=8", "fp32",
                   "adamw"},
        ResumeCase{"gpt_bf16", "shakespeare", "gpt:layers=1,heads=2,embd=16,ctx=8",
                   "autocast-cpu-bf16", "adamw", "", "cosine"},
        ResumeCase{"gpt_fp16_scaled", "shakespeare", "gpt:layers=1,heads=2,embd=16,ctx=8",
                   "autocast-cuda-fp16", "adamw"},
        ResumeCase{"gpt_fp8_delayed", "shakespeare", "gpt:layers=1,heads=2,embd=16,ctx=8",
                   "autocast-cpu-bf16,matmul-inputs=fp8-delayed,fp8-history=4", "adamw"},
        ResumeCase{"gpt_nvfp4", "shakespeare", "gpt:layers=1,heads=2,embd=16,ctx=8",
                   "autocast-cpu-bf16,matmul-inputs=nvfp4", "adamw"}),
    [](const auto& test) { return std::string(test.param.name); });

// Every recipe of the table, on the MLP and on the GPT, with AdamW's moments:
// a recipe added later is covered without a line here.
std::vector<ResumeCase> everyRecipe() {
  static std::vector<std::string> names; // the cases' names outlive the cases
  names.reserve(2 * amp::recipes().size());
  std::vector<ResumeCase> cases;
  for (const char* model : {"mlp", "gpt"})
    for (const amp::Recipe& r : amp::recipes()) {
      std::string name = std::string(model) + "_" + std::string(r.name);
      for (char& ch : name)
        if (ch == '-')
          ch = '_';
      names.push_back(std::move(name));
      const bool gpt = model[0] == 'g';
      cases.push_back(ResumeCase{names.back().c_str(), gpt ? "shakespeare" : "spirals",
                                 gpt ? "gpt:layers=1,heads=2,embd=16,ctx=8" : "mlp:2-32-32-2",
                                 r.name.data(), "adamw"});
    }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(EveryRecipe, Resume, ::testing::ValuesIn(everyRecipe()),
                         [](const auto& test) { return std::string(test.param.name); });

// --- refusals ---------------------------------------------------------------

// A checkpoint of this MLP, its tensors and metadata as read back.
struct Saved {
  train::RunConfig config;
  std::vector<std::pair<std::string, std::string>> metadata;
  std::vector<io::SafetensorsTensor> tensors;
  std::vector<std::vector<std::byte>> data;
};

Saved savedMlp() {
  Saved s;
  s.config = configOf({"mlp", "spirals", "mlp:2-16-8-2", "bf16-mixed", "adamw"});
  train::Session run(s.config);
  run.step();
  const fs::path file = tempFile("refusals.safetensors");
  train::saveCheckpoint(run, file);
  const io::SafetensorsReader r(file);
  s.metadata = r.header().metadata;
  s.tensors = r.header().tensors;
  for (const auto& t : s.tensors)
    s.data.push_back(r.read(t));
  fs::remove(file);
  return s;
}

// Writes `s` with one change and returns restoreCheckpoint's message.
template <class Change>
std::string refusalOf(const Saved& s, Change change, train::RestoreScope scope) {
  std::vector<io::SafetensorsTensor> tensors = s.tensors;
  std::vector<std::vector<std::byte>> data = s.data;
  change(tensors, data);
  std::vector<io::SafetensorsEntry> entries;
  for (std::size_t i = 0; i < tensors.size(); ++i)
    entries.push_back({tensors[i].name, tensors[i].dtype, tensors[i].shape, data[i]});
  const fs::path file = tempFile("changed.safetensors");
  io::writeSafetensors(file, entries, s.metadata);
  train::Session run(s.config);
  const auto before = bitsOf(run);
  std::string message;
  try {
    train::restoreCheckpoint(run, file, scope);
  } catch (const train::CheckpointError& e) {
    message = e.what();
  }
  if (!message.empty()) {
    EXPECT_EQ(bitsOf(run), before) << "a refused checkpoint changed the run";
  }
  fs::remove(file);
  return message;
}

std::size_t indexOf(const std::vector<io::SafetensorsTensor>& t, const std::string& name) {
  for (std::size_t i = 0; i < t.size(); ++i)
    if (t[i].name == name)
      return i;
  ADD_FAILURE() << "no tensor " << name;
  return 0;
}

TEST(Resume, RefusesACheckpointThatDoesNotFitNamingTheTensor) {
  const Saved s = savedMlp();
  using T = std::vector<io::SafetensorsTensor>;
  using D = std::vector<std::vector<std::byte>>;
  const auto everything = train::RestoreScope::Everything;

  std::string m = refusalOf(s, [](T& t, D&) { t[indexOf(t, "layers.1.weight")].name = "layers.1.weights"; },
                            everything);
  EXPECT_NE(m.find("tensor 'layers.1.weights' is not part of the model mlp:2-16-8-2"), std::string::npos) << m;

  m = refusalOf(s, [](T& t, D& d) {
    const std::size_t i = indexOf(t, "layers.0.bias");
    t.erase(t.begin() + std::ptrdiff_t(i));
    d.erase(d.begin() + std::ptrdiff_t(i));
  }, train::RestoreScope::Weights);
  EXPECT_NE(m.find("no tensor 'layers.0.bias', which the model mlp:2-16-8-2 needs"), std::string::npos) << m;

  m = refusalOf(s, [](T& t, D&) { t[indexOf(t, "layers.0.weight")].shape = {2, 16}; }, everything);
  EXPECT_NE(m.find("tensor 'layers.0.weight' is F32 [2, 16]; the model mlp:2-16-8-2 holds it as F32 [16, 2]"),
            std::string::npos) << m;

  m = refusalOf(s, [](T& t, D& d) {
    const std::size_t i = indexOf(t, "mantissa.state.optimizer.layer2.W.v");
    t.erase(t.begin() + std::ptrdiff_t(i));
    d.erase(d.begin() + std::ptrdiff_t(i));
  }, everything);
  EXPECT_NE(m.find("no tensor 'mantissa.state.optimizer.layer2.W.v', which the model mlp:2-16-8-2 "
                   "needs to resume"), std::string::npos) << m;

  // Weights only: the run's own state in the file is not read at all.
  m = refusalOf(s, [](T& t, D& d) {
    const std::size_t i = indexOf(t, "mantissa.state.optimizer.layer2.W.v");
    t.erase(t.begin() + std::ptrdiff_t(i));
    d.erase(d.begin() + std::ptrdiff_t(i));
  }, train::RestoreScope::Weights);
  EXPECT_EQ(m, "");
}

// A PyTorch state dict (names and shapes only, written here byte by byte
// rather than by the checkpoint writer) starts a run from its weights.
TEST(Resume, StartsFromAStateDictWrittenElsewhere) {
  train::RunConfig c = configOf({"mlp", "spirals", "mlp:2-3-2", "fp32", "sgd"});
  // nn.Linear(2, 3) then nn.Linear(3, 2): weight [out, in], bias [out].
  const std::vector<float> w0 = {1, 2, 3, 4, 5, 6}, b0 = {0.5f, -0.5f, 0.25f};
  const std::vector<float> w1 = {-1, -2, -3, -4, -5, -6}, b1 = {7, 8};
  std::string json = "{\"layers.0.weight\":{\"dtype\":\"F32\",\"shape\":[3,2],\"data_offsets\":[0,24]},"
                     "\"layers.0.bias\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[24,36]},"
                     "\"layers.1.weight\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[36,60]},"
                     "\"layers.1.bias\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[60,68]}}";
  while (json.size() % 8)
    json += ' ';
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i)
    bytes[std::size_t(i)] = char((json.size() >> (8 * i)) & 0xFF);
  bytes += json;
  for (const auto* v : {&w0, &b0, &w1, &b1})
    bytes.append(reinterpret_cast<const char*>(v->data()), v->size() * 4);
  const fs::path file = tempFile("state_dict.safetensors");
  {
    std::FILE* f = std::fopen(file.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fwrite(bytes.data(), 1, bytes.size(), f);
    std::fclose(f);
  }
  train::Session run(c);
  train::restoreCheckpoint(run, file, train::RestoreScope::Weights);
  const auto& p = run.model().params();
  // Mantissa holds W [in, out]: W0[i][o] = torch's weight[o][i].
  for (int i = 0; i < 2; ++i)
    for (int o = 0; o < 3; ++o)
      EXPECT_EQ(p[0].w.f32()[std::size_t(i * 3 + o)], w0[std::size_t(o * 2 + i)]) << i << "," << o;
  for (int i = 0; i < 3; ++i)
    for (int o = 0; o < 2; ++o)
      EXPECT_EQ(p[1].w.f32()[std::size_t(i * 2 + o)], w1[std::size_t(o * 3 + i)]) << i << "," << o;
  EXPECT_EQ(std::vector<float>(p[0].b.f32().begin(), p[0].b.f32().end()), b0);
  EXPECT_EQ(std::vector<float>(p[1].b.f32().begin(), p[1].b.f32().end()), b1);
  try {
    train::readCheckpointInfo(file);
    FAIL() << "a state dict without Mantissa's metadata was taken for a run";
  } catch (const train::CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("no \"format\" in __metadata__"), std::string::npos) << e.what();
  }
  fs::remove(file);
}

} // namespace
