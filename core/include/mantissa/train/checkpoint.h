// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// A run as one safetensors file (io/safetensors.h), to resume later,
// bit for bit, or to hand to PyTorch.
//
// Tensors:
//  - every parameter of the model's registry (model::Parameter) in FP32
//    under its PyTorch name and shape, so that the PyTorch module's
//    load_state_dict takes them as they are: the GPT as nanoGPT names it
//    (gpt_network.h), the MLP and the CNN as a ModuleList `layers`
//    (layers.L.weight, layers.L.bias, layers.L.bn.weight);
//  - "mantissa.working.<name>": the 16-bit working copies (BF16 or F16),
//    in Mantissa's own [rows, cols];
//  - "mantissa.state.<name>": everything else the next step reads
//    (Session::visitState): optimizer moments, Kahan compensation and the
//    rounding stream, the loss scaler, FP8 amax histories, the data order,
//    BatchNorm's running statistics, the step. F32, F64, I64 or U64, [n].
// __metadata__: "format" "mantissa", "format_version", "mantissa_version",
// "config" (the run's configuration JSON), "step", and for a text model
// "vocabulary" (its characters in token order, UTF-8).

#include <mantissa/io/safetensors.h>
#include <mantissa/train/run_config.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace mantissa::train {

class Session;

inline constexpr const char* kCheckpointFormatVersion = "1";
inline constexpr const char* kCheckpointWorkingPrefix = "mantissa.working.";
inline constexpr const char* kCheckpointStatePrefix = "mantissa.state.";

// A checkpoint that does not fit the model or the run, named in the message.
class CheckpointError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// Writes the session to `path` atomically; throws io::SafetensorsError,
// io::AtomicFileError or CheckpointError.
void saveCheckpoint(const Session& session, const std::filesystem::path& path);

// What a checkpoint's metadata says, checked: the run's configuration, the
// step, and whether it holds the state a resume needs.
struct CheckpointInfo {
  RunConfig config;
  std::int64_t step = 0;
  bool resumable = false; // holds mantissa.state.*
};
// Throws io::SafetensorsError (the file) or CheckpointError (its metadata:
// not a Mantissa checkpoint, a format version this build does not read, a
// configuration that does not parse).
CheckpointInfo readCheckpointInfo(const std::filesystem::path& path);

enum class RestoreScope : std::uint8_t {
  Weights,   // the parameters only (a PyTorch state dict will do); the rest as initialised
  Everything // parameters, working copies and state: the run continues where it stopped
};

// Puts the file's tensors into `session`, which must be built from the same
// configuration (readCheckpointInfo). Every name must match: a tensor the
// model lacks, a tensor the model needs that the file lacks, and a dtype or
// shape that differs are each refused, naming the tensor, before anything
// is changed. A state value out of range (a position past its history) is
// refused while restoring; the session must then be discarded.
void restoreCheckpoint(Session& session, const std::filesystem::path& path, RestoreScope scope);

// A GPT checkpoint's weights (RestoreScope::Weights) in a session that can
// only sample: its text is the vocabulary of __metadata__, so the data the
// run trained on need not exist. What `mantissa-cli sample` generates from.
// Throws io::SafetensorsError or CheckpointError (not a GPT, no vocabulary,
// a vocabulary that is not a sorted set of distinct characters).
std::unique_ptr<Session> openCheckpointForSampling(const std::filesystem::path& path);

} // namespace mantissa::train
