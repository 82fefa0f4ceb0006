// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// A trained model as a safetensors file (io/safetensors.h): the FP32 master
// weights under the names and layouts PyTorch gives the same model, so that
// a torch module's load_state_dict takes them as they are.
//   GPT (nanoGPT's GPT):  transformer.wte.weight [V, C], transformer.wpe.weight [T, C],
//     transformer.h.L.ln_1.weight / .bias [C],
//     transformer.h.L.attn.c_attn.weight [3C, C] / .bias [3C],
//     transformer.h.L.attn.c_proj.weight [C, C] / .bias [C],
//     transformer.h.L.ln_2.weight / .bias [C],
//     transformer.h.L.mlp.c_fc.weight [4C, C] / .bias [4C],
//     transformer.h.L.mlp.c_proj.weight [C, 4C] / .bias [C],
//     transformer.ln_f.weight / .bias [C]
//     (lm_head.weight is wte itself, tied, and is not stored twice)
//   MLP (its Linears as a torch.nn.ModuleList named layers, numbered 0, 1, ...):
//     layers.L.weight [O, I], layers.L.bias [O]
// A Linear's weight is stored [out, in] as torch.nn.Linear holds it: the
// transpose of Mantissa's [in, out].
// __metadata__: "format" "mantissa", "format_version" "1", "mantissa_version",
// "config" (the run's configuration JSON), "step", and for a text model
// "vocabulary" (its characters in token order, UTF-8).

#include <mantissa/io/safetensors.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace mantissa::train {

class Session;

inline constexpr const char* kCheckpointFormatVersion = "1";

// One tensor of a checkpoint: its PyTorch name, shape and FP32 values in C order.
struct CheckpointTensor {
  std::string name;
  std::vector<std::uint64_t> shape;
  std::vector<float> values;
};

// A trained Session's parameters as they will be stored. Throws std::invalid_argument
// for a model the format does not hold yet (a CNN).
std::vector<CheckpointTensor> checkpointTensors(const Session& session);
std::vector<std::pair<std::string, std::string>> checkpointMetadata(const Session& session);

// Writes both to `path` atomically; throws io::SafetensorsError,
// io::AtomicFileError or std::invalid_argument.
void saveCheckpoint(const Session& session, const std::filesystem::path& path);

} // namespace mantissa::train
