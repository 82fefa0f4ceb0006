// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#include <mantissa/train/step_benchmark.h>

#include <mantissa/amp/recipe.h>
#include <mantissa/data/dataset.h>
#include <mantissa/train/session.h>

#include <algorithm>
#include <cmath>
#include <memory>

namespace mantissa::train {

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n == 0 ? 0.0 : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

} // namespace

std::vector<StepBenchResult> measureSteps(const StepBenchOptions& o) {
  const auto names = o.recipes.empty() ? amp::recipeNames() : o.recipes;
  const auto data = std::make_shared<const data::TrainTest>(data::loadDataSpec(o.data));
  std::vector<StepBenchResult> results;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (o.progress && !o.progress(double(i) / double(names.size()), names[i]))
      break;
    RunConfig c;
    c.data = o.data;
    c.model = o.model;
    c.recipe = names[i];
    c.batch = o.batch;
    c.steps = o.warmup + o.repetitions;
    c.telemetryEvery = o.telemetryEvery;
    c.lr = 0.01; // any stable rate: only the time is measured
    Session s(c, data);
    for (int w = 0; w < o.warmup; ++w)
      s.step();
    std::vector<double> times;
    model::OpTimes sum;
    for (int r = 0; r < o.repetitions; ++r) {
      const auto& rep = s.step();
      times.push_back(rep.stepMs);
      sum += rep.times;
    }
    StepBenchResult res;
    res.recipe = names[i];
    res.telemetryEvery = o.telemetryEvery;
    res.medianMs = median(times);
    double mean = 0.0;
    for (double t : times)
      mean += t;
    mean /= double(times.size());
    double var = 0.0;
    for (double t : times)
      var += (t - mean) * (t - mean);
    res.meanMs = mean;
    res.cv = times.size() > 1 ? std::sqrt(var / double(times.size() - 1)) / mean : 0.0;
    const double k = 1.0 / double(o.repetitions);
    auto& b = res.breakdownMs;
    b.matmulForward = sum.matmulForward * k;
    b.matmulBackward = sum.matmulBackward * k;
    b.convForward = sum.convForward * k;
    b.convBackward = sum.convBackward * k;
    b.conversion = sum.conversion * k;
    b.elementwise = sum.elementwise * k;
    b.loss = sum.loss * k;
    b.optimizer = sum.optimizer * k;
    b.telemetry = sum.telemetry * k;
    b.data = sum.data * k;
    const auto plan = s.plan();
    for (auto role : {model::TensorRole::Weights, model::TensorRole::MasterWeights,
                      model::TensorRole::Activations, model::TensorRole::Gradients,
                      model::TensorRole::OptimizerState})
      res.bytesAtRecipePrecision[std::string(model::tensorRoleName(role))] =
          model::bytesFor(plan, role);
    res.bytes = s.allocatedBytes();
    res.matmulImplementation = s.model().matmulImplementation();
    res.matmulEmulated = s.model().matmulEmulated();
    res.convImplementation = s.model().convImplementation();
    res.matmuls = s.model().matmulUses();
    results.push_back(std::move(res));
  }
  if (o.progress)
    o.progress(1.0, "done");
  return results;
}

} // namespace mantissa::train
