// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// BenchReport <-> JSON, the layout documented in bench_report.h. fromJson
// reads back what toJson wrote (the GUI's remembered results) and names the
// first field it cannot read.
#include <mantissa/bench/bench_report.h>
#include <mantissa/train/run_log_rows.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <optional>
#include <stdexcept>
#include <vector>

namespace mantissa::bench {

namespace {

using nlohmann::json;

json finiteOrNull(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }
json optionalOrNull(const std::optional<double>& v) { return v ? finiteOrNull(*v) : json(nullptr); }

// j[key] as T, or std::invalid_argument naming `where.key`.
template <typename T>
T field(const json& j, const char* key, const std::string& where) {
  const std::string name = where.empty() ? key : where + "." + key;
  if (!j.is_object() || !j.contains(key))
    throw std::invalid_argument("benchmark report: missing field '" + name + "'");
  const json& v = j.at(key);
  if constexpr (std::is_same_v<T, double>) {
    if (v.is_null())
      return std::nan("");
  }
  try {
    return v.get<T>();
  } catch (const json::exception&) {
    throw std::invalid_argument("benchmark report: field '" + name + "' has the wrong type");
  }
}

const json& list(const json& j, const char* key) {
  if (!j.contains(key) || !j.at(key).is_array())
    throw std::invalid_argument(std::string("benchmark report: missing list '") + key + "'");
  return j.at(key);
}

DType dtypeFromName(const std::string& name, const std::string& where) {
  for (DType d : {DType::F32, DType::BF16, DType::F16})
    if (dtypeName(d) == name)
      return d;
  throw std::invalid_argument("benchmark report: '" + where + "' has unknown dtype '" + name + "'");
}

kernels::Backend backendFromName(const std::string& name, const std::string& where) {
  for (auto b : {kernels::Backend::OneDnn, kernels::Backend::Eigen})
    if (kernels::backendName(b) == name)
      return b;
  throw std::invalid_argument("benchmark report: '" + where + "' has unknown backend '" + name +
                              "'");
}

// "fp32->bf16" -> {"fp32", "bf16"}
std::pair<std::string, std::string> splitOperation(const std::string& op) {
  const auto arrow = op.find("->");
  if (arrow == std::string::npos)
    return {op, op};
  return {op.substr(0, arrow), op.substr(arrow + 2)};
}

json stepJson(const train::StepBenchResult& s, double noisyCv) {
  const auto& b = s.breakdownMs;
  auto bytes = [&](const char* role) {
    const auto it = s.bytes.find(role);
    return it == s.bytes.end() ? std::size_t{0} : it->second;
  };
  auto nominal = [&](const char* role) {
    const auto it = s.bytesAtRecipePrecision.find(role);
    return it == s.bytesAtRecipePrecision.end() ? std::size_t{0} : it->second;
  };
  auto matmuls = json::array();
  for (const auto& u : s.matmuls)
    matmuls.push_back(train::matmulUseJson(u));
  std::size_t total = 0;
  for (const auto& [role, n] : s.bytes)
    total += n;
  return {{"recipe", s.recipe},
          {"median_ms", s.medianMs},
          {"mean_ms", s.meanMs},
          {"cv", s.cv},
          {"noisy", s.cv > noisyCv},
          {"breakdown_ms",
           {{"matmul", matmulMs(s)},
            {"matmul_forward", b.matmulForward},
            {"matmul_backward", b.matmulBackward},
            {"conv_forward", b.convForward},
            {"conv_backward", b.convBackward},
            {"conversion", b.conversion},
            {"elementwise", b.elementwise},
            {"loss", b.loss},
            {"optimizer", b.optimizer},
            {"telemetry", b.telemetry},
            {"data", b.data},
            {"unattributed", unattributedMs(s)}}},
          {"bytes",
           {{"weights", bytes("weights")},
            {"master_weights", bytes("master weights")},
            {"activations", bytes("activations")},
            {"gradients", bytes("gradients")},
            {"optimizer_state", bytes("optimizer state")},
            {"matmul_fp32_copies", bytes("matmul FP32 copies")},
            {"onednn_scratchpad", bytes("oneDNN scratchpad")},
            {"total", total}}},
          {"bytes_at_recipe_precision",
           {{"weights", nominal("weights")},
            {"master_weights", nominal("master weights")},
            {"activations", nominal("activations")},
            {"gradients", nominal("gradients")},
            {"optimizer_state", nominal("optimizer state")}}},
          {"matmul_implementation", s.matmulImplementation},
          {"emulated", s.matmulEmulated},
          {"conv_implementation", s.convImplementation},
          {"matmuls", matmuls}};
}

train::StepBenchResult stepFromJson(const json& j, std::size_t i) {
  const std::string w = "steps[" + std::to_string(i) + "]";
  train::StepBenchResult s;
  s.recipe = field<std::string>(j, "recipe", w);
  s.medianMs = field<double>(j, "median_ms", w);
  s.meanMs = field<double>(j, "mean_ms", w);
  s.cv = field<double>(j, "cv", w);
  const json& b = j.contains("breakdown_ms") ? j.at("breakdown_ms") : json();
  const std::string wb = w + ".breakdown_ms";
  auto& t = s.breakdownMs;
  t.matmulForward = field<double>(b, "matmul_forward", wb);
  t.matmulBackward = field<double>(b, "matmul_backward", wb);
  // Reports written before convolutions were timed apart have no such fields.
  if (b.is_object() && b.contains("conv_forward"))
    t.convForward = field<double>(b, "conv_forward", wb);
  if (b.is_object() && b.contains("conv_backward"))
    t.convBackward = field<double>(b, "conv_backward", wb);
  t.conversion = field<double>(b, "conversion", wb);
  t.elementwise = field<double>(b, "elementwise", wb);
  t.loss = field<double>(b, "loss", wb);
  t.optimizer = field<double>(b, "optimizer", wb);
  t.telemetry = field<double>(b, "telemetry", wb);
  t.data = field<double>(b, "data", wb);
  const json& by = j.contains("bytes") ? j.at("bytes") : json();
  const std::string wy = w + ".bytes";
  s.bytes["weights"] = field<std::size_t>(by, "weights", wy);
  s.bytes["master weights"] = field<std::size_t>(by, "master_weights", wy);
  s.bytes["activations"] = field<std::size_t>(by, "activations", wy);
  s.bytes["gradients"] = field<std::size_t>(by, "gradients", wy);
  s.bytes["optimizer state"] = field<std::size_t>(by, "optimizer_state", wy);
  s.bytes["matmul FP32 copies"] = field<std::size_t>(by, "matmul_fp32_copies", wy);
  s.bytes["oneDNN scratchpad"] = field<std::size_t>(by, "onednn_scratchpad", wy);
  const json& nb = j.contains("bytes_at_recipe_precision") ? j.at("bytes_at_recipe_precision") : json();
  const std::string wn = w + ".bytes_at_recipe_precision";
  for (const auto& [key, name] : {std::pair{"weights", "weights"}, {"master_weights", "master weights"},
                                  {"activations", "activations"}, {"gradients", "gradients"},
                                  {"optimizer_state", "optimizer state"}})
    s.bytesAtRecipePrecision[name] = field<std::size_t>(nb, key, wn);
  s.matmulImplementation = field<std::string>(j, "matmul_implementation", w);
  s.matmulEmulated = field<bool>(j, "emulated", w);
  if (j.contains("conv_implementation")) // reports of MLP steps only have none
    s.convImplementation = field<std::string>(j, "conv_implementation", w);
  // Every product's path (reports written before it was recorded have none).
  if (j.contains("matmuls"))
    s.matmuls = train::matmulUsesFromJson(j.at("matmuls"));
  return s;
}


std::string columnName(int promoteEvery) {
  return kernels::fp16PromoteName(promoteEvery);
}

json fp16GemmJson(const Fp16GemmBench& b) {
  const auto& t = b.table;
  json ks = json::array();
  for (const auto& row : t.rowsByK)
    ks.push_back(row.k);
  json columns = json::array();
  auto column = [&](const std::string& name, auto cell) {
    json maxes = json::array(), medians = json::array();
    for (const auto& row : t.rowsByK) {
      maxes.push_back(finiteOrNull(cell(row).maxRelError));
      medians.push_back(finiteOrNull(cell(row).medianRelError));
    }
    columns.push_back({{"n_c", name}, {"max_rel_error", maxes}, {"median_rel_error", medians}});
  };
  for (std::size_t c = 0; c < t.promoteEvery.size(); ++c)
    column(columnName(t.promoteEvery[c]), [c](const kernels::Fp16ErrorRow& r) { return r.fp16[c]; });
  column("fp32", [](const kernels::Fp16ErrorRow& r) { return r.fp32; });
  json gemm = nullptr;
  if (b.hardware) {
    const double peak = b.fp16FmaPeakGflops;
    gemm = {{"m", b.size},
            {"n", b.size},
            {"k", b.size},
            {"n_c", columnName(b.promoteEvery)},
            {"gflops", finiteOrNull(b.gflops)},
            {"cv", finiteOrNull(b.cv)},
            {"onednn_fp32_gflops", finiteOrNull(b.onednnFp32Gflops)},
            {"onednn_fp32_cv", finiteOrNull(b.onednnFp32Cv)},
            {"ratio_to_fp32", finiteOrNull(b.gflops / b.onednnFp32Gflops)},
            {"fp16_fma_peak_gflops", peak > 0 ? json(peak) : json(nullptr)},
            {"fraction_of_peak", peak > 0 ? finiteOrNull(b.gflops / peak) : json(nullptr)},
            {"implementation", b.implementation}};
  }
  return {{"default_n_c", b.defaultPromoteEvery},
          {"kernel", b.hardware ? "AVX512_FP16" : "absent"},
          {"absent_reason", b.absentReason},
          {"error_table",
           {{"k", ks},
            {"rows", t.rows},
            {"cols", t.cols},
            {"fp32_implementation", t.fp32Implementation},
            {"data", "A [" + std::to_string(t.rows) + ",K] x B [K," + std::to_string(t.cols) +
                         "], uniform(0,1) rounded to FP16; relative error against double; FP16 "
                         "columns by exact emulation of the FP16 FMA"},
            {"columns", columns}}},
          {"gemm", gemm}};
}

// Reads what fp16GemmJson wrote; the table's columns come back in order.
Fp16GemmBench fp16GemmFromJson(const json& j) {
  const std::string w = "fp16_gemm";
  Fp16GemmBench b;
  b.defaultPromoteEvery = field<int>(j, "default_n_c", w);
  b.hardware = field<std::string>(j, "kernel", w) == "AVX512_FP16";
  b.absentReason = field<std::string>(j, "absent_reason", w);
  const json& et = j.contains("error_table") ? j.at("error_table") : json();
  const std::string we = w + ".error_table";
  const auto ks = field<std::vector<std::int64_t>>(et, "k", we);
  b.table.rows = field<std::int64_t>(et, "rows", we);
  b.table.cols = field<std::int64_t>(et, "cols", we);
  b.table.fp32Implementation = field<std::string>(et, "fp32_implementation", we);
  b.table.rowsByK.resize(ks.size());
  for (std::size_t r = 0; r < ks.size(); ++r)
    b.table.rowsByK[r].k = ks[r];
  const json& cols = et.contains("columns") && et.at("columns").is_array() ? et.at("columns") : json::array();
  for (std::size_t c = 0; c < cols.size(); ++c) {
    const std::string wc = we + ".columns[" + std::to_string(c) + "]";
    const std::string name = field<std::string>(cols[c], "n_c", wc);
    const auto maxes = field<std::vector<double>>(cols[c], "max_rel_error", wc);
    const auto medians = field<std::vector<double>>(cols[c], "median_rel_error", wc);
    if (maxes.size() != ks.size() || medians.size() != ks.size())
      throw std::invalid_argument("benchmark report: '" + wc + "' has not one value per K");
    const std::optional<int> nc = kernels::parseFp16PromoteEvery(name);
    if (name != "fp32" && !nc)
      throw std::invalid_argument("benchmark report: '" + wc + ".n_c' is not a number, never or fp32");
    if (nc)
      b.table.promoteEvery.push_back(*nc);
    for (std::size_t r = 0; r < ks.size(); ++r) {
      const kernels::Fp16ErrorCell cell{maxes[r], medians[r]};
      if (nc)
        b.table.rowsByK[r].fp16.push_back(cell);
      else
        b.table.rowsByK[r].fp32 = cell;
    }
  }
  const json& g = j.contains("gemm") ? j.at("gemm") : json();
  if (g.is_object()) {
    const std::string wg = w + ".gemm";
    b.size = field<std::int64_t>(g, "m", wg);
    b.promoteEvery = kernels::parseFp16PromoteEvery(field<std::string>(g, "n_c", wg)).value_or(0);
    b.gflops = field<double>(g, "gflops", wg);
    b.cv = field<double>(g, "cv", wg);
    b.onednnFp32Gflops = field<double>(g, "onednn_fp32_gflops", wg);
    b.onednnFp32Cv = field<double>(g, "onednn_fp32_cv", wg);
    const double peak = field<double>(g, "fp16_fma_peak_gflops", wg);
    b.fp16FmaPeakGflops = std::isfinite(peak) ? peak : 0;
    b.implementation = field<std::string>(g, "implementation", wg);
  }
  return b;
}

} // namespace

json toJson(const BenchReport& r) {
  json j;
  j["schema"] = 1;
  j["mode"] = r.mode;
  j["cancelled"] = r.cancelled;
  j["machine"] = {{"cpu_model", r.cpuModel},
                  {"isa", r.isa},
                  {"onednn_version", r.onednnVersion},
                  {"onednn_isa", r.onednnIsa},
                  {"omp_wait_policy", r.ompWaitPolicy},
                  {"key", r.machineKey()}};
  j["isa"] = r.isa;
  j["threads"] = r.threads;
  j["method"] = {{"matmul_warmup", r.matmulWarmup},
                 {"matmul_repetitions", r.matmulRepetitions},
                 {"step_warmup", r.stepWarmup},
                 {"step_repetitions", r.stepRepetitions},
                 {"step_model", r.stepModel},
                 {"step_batch", r.stepBatch},
                 {"conversion_repetitions", r.conversionRepetitions},
                 {"noisy_cv", r.noisyCv},
                 {"statistic", "median over repetitions after warm-up; cv = stddev / mean"}};
  json mm = json::array();
  for (const auto& m : r.matmul)
    mm.push_back({{"backend", kernels::backendName(m.backend)},
                  {"dtype", dtypeName(m.dtype)},
                  {"m", m.m},
                  {"n", m.n},
                  {"k", m.k},
                  {"label", m.label},
                  {"gflops", finiteOrNull(m.gflops)},
                  {"cv", finiteOrNull(m.cv)},
                  {"emulated", m.emulated},
                  {"implementation", m.implementation},
                  {"threads", m.threads}});
  j["matmul"] = std::move(mm);
  const auto& p = r.peak;
  j["peak_gflops"] = {{"fp32", finiteOrNull(p.fp32Gflops)},
                      {"bf16", finiteOrNull(p.bf16Gflops)},
                      {"fp32_source", p.fp32Source},
                      {"bf16_source", p.bf16Source},
                      {"fp32_calibrated", finiteOrNull(p.fp32Calibrated)},
                      {"bf16_calibrated", finiteOrNull(p.bf16Calibrated)},
                      {"bf16_emulated", p.bf16Emulated},
                      {"fp32_theoretical", optionalOrNull(p.fp32Theoretical)},
                      {"bf16_theoretical", optionalOrNull(p.bf16Theoretical)},
                      {"theoretical_basis", p.theoreticalBasis},
                      {"calibration_size", p.calibrationSize}};
  json conv = json::array();
  for (const auto& c : r.conversion) {
    const auto [from, to] = splitOperation(c.operation);
    conv.push_back({{"from", from},
                    {"to", to},
                    {"path", c.path},
                    {"gbps", finiteOrNull(c.gbps)},
                    {"cv", finiteOrNull(c.cv)},
                    {"ratio_to_memcpy", finiteOrNull(c.ratioToMemcpy)}});
  }
  j["conversion"] = std::move(conv);
  j["memcpy_gbps"] = finiteOrNull(r.memcpyGbps);
  json steps = json::array();
  for (const auto& s : r.steps)
    steps.push_back(stepJson(s, r.noisyCv));
  j["steps"] = std::move(steps);
  json cnnSteps = json::array();
  for (const auto& s : r.cnnSteps)
    cnnSteps.push_back(stepJson(s, r.noisyCv));
  j["cnn_steps"] = {{"model", r.cnnModel}, {"batch", r.cnnBatch}, {"steps", std::move(cnnSteps)}};
  json ss = json::array();
  for (const auto& s : r.steadyState)
    ss.push_back({{"recipe", s.recipe},
                  {"steps", s.steps},
                  {"primitives_created", s.primitivesCreated},
                  {"scratch_allocations", s.scratchAllocations}});
  j["steady_state"] = std::move(ss);
  json versus = json::array();
  for (const auto& c : r.versusFp32)
    versus.push_back({{"recipe", c.recipe}, {"ratio", finiteOrNull(c.ratio)}, {"reason", c.reason}});
  j["versus_fp32"] = std::move(versus);
  j["probe"] = probeToJson(r.probe);
  j["fp16_gemm"] = fp16GemmJson(r.fp16Gemm);
  j["notes"] = r.notes;
  return j;
}

BenchReport fromJson(const json& j) {
  if (!j.is_object())
    throw std::invalid_argument("benchmark report: not a JSON object");
  if (field<int>(j, "schema", "") != 1)
    throw std::invalid_argument("benchmark report: unsupported 'schema' (expected 1)");
  BenchReport r;
  r.mode = field<std::string>(j, "mode", "");
  r.cancelled = field<bool>(j, "cancelled", "");
  const json& m = j.contains("machine") ? j.at("machine") : json();
  r.cpuModel = field<std::string>(m, "cpu_model", "machine");
  r.isa = field<std::string>(m, "isa", "machine");
  r.onednnVersion = field<std::string>(m, "onednn_version", "machine");
  r.onednnIsa = field<std::string>(m, "onednn_isa", "machine");
  r.ompWaitPolicy = field<std::string>(m, "omp_wait_policy", "machine");
  r.threads = field<int>(j, "threads", "");
  const json& me = j.contains("method") ? j.at("method") : json();
  r.matmulWarmup = field<int>(me, "matmul_warmup", "method");
  r.matmulRepetitions = field<int>(me, "matmul_repetitions", "method");
  r.stepWarmup = field<int>(me, "step_warmup", "method");
  r.stepRepetitions = field<int>(me, "step_repetitions", "method");
  r.stepModel = field<std::string>(me, "step_model", "method");
  r.stepBatch = field<int>(me, "step_batch", "method");
  r.conversionRepetitions = field<int>(me, "conversion_repetitions", "method");
  r.noisyCv = field<double>(me, "noisy_cv", "method");

  const json& mm = list(j, "matmul");
  for (std::size_t i = 0; i < mm.size(); ++i) {
    const std::string w = "matmul[" + std::to_string(i) + "]";
    const json& e = mm[i];
    MatmulResult x{};
    x.backend = backendFromName(field<std::string>(e, "backend", w), w);
    x.dtype = dtypeFromName(field<std::string>(e, "dtype", w), w);
    x.m = field<std::int64_t>(e, "m", w);
    x.n = field<std::int64_t>(e, "n", w);
    x.k = field<std::int64_t>(e, "k", w);
    x.label = field<std::string>(e, "label", w);
    x.gflops = field<double>(e, "gflops", w);
    x.cv = field<double>(e, "cv", w);
    x.emulated = field<bool>(e, "emulated", w);
    x.implementation = field<std::string>(e, "implementation", w);
    x.threads = field<int>(e, "threads", w);
    r.matmul.push_back(std::move(x));
  }
  const json& p = j.contains("peak_gflops") ? j.at("peak_gflops") : json();
  const std::string wp = "peak_gflops";
  r.peak.fp32Gflops = field<double>(p, "fp32", wp);
  r.peak.bf16Gflops = field<double>(p, "bf16", wp);
  r.peak.fp32Source = field<std::string>(p, "fp32_source", wp);
  r.peak.bf16Source = field<std::string>(p, "bf16_source", wp);
  r.peak.fp32Calibrated = field<double>(p, "fp32_calibrated", wp);
  r.peak.bf16Calibrated = field<double>(p, "bf16_calibrated", wp);
  r.peak.bf16Emulated = field<bool>(p, "bf16_emulated", wp);
  if (const double t = field<double>(p, "fp32_theoretical", wp); std::isfinite(t))
    r.peak.fp32Theoretical = t;
  if (const double t = field<double>(p, "bf16_theoretical", wp); std::isfinite(t))
    r.peak.bf16Theoretical = t;
  r.peak.theoreticalBasis = field<std::string>(p, "theoretical_basis", wp);
  r.peak.calibrationSize = field<std::int64_t>(p, "calibration_size", wp);

  const json& conv = list(j, "conversion");
  for (std::size_t i = 0; i < conv.size(); ++i) {
    const std::string w = "conversion[" + std::to_string(i) + "]";
    ConversionResult c{};
    c.operation = field<std::string>(conv[i], "from", w) + "->" + field<std::string>(conv[i], "to", w);
    c.path = field<std::string>(conv[i], "path", w);
    c.gbps = field<double>(conv[i], "gbps", w);
    c.cv = field<double>(conv[i], "cv", w);
    c.ratioToMemcpy = field<double>(conv[i], "ratio_to_memcpy", w);
    r.conversion.push_back(std::move(c));
  }
  r.memcpyGbps = field<double>(j, "memcpy_gbps", "");
  const json& steps = list(j, "steps");
  for (std::size_t i = 0; i < steps.size(); ++i)
    r.steps.push_back(stepFromJson(steps[i], i));
  // Reports written before the CNN was measured have no "cnn_steps".
  if (j.contains("cnn_steps")) {
    const json& c = j.at("cnn_steps");
    r.cnnModel = field<std::string>(c, "model", "cnn_steps");
    r.cnnBatch = field<int>(c, "batch", "cnn_steps");
    const json& cs = list(c, "steps");
    for (std::size_t i = 0; i < cs.size(); ++i)
      r.cnnSteps.push_back(stepFromJson(cs[i], i));
  }
  const json& ss = list(j, "steady_state");
  for (std::size_t i = 0; i < ss.size(); ++i) {
    const std::string w = "steady_state[" + std::to_string(i) + "]";
    SteadyStateCounts c;
    c.recipe = field<std::string>(ss[i], "recipe", w);
    c.steps = field<int>(ss[i], "steps", w);
    c.primitivesCreated = field<std::int64_t>(ss[i], "primitives_created", w);
    c.scratchAllocations = field<std::int64_t>(ss[i], "scratch_allocations", w);
    r.steadyState.push_back(c);
  }
  const json& versus = list(j, "versus_fp32");
  for (std::size_t i = 0; i < versus.size(); ++i) {
    const std::string w = "versus_fp32[" + std::to_string(i) + "]";
    RecipeComparison c;
    c.recipe = field<std::string>(versus[i], "recipe", w);
    c.ratio = field<double>(versus[i], "ratio", w);
    c.reason = field<std::string>(versus[i], "reason", w);
    r.versusFp32.push_back(std::move(c));
  }
  if (!j.contains("probe"))
    throw std::invalid_argument("benchmark report: missing field 'probe'");
  r.probe = probeFromJson(j.at("probe"));
  if (j.contains("fp16_gemm")) // absent from reports written before it existed
    r.fp16Gemm = fp16GemmFromJson(j.at("fp16_gemm"));
  r.notes = field<std::vector<std::string>>(j, "notes", "");
  return r;
}

} // namespace mantissa::bench
