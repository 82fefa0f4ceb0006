// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The bytes a run needs, added up before it allocates: held to the bytes the
// built Session really allocates (Session::allocatedBytes) for a GPT, an MLP
// and a CNN, and the refusal's wording (the figure, the dominant term, the
// memory available).

#include <mantissa/data/dataset.h>
#include <mantissa/data/text.h>
#include <mantissa/model/gpt.h>
#include <mantissa/train/memory_budget.h>
#include <mantissa/train/session.h>

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

using namespace mantissa;

namespace {

// The Session's allocated bytes in the estimate's terms: "weights" holds the
// master and working copies, "activations" a GPT's logits too. The buffers
// oneDNN lays out for itself (layout reorders, scratchpads) are not tensors
// of the plan: they are left out of both.
std::map<std::string, std::uint64_t> allocatedByTerm(const train::Session& s) {
  std::map<std::string, std::uint64_t> out;
  for (const auto& [name, bytes] : s.allocatedBytes()) {
    if (name == "master weights" || name == "weights")
      out["weights"] += bytes;
    else if (name == "logits" || name == "activations")
      out["activations"] += bytes;
    else if (name == "gradients" || name == "optimizer state")
      out[name] += bytes;
  }
  return out;
}

// Each term of the estimate within 2% of what the Session allocated.
void expectTermsMatch(const train::MemoryNeed& need, const train::Session& s,
                      const std::string& what) {
  const auto actual = allocatedByTerm(s);
  for (const auto& t : need.terms) {
    if (t.name == "evaluation batches")
      continue;
    ASSERT_TRUE(actual.count(t.name)) << what << ": " << t.name;
    const double ratio = double(t.bytes) / double(actual.at(t.name));
    EXPECT_GT(ratio, 0.98) << what << ": " << t.name << " " << t.bytes << " vs "
                           << actual.at(t.name);
    EXPECT_LT(ratio, 1.02) << what << ": " << t.name << " " << t.bytes << " vs "
                           << actual.at(t.name);
  }
}

} // namespace

TEST(MemoryBudget, AGptsFigureMatchesWhatItsSessionAllocates) {
  std::string text;
  for (int i = 0; i < 300; ++i)
    text += "to be, or not to be: that is the question.\n";
  auto corpus = std::make_shared<const data::TextCorpus>(data::parseText(text, "poem", 32));
  train::RunConfig c;
  c.model = "gpt:layers=2,heads=2,embd=32,ctx=32";
  c.data = "poem";
  c.optimizer = "adamw";
  c.batch = 8;
  c.steps = 1;
  c.epochs = 0;
  c.evalBatches = 3;
  const train::Session s(c, corpus);
  const auto need = train::gptMemoryNeed(model::parseGptSpec(c.model),
                                         corpus->vocabularySize(), c.batch, c.evalBatches);
  expectTermsMatch(need, s, c.model);
  // The evaluation batches: 2 splits x 3 batches x (8 x 32 inputs + targets) int32.
  ASSERT_EQ(need.terms.back().name, "evaluation batches");
  EXPECT_EQ(need.terms.back().bytes, 2u * 3u * 2u * 8u * 32u * 4u);
}

TEST(MemoryBudget, AnMlpsAndACnnsFigureMatchWhatTheirSessionsAllocate) {
  auto digits = std::make_shared<const data::TrainTest>(data::loadDataSpec("mnist"));
  for (const char* spec : {"mlp:784-256-128-10:relu", "cnn:c8k3b-p2-c16k3-p2-f32"}) {
    train::RunConfig c;
    c.model = spec;
    c.batch = 64;
    c.steps = 1;
    c.epochs = 0;
    const train::Session s(c, digits);
    const auto need = train::imageMemoryNeed(c, digits->train);
    ASSERT_FALSE(need.terms.empty()) << spec;
    expectTermsMatch(need, s, spec);
  }
}

TEST(MemoryBudget, TheRefusalNamesTheFigureTheDominantTermAndWhatIsAvailable) {
  train::MemoryNeed need;
  need.terms = {{"weights", 100'000'000},
                {"gradients", 100'000'000},
                {"activations", 1'000'000'000},
                {"optimizer state", 0},
                {"evaluation batches", 20'900'000'000}};
  try {
    train::checkMemory(need, 21'000'000'000);
    FAIL() << "21.0 GB cannot hold 22.1 GB";
  } catch (const train::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "needs 22.1 GB (evaluation batches 20.9 GB) but 21.0 GB is available"),
              std::string::npos)
        << e.what();
  }
  EXPECT_NO_THROW(train::checkMemory(need, 22'100'000'000)); // exactly enough
  EXPECT_NO_THROW(train::checkMemory(need, 23'000'000'000));
  EXPECT_NO_THROW(train::checkMemory(need, std::nullopt)); // nothing known: no refusal
}

TEST(MemoryBudget, TheLargestSpecsGiveAFigureNotAWrappedOne) {
  model::GptSpec spec;
  spec.layers = 64;
  spec.heads = 64;
  spec.embd = 4096;
  spec.ctx = 4096;
  const auto need = train::gptMemoryNeed(spec, 1 << 20, 1 << 20, 10000);
  // The blocks' attention probabilities alone: 64 x (B H T T = 2^20 x 64 x
  // 4096^2 = 2^50 floats) x 4 bytes = 2^58.
  EXPECT_GT(need.total(), std::uint64_t(1) << 58);
  EXPECT_THROW(train::checkMemory(need, std::uint64_t(1) << 40), train::ConfigError);
}
