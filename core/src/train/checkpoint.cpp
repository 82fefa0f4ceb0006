// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/train/checkpoint.h>

#include <mantissa/config.h>
#include <mantissa/model/gpt_network.h>
#include <mantissa/model/mlp.h>
#include <mantissa/train/run_config.h>
#include <mantissa/train/session.h>

#include <nlohmann/json.hpp>

#include <bit>
#include <span>
#include <stdexcept>

namespace mantissa::train {

namespace {

// A [rows, cols] FP32 tensor's values, as stored.
std::vector<float> valuesOf(const Tensor& t) {
  if (t.dtype() != DType::F32)
    throw std::invalid_argument("checkpoint: a parameter is not held in FP32");
  const float* v = t.data<float>();
  return {v, v + t.rows() * t.cols()};
}

// A Linear's W stored [in, out] by Mantissa, as torch.nn.Linear's [out, in].
CheckpointTensor linearWeight(std::string name, const Tensor& w) {
  const std::vector<float> v = valuesOf(w);
  const auto in = std::size_t(w.rows()), out = std::size_t(w.cols());
  CheckpointTensor t{std::move(name), {out, in}, std::vector<float>(v.size())};
  for (std::size_t i = 0; i < in; ++i)
    for (std::size_t o = 0; o < out; ++o)
      t.values[o * in + i] = v[i * out + o];
  return t;
}

// A [1, n] bias or norm parameter as a vector [n]; an embedding as it is.
CheckpointTensor asVector(std::string name, const Tensor& b) {
  return {std::move(name), {std::uint64_t(b.rows() * b.cols())}, valuesOf(b)};
}
CheckpointTensor asMatrix(std::string name, const Tensor& m) {
  return {std::move(name), {std::uint64_t(m.rows()), std::uint64_t(m.cols())}, valuesOf(m)};
}

// Mantissa's GPT parameter names ("h0.qkv.w") to nanoGPT's, with how each is stored.
CheckpointTensor gptTensor(const model::GptParam& p) {
  const std::string& n = p.name;
  if (n == "wte" || n == "wpe")
    return asMatrix("transformer." + n + ".weight", p.value);
  if (n == "lnf.w")
    return asVector("transformer.ln_f.weight", p.value);
  if (n == "lnf.b")
    return asVector("transformer.ln_f.bias", p.value);
  // "h<L>.<part>.<w|b>"
  const std::size_t dot = n.find('.');
  const std::size_t last = n.rfind('.');
  if (n.size() < 2 || n[0] != 'h' || dot == std::string::npos || last == dot)
    throw std::invalid_argument("checkpoint: no PyTorch name for the GPT parameter '" + n + "'");
  const std::string block = "transformer.h." + n.substr(1, dot - 1) + ".";
  const std::string part = n.substr(dot + 1, last - dot - 1);
  const bool weight = n.substr(last + 1) == "w";
  const std::string suffix = weight ? ".weight" : ".bias";
  if (part == "ln1" || part == "ln2")
    return asVector(block + (part == "ln1" ? "ln_1" : "ln_2") + suffix, p.value);
  std::string module;
  if (part == "qkv")
    module = "attn.c_attn";
  else if (part == "attproj")
    module = "attn.c_proj";
  else if (part == "fc")
    module = "mlp.c_fc";
  else if (part == "fcproj")
    module = "mlp.c_proj";
  else
    throw std::invalid_argument("checkpoint: no PyTorch name for the GPT parameter '" + n + "'");
  return weight ? linearWeight(block + module + suffix, p.value) : asVector(block + module + suffix, p.value);
}

void appendUtf8(std::string& s, char32_t c) {
  if (c < 0x80) {
    s += char(c);
  } else if (c < 0x800) {
    s += char(0xC0 | (c >> 6));
    s += char(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    s += char(0xE0 | (c >> 12));
    s += char(0x80 | ((c >> 6) & 0x3F));
    s += char(0x80 | (c & 0x3F));
  } else {
    s += char(0xF0 | (c >> 18));
    s += char(0x80 | ((c >> 12) & 0x3F));
    s += char(0x80 | ((c >> 6) & 0x3F));
    s += char(0x80 | (c & 0x3F));
  }
}

} // namespace

std::vector<CheckpointTensor> checkpointTensors(const Session& session) {
  std::vector<CheckpointTensor> out;
  if (const model::GptNetwork* gpt = session.gpt()) {
    for (const auto& p : gpt->gpt().params())
      out.push_back(gptTensor(p));
    return out;
  }
  if (!dynamic_cast<const model::Mlp*>(&session.model()))
    throw std::invalid_argument("checkpoint: a " + session.model().specString() +
                                " model cannot be saved yet (an MLP or a GPT can)");
  const auto& params = session.model().params();
  for (std::size_t l = 0; l < params.size(); ++l) {
    const std::string prefix = "layers." + std::to_string(l);
    out.push_back(linearWeight(prefix + ".weight", params[l].w));
    out.push_back(asVector(prefix + ".bias", params[l].b));
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> checkpointMetadata(const Session& session) {
  std::vector<std::pair<std::string, std::string>> m = {
      {"format", "mantissa"},
      {"format_version", kCheckpointFormatVersion},
      {"mantissa_version", kVersion},
      {"config", toJson(session.config()).dump()},
      {"step", std::to_string(session.stepsDone())},
  };
  if (session.isText()) {
    std::string vocabulary;
    for (const char32_t c : session.text().vocabulary)
      appendUtf8(vocabulary, c);
    m.emplace_back("vocabulary", std::move(vocabulary));
  }
  return m;
}

void saveCheckpoint(const Session& session, const std::filesystem::path& path) {
  const std::vector<CheckpointTensor> tensors = checkpointTensors(session);
  std::vector<io::SafetensorsEntry> entries;
  entries.reserve(tensors.size());
  // Little-endian FP32: this host's float bytes (x86-64 and AArch64 Linux).
  static_assert(std::endian::native == std::endian::little);
  for (const auto& t : tensors)
    entries.push_back({t.name, io::SafetensorsDType::F32, t.shape,
                       std::as_bytes(std::span<const float>(t.values))});
  io::writeSafetensors(path, entries, checkpointMetadata(session));
}

} // namespace mantissa::train
