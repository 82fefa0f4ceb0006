// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include "matmul_choice.h"
#include "onednn_context.h"

#include <mantissa/io/atomic_file.h>
#include <mantissa/io/json_text.h>
#include <mantissa/io/regular_file.h>
#include <mantissa/kernels/matmul_path.h>
#include <mantissa/numeric/cpu_features.h>

#include <nlohmann/json.hpp>
#include <oneapi/dnnl/dnnl.hpp>
#include <omp.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

namespace mantissa::kernels {
namespace {

constexpr std::uintmax_t kMaxCacheBytes = std::uintmax_t{1} << 20; // a few hundred entries

std::atomic<MatmulPath> g_path{MatmulPath::Native};
std::atomic<bool> g_setByUser{false};

struct ChoiceStore {
  std::mutex mutex;
  std::map<std::string, detail::MatmulChoice> choices;
  std::filesystem::path file;
};

ChoiceStore& store() {
  static ChoiceStore s;
  return s;
}

std::string machineKey() {
  const auto& f = numeric::cpuFeatures();
  return (f.modelName.empty() ? f.vendor : f.modelName) + " | " + numeric::describeCpuFlags() +
         " | oneDNN " + numeric::onednnVersion();
}

// Reads the cache file's entries for this machine into the store (caller
// holds the mutex). Unreadable or foreign files are ignored; so is what is
// not a regular file of at most kMaxCacheBytes (a FIFO or a link to /dev/zero
// planted there is never read).
void load(ChoiceStore& s) {
  try {
    const auto j = io::parseJsonText(io::readRegularFile(s.file, kMaxCacheBytes, "matmul path cache"));
    if (j.value("machine", std::string()) != machineKey())
      return;
    for (const auto& [key, v] : j.at("choices").items())
      s.choices[key] = {v.at("fp32_compute").get<bool>(), v.at("native_ms").get<double>(),
                        v.at("fp32_ms").get<double>()};
  } catch (const std::exception&) {
    // A damaged cache only costs a new measurement.
  }
}

void save(const ChoiceStore& s) {
  if (s.file.empty())
    return;
  nlohmann::json choices = nlohmann::json::object();
  for (const auto& [key, c] : s.choices)
    choices[key] = {{"fp32_compute", c.fp32Compute}, {"native_ms", c.nativeMs}, {"fp32_ms", c.fp32Ms}};
  try {
    std::filesystem::create_directories(s.file.parent_path());
    io::writeFileAtomically(s.file,
                            nlohmann::json{{"machine", machineKey()}, {"choices", choices}}.dump(1));
  } catch (const std::exception&) {
    // Not remembered across runs; this run still uses the choice.
  }
}

const char* dtypeKey(DType d) {
  return d == DType::F32 ? "f32" : d == DType::BF16 ? "bf16" : "f16";
}

bool kernelUsesBf16(const std::string& impl) {
  if (impl.find("bf16") != std::string::npos || impl.find("amx") != std::string::npos)
    return true;
  // oneDNN's jit gemm names no ISA; it uses vdpbf16ps when its ISA has it.
  const auto isa = dnnl::get_effective_cpu_isa();
  return impl.rfind("gemm:jit", 0) == 0 &&
         (isa == dnnl::cpu_isa::avx512_core_bf16 || isa == dnnl::cpu_isa::avx512_core_amx);
}

Bf16Support detectBf16() {
  Bf16Support b;
  const auto& f = numeric::cpuFeatures();
  b.cpuHasBf16 = f.avx512bf16 || (f.amxBf16 && f.amxTile);
  try {
    using dt = dnnl::memory::data_type;
    using tag = dnnl::memory::format_tag;
    const dnnl::memory::desc a({128, 256}, dt::bf16, tag::ab), w({256, 256}, dt::bf16, tag::ab),
        d({128, 256}, dt::f32, tag::ab);
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a, w, d),
                                          OneDnnContext::instance().engine());
    b.onednnKernel = pd.impl_info_str();
  } catch (const dnnl::error&) {
    b.onednnKernel.clear();
  }
  b.kernelUsesBf16 = !b.onednnKernel.empty() && kernelUsesBf16(b.onednnKernel);
  const std::string cpuName = f.amxBf16 && f.amxTile ? "AMX-BF16" : "AVX512_BF16";
  if (b.native())
    b.label = "Native BF16 (" + cpuName + ", oneDNN " + b.onednnKernel + ")";
  else if (b.onednnKernel.empty())
    b.label = "BF16 emulated: FP32 compute (oneDNN has no BF16 matmul here)";
  else if (!b.cpuHasBf16)
    b.label = "BF16 emulated by oneDNN (no AVX512_BF16 or AMX-BF16; " + b.onednnKernel + ")";
  else
    b.label = "BF16 emulated (CPU has " + cpuName + ", oneDNN's " + b.onednnKernel +
              " does not use it)";
  return b;
}

} // namespace

std::string_view matmulPathName(MatmulPath path) {
  switch (path) {
  case MatmulPath::Auto: return "auto";
  case MatmulPath::Native: return "native";
  case MatmulPath::Fp32Compute: return "fp32-compute";
  }
  return "auto";
}

std::optional<MatmulPath> parseMatmulPath(std::string_view text) {
  for (auto p : {MatmulPath::Auto, MatmulPath::Native, MatmulPath::Fp32Compute})
    if (text == matmulPathName(p))
      return p;
  return std::nullopt;
}

void setMatmulPath(MatmulPath path) {
  g_path.store(path);
  g_setByUser.store(true);
}

MatmulPath matmulPath() {
  return g_path.load();
}

void setMatmulChoiceCache(const std::filesystem::path& file) {
  ChoiceStore& s = store();
  std::lock_guard lock(s.mutex);
  s.file = file;
  if (!file.empty())
    load(s);
}

void clearMatmulChoices() {
  ChoiceStore& s = store();
  std::lock_guard lock(s.mutex);
  s.choices.clear();
}

std::filesystem::path userCacheDir() {
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
    return std::filesystem::path(x) / "mantissa";
  if (const char* h = std::getenv("HOME"); h && *h)
    return std::filesystem::path(h) / ".cache" / "mantissa";
  return std::filesystem::temp_directory_path() / "mantissa";
}

const Bf16Support& bf16Support() {
  static const Bf16Support support = detectBf16();
  return support;
}

namespace detail {

std::string choiceKey(const MatmulShape& s, DType inputs, DType dst, bool accumulate) {
  return std::to_string(s.m) + "," + std::to_string(s.n) + "," + std::to_string(s.k) + "," +
         (s.transSrc == Trans::Yes ? "t" : "n") + (s.transWeights == Trans::Yes ? "t" : "n") +
         "," + dtypeKey(inputs) + "," + dtypeKey(dst) + "," + (accumulate ? "acc" : "set") + "," +
         std::to_string(omp_get_max_threads()) + "thr";
}

std::optional<MatmulChoice> rememberedChoice(const std::string& key) {
  ChoiceStore& s = store();
  std::lock_guard lock(s.mutex);
  const auto it = s.choices.find(key);
  if (it == s.choices.end())
    return std::nullopt;
  return it->second;
}

void rememberChoice(const std::string& key, const MatmulChoice& choice) {
  ChoiceStore& s = store();
  std::lock_guard lock(s.mutex);
  s.choices[key] = choice;
  save(s);
}

bool matmulPathSetByUser() {
  return g_setByUser.load();
}

} // namespace detail
} // namespace mantissa::kernels
