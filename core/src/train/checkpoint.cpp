// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/train/checkpoint.h>

#include <mantissa/config.h>
#include <mantissa/data/text.h>
#include <mantissa/model/model_registry.h>
#include <mantissa/model/network.h>
#include <mantissa/tensor/run_state.h>
#include <mantissa/train/session.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <charconv>
#include <cstring>
#include <map>
#include <optional>
#include <span>

namespace mantissa::train {

namespace {

using io::SafetensorsDType;

// Little-endian tensors are this host's bytes (x86-64 and AArch64 Linux).
static_assert(std::endian::native == std::endian::little);

// One tensor of the file to be: its bytes owned here.
struct Stored {
  std::string name;
  SafetensorsDType dtype;
  std::vector<std::uint64_t> shape;
  std::vector<std::byte> bytes;
};

template <class T>
std::vector<std::byte> bytesOf(std::span<const T> v) {
  const auto b = std::as_bytes(v);
  return {b.begin(), b.end()};
}

// A parameter's values in PyTorch's layout: a Linear's [in, out] as [out, in].
std::vector<float> torchValues(const model::Parameter& p) {
  const auto v = p.value->f32();
  if (!p.transposed)
    return {v.begin(), v.end()};
  const auto in = std::size_t(p.value->rows()), out = std::size_t(p.value->cols());
  std::vector<float> t(v.size());
  for (std::size_t i = 0; i < in; ++i)
    for (std::size_t o = 0; o < out; ++o)
      t[o * in + i] = v[i * out + o];
  return t;
}

void fromTorchValues(const model::Parameter& p, std::span<const float> t) {
  auto v = p.value->f32();
  if (!p.transposed) {
    std::copy(t.begin(), t.end(), v.begin());
    return;
  }
  const auto in = std::size_t(p.value->rows()), out = std::size_t(p.value->cols());
  for (std::size_t i = 0; i < in; ++i)
    for (std::size_t o = 0; o < out; ++o)
      v[i * out + o] = t[o * in + i];
}

// Copies every listed state array into a file-to-be.
class StateWriter final : public RunStateVisitor {
public:
  explicit StateWriter(std::vector<Stored>& out) : m_out(out) {}
  void floats(std::string_view n, std::span<float> v) override { add(n, SafetensorsDType::F32, v); }
  void doubles(std::string_view n, std::span<double> v) override { add(n, SafetensorsDType::F64, v); }
  void integers(std::string_view n, std::span<std::int64_t> v) override {
    add(n, SafetensorsDType::I64, v);
  }
  void words(std::string_view n, std::span<std::uint64_t> v) override { add(n, SafetensorsDType::U64, v); }
  void halves(std::string_view n, std::span<std::uint16_t> v, DType type) override {
    add(n, type == DType::F16 ? SafetensorsDType::F16 : SafetensorsDType::BF16, v);
  }

private:
  template <class T>
  void add(std::string_view name, SafetensorsDType dtype, std::span<T> v) {
    m_out.push_back({kCheckpointStatePrefix + std::string(name), dtype, {v.size()},
                     bytesOf(std::span<const T>(v))});
  }
  std::vector<Stored>& m_out;
};

// Lists the state's names, dtypes and sizes without touching it.
struct StateEntry {
  SafetensorsDType dtype;
  std::uint64_t count;
};
class StateLister final : public RunStateVisitor {
public:
  std::map<std::string, StateEntry, std::less<>> entries;
  void floats(std::string_view n, std::span<float> v) override { add(n, SafetensorsDType::F32, v.size()); }
  void doubles(std::string_view n, std::span<double> v) override { add(n, SafetensorsDType::F64, v.size()); }
  void integers(std::string_view n, std::span<std::int64_t> v) override {
    add(n, SafetensorsDType::I64, v.size());
  }
  void words(std::string_view n, std::span<std::uint64_t> v) override { add(n, SafetensorsDType::U64, v.size()); }
  void halves(std::string_view n, std::span<std::uint16_t> v, DType type) override {
    add(n, type == DType::F16 ? SafetensorsDType::F16 : SafetensorsDType::BF16, v.size());
  }

private:
  void add(std::string_view n, SafetensorsDType d, std::size_t count) {
    entries.emplace(kCheckpointStatePrefix + std::string(n), StateEntry{d, count});
  }
};

// Copies the checked arrays back into the run.
class StateReader final : public RunStateVisitor {
public:
  explicit StateReader(const std::map<std::string, std::vector<std::byte>, std::less<>>& data)
      : m_data(data) {}
  void floats(std::string_view n, std::span<float> v) override { copy(n, v); }
  void doubles(std::string_view n, std::span<double> v) override { copy(n, v); }
  void integers(std::string_view n, std::span<std::int64_t> v) override { copy(n, v); }
  void words(std::string_view n, std::span<std::uint64_t> v) override { copy(n, v); }
  void halves(std::string_view n, std::span<std::uint16_t> v, DType) override { copy(n, v); }

private:
  template <class T>
  void copy(std::string_view name, std::span<T> v) {
    const auto it = m_data.find(kCheckpointStatePrefix + std::string(name));
    if (it == m_data.end() || it->second.size() != v.size_bytes()) // checked before: a listing changed
      throw CheckpointError("checkpoint: the state '" + std::string(name) + "' changed while restoring");
    std::memcpy(v.data(), it->second.data(), v.size_bytes());
  }
  const std::map<std::string, std::vector<std::byte>, std::less<>>& m_data;
};

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

std::vector<std::pair<std::string, std::string>> metadataOf(const Session& session) {
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

std::string shapeText(const std::vector<std::uint64_t>& s) { return io::safetensorsShapeText(s); }

} // namespace

void saveCheckpoint(const Session& constSession, const std::filesystem::path& path) {
  // Listing the state reads it only; the visitors take it mutable because
  // the same listing restores it.
  Session& session = const_cast<Session&>(constSession);
  std::vector<Stored> stored;
  for (const model::Parameter& p : session.model().parameters()) {
    if (p.value->dtype() != DType::F32)
      throw CheckpointError("checkpoint: the parameter '" + p.name + "' is not held in FP32");
    const std::vector<float> v = torchValues(p);
    stored.push_back({p.torchName, SafetensorsDType::F32, p.torchShape,
                      bytesOf(std::span<const float>(v))});
  }
  for (const model::Parameter& p : session.model().parameters())
    if (p.working)
      stored.push_back({kCheckpointWorkingPrefix + p.name,
                        p.working->dtype() == DType::F16 ? SafetensorsDType::F16 : SafetensorsDType::BF16,
                        {std::uint64_t(p.working->rows()), std::uint64_t(p.working->cols())},
                        bytesOf(std::span<const std::uint16_t>(p.working->u16()))});
  StateWriter writer(stored);
  session.visitState(writer);

  std::vector<io::SafetensorsEntry> entries;
  entries.reserve(stored.size());
  for (const auto& s : stored)
    entries.push_back({s.name, s.dtype, s.shape, s.bytes});
  io::writeSafetensors(path, entries, metadataOf(session));
}

CheckpointInfo readCheckpointInfo(const std::filesystem::path& path) {
  const io::SafetensorsReader reader(path);
  const auto& h = reader.header();
  const std::string file = path.string();
  auto meta = [&](const char* key) -> const std::string& {
    const std::string* v = h.metadataValue(key);
    if (!v)
      throw CheckpointError(file + ": no \"" + key +
                            "\" in __metadata__: not a checkpoint Mantissa wrote (a PyTorch "
                            "state dict loads with --init-from)");
    return *v;
  };
  if (meta("format") != "mantissa")
    throw CheckpointError(file + ": __metadata__ \"format\" is \"" + meta("format") +
                          "\", not \"mantissa\"");
  if (meta("format_version") != kCheckpointFormatVersion)
    throw CheckpointError(file + ": format_version \"" + meta("format_version") +
                          "\" is not one this build reads (" + kCheckpointFormatVersion + ")");
  CheckpointInfo info;
  try {
    info.config = runConfigFromJson(nlohmann::json::parse(meta("config")));
  } catch (const nlohmann::json::exception& e) {
    throw CheckpointError(file + ": __metadata__ \"config\" is not JSON: " + e.what());
  } catch (const ConfigError& e) {
    throw CheckpointError(file + ": __metadata__ \"config\": " + e.what());
  }
  const std::string& step = meta("step");
  const auto [end, ec] = std::from_chars(step.data(), step.data() + step.size(), info.step);
  if (ec != std::errc() || end != step.data() + step.size() || info.step < 0)
    throw CheckpointError(file + ": __metadata__ \"step\" is \"" + step + "\", not a step count");
  for (const auto& t : h.tensors)
    if (t.name.starts_with(kCheckpointStatePrefix))
      info.resumable = true;
  return info;
}

void restoreCheckpoint(Session& session, const std::filesystem::path& path, RestoreScope scope) {
  const io::SafetensorsReader reader(path);
  const auto& h = reader.header();
  const std::string file = path.string();
  const bool everything = scope == RestoreScope::Everything;
  const std::string model = session.config().model;

  // What this run holds, by file name: each expected tensor's dtype and shape.
  struct Expected {
    SafetensorsDType dtype;
    std::vector<std::uint64_t> shape;
  };
  std::map<std::string, Expected, std::less<>> expected;
  const std::vector<model::Parameter> params = session.model().parameters();
  for (const auto& p : params) {
    expected[p.torchName] = {SafetensorsDType::F32, p.torchShape};
    if (everything && p.working)
      expected[kCheckpointWorkingPrefix + p.name] = {
          p.working->dtype() == DType::F16 ? SafetensorsDType::F16 : SafetensorsDType::BF16,
          {std::uint64_t(p.working->rows()), std::uint64_t(p.working->cols())}};
  }
  if (everything) {
    StateLister lister;
    session.visitState(lister);
    for (const auto& [name, e] : lister.entries)
      expected[name] = {e.dtype, {e.count}};
  }

  // Every name matches, both ways, with its dtype and shape.
  for (const auto& t : h.tensors) {
    const bool ours = t.name.starts_with("mantissa.");
    if (!everything && ours)
      continue; // a weights-only restore leaves the run's own state as initialised
    const auto it = expected.find(t.name);
    if (it == expected.end())
      throw CheckpointError(file + ": tensor '" + t.name + "' is not part of the model " + model);
    if (t.dtype != it->second.dtype || t.shape != it->second.shape)
      throw CheckpointError(file + ": tensor '" + t.name + "' is " +
                            std::string(io::safetensorsDTypeName(t.dtype)) + " " + shapeText(t.shape) +
                            "; the model " + model + " holds it as " +
                            std::string(io::safetensorsDTypeName(it->second.dtype)) + " " +
                            shapeText(it->second.shape));
  }
  for (const auto& [name, e] : expected)
    if (!h.find(name))
      throw CheckpointError(file + ": no tensor '" + name + "', which the model " + model +
                            (name.starts_with("mantissa.") ? " needs to resume" : " needs"));

  // Read all, then change the run.
  std::map<std::string, std::vector<std::byte>, std::less<>> data;
  for (const auto& [name, e] : expected)
    data[name] = reader.read(*h.find(name));
  for (const auto& p : params) {
    const auto& b = data.at(p.torchName);
    std::vector<float> v(b.size() / sizeof(float));
    std::memcpy(v.data(), b.data(), b.size());
    fromTorchValues(p, v);
    if (everything && p.working) {
      const auto& w = data.at(kCheckpointWorkingPrefix + p.name);
      std::memcpy(p.working->u16().data(), w.data(), w.size());
    }
  }
  if (everything) {
    StateReader state(data);
    session.visitState(state);
  } else {
    model::OpTimes ignored;
    session.model().refreshWorkingWeights(ignored);
  }
}

std::unique_ptr<Session> openCheckpointForSampling(const std::filesystem::path& file) {
  const std::string path = file.string();
  CheckpointInfo info = readCheckpointInfo(file);
  if (!model::readsTokens(info.config.model))
    throw CheckpointError(path + ": holds the model " + info.config.model + ", not " +
                          model::tokenModels() + ": only " + model::tokenModels() +
                          " generates text");
  const io::SafetensorsReader reader(file);
  const std::string* vocabularyText = reader.header().metadataValue("vocabulary");
  if (!vocabularyText)
    throw CheckpointError(path + ": no \"vocabulary\" in __metadata__");
  std::size_t bad = 0;
  const auto vocabulary = data::decodeUtf8(*vocabularyText, bad);
  if (!vocabulary)
    throw CheckpointError(path + ": __metadata__ \"vocabulary\": invalid UTF-8 at byte " +
                          std::to_string(bad + 1));
  if (vocabulary->empty() || !std::is_sorted(vocabulary->begin(), vocabulary->end()) ||
      std::adjacent_find(vocabulary->begin(), vocabulary->end()) != vocabulary->end())
    throw CheckpointError(path + ": __metadata__ \"vocabulary\" is not a sorted set of "
                                 "distinct characters");
  if (vocabulary->size() > std::size_t(data::kMaxTextVocabulary))
    throw CheckpointError(path + ": __metadata__ \"vocabulary\" holds " +
                          std::to_string(vocabulary->size()) + " characters, over " +
                          std::to_string(data::kMaxTextVocabulary));
  // The model needs a corpus only for its vocabulary: the vocabulary
  // itself, repeated to fill one window per split, stands in.
  const int ctx = model::modelKind(info.config.model).context(info.config.model);
  auto corpus = std::make_shared<data::TextCorpus>();
  corpus->name = path;
  corpus->vocabulary.assign(vocabulary->begin(), vocabulary->end());
  const std::size_t half = std::size_t(ctx) + 2;
  for (std::size_t i = 0; i < 2 * half; ++i)
    corpus->tokens.push_back(std::int32_t(i % vocabulary->size()));
  corpus->trainSize = half;
  info.config.evalBatches = 1;
  auto session = std::make_unique<Session>(info.config, std::move(corpus));
  restoreCheckpoint(*session, file, RestoreScope::Weights);
  return session;
}

} // namespace mantissa::train
