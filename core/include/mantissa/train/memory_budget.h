// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The bytes a run will allocate, added up before anything is allocated: the
// tensors of its plan (weights, gradients, activations and their gradients,
// optimizer state) and a GPT's fixed evaluation batches, each in the FP32
// buffers the model really allocates (Session::allocatedBytes counts the same
// buffers once they exist). Session refuses a run whose bytes exceed the
// memory available, naming the figure and the term that dominates, so the CLI
// and the GUI get the same refusal instead of an allocation failure.

#include <mantissa/data/dataset.h>
#include <mantissa/model/gpt.h>
#include <mantissa/model/model_registry.h>
#include <mantissa/train/run_config.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mantissa::train {

struct MemoryTerm {
  std::string name; // "weights", "gradients", "activations", "optimizer state", "evaluation batches"
  std::uint64_t bytes = 0;
};

struct MemoryNeed {
  std::vector<MemoryTerm> terms;
  std::uint64_t total() const;
  const MemoryTerm* largest() const; // nullptr when there are no terms
  // Adds `other` term by term: runs built side by side need the sum.
  void add(const MemoryNeed& other);
};

// The model of `build` (model_registry.h: its family's sizes) with its
// optimizer (AdamW or SGD, a Kahan compensation buffer when the recipe rounds
// updates so) and `evalBatches` fixed evaluation batches (token models); empty
// when the spec or layout does not parse or the family does not count its tensors.
MemoryNeed modelMemoryNeed(const model::ModelBuild& build, bool adam, bool kahan = false,
                           int evalBatches = 0);

// A GPT of `spec` on a vocabulary of `vocabulary` characters: batch windows
// of ctx characters, `evalBatches` fixed evaluation batches per split, AdamW
// (with a Kahan compensation buffer when the recipe rounds updates so).
MemoryNeed gptMemoryNeed(const model::GptSpec& spec, int vocabulary, int batch, int evalBatches,
                         bool kahan = false);

// An MLP or CNN of config.model on `train`'s shape; empty when the spec or
// layout does not parse (the model's own constructor reports that).
MemoryNeed imageMemoryNeed(const RunConfig& config, const data::Dataset& train);

// Bytes this process can still allocate: MemAvailable (/proc/meminfo),
// lowered by a cgroup's memory.max and by the address-space and data limits
// (ulimit -v, -d) less what the process already holds. nullopt when none is known.
std::optional<std::uint64_t> availableMemory();

// "21.3 GB", "512.0 MB" (decimal units).
std::string formatBytes(std::uint64_t bytes);

// Throws ConfigError "memory: this run needs 42.0 GB (evaluation batches
// 41.9 GB) but 22.1 GB is available ..." when need exceeds `available`;
// `subject` names what needs it ("this run needs", "the runs need").
void checkMemory(const MemoryNeed& need, std::optional<std::uint64_t> available,
                 const std::string& subject = "this run needs");

} // namespace mantissa::train
