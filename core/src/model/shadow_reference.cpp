// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
// The FP32 reference of the shadow pass: the run's model built again under
// the fp32 recipe, run on the run's batch and weights.
#include <mantissa/model/network.h>
#include <mantissa/model/shadow_reference.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

namespace mantissa::model {

namespace {

class Fp32Reference final : public ShadowReference {
public:
  explicit Fp32Reference(std::unique_ptr<Network> copy) : m_model(std::move(copy)) {
    if (!m_model)
      throw std::invalid_argument("shadow: the FP32 reference needs a model");
    for (const Parameter& p : m_model->parameters())
      m_params.emplace(p.name, p);
  }

  void run(const ShadowBatch& batch) override {
    for (const Parameter& given : batch.parameters) {
      const auto it = m_params.find(given.name);
      if (it == m_params.end())
        throw std::invalid_argument("shadow: the FP32 reference has no parameter " + given.name);
      const auto from = std::as_const(*given.value).f32();
      const auto to = it->second.value->f32();
      if (from.size() != to.size())
        throw std::invalid_argument("shadow: parameter " + given.name + " has " +
                                    std::to_string(from.size()) + " values, the reference's " +
                                    std::to_string(to.size()));
      std::copy(from.begin(), from.end(), to.begin());
    }
    if (batch.parameters.size() != m_params.size())
      throw std::invalid_argument("shadow: the run has " + std::to_string(batch.parameters.size()) +
                                  " parameters, the FP32 reference " +
                                  std::to_string(m_params.size()));
    copyInto(batch.inputs, m_model->inputs(), "inputs");
    copyInto(batch.tokens, m_model->tokens(), "tokens");
    copyInto(batch.labels, m_model->labels(), "labels");
    OpTimes times;
    m_model->refreshWorkingWeights(times);
    m_model->forward(times);
    m_model->backward(1.0f, false, times);
    m_model->shadowTensors(m_tensors);
    m_widened.clear();
  }

  std::span<const float> tensorF32(std::string_view name) const override {
    for (const ShadowTensor& t : m_tensors)
      if (t.name == name)
        return t.values;
    return {};
  }

  // Widened when first asked for (the shadow pass reads tensorF32).
  std::span<const double> tensor(std::string_view name) const override {
    const auto values = tensorF32(name);
    if (values.empty())
      return {};
    auto [it, added] = m_widened.try_emplace(std::string(name));
    if (added)
      it->second.assign(values.begin(), values.end());
    return it->second;
  }

  std::string precision() const override { return "FP32"; }

private:
  template <typename T>
  static void copyInto(std::span<const T> from, std::span<T> to, const char* what) {
    if (from.size() != to.size())
      throw std::invalid_argument(std::string("shadow: the batch's ") + what + " hold " +
                                  std::to_string(from.size()) + " values, the reference's " +
                                  std::to_string(to.size()));
    std::copy(from.begin(), from.end(), to.begin());
  }

  std::unique_ptr<Network> m_model;
  std::map<std::string, Parameter, std::less<>> m_params;
  std::vector<ShadowTensor> m_tensors;
  mutable std::map<std::string, std::vector<double>, std::less<>> m_widened;
};

} // namespace

std::unique_ptr<ShadowReference> makeFp32Reference(std::unique_ptr<Network> copy) {
  return std::make_unique<Fp32Reference>(std::move(copy));
}

} // namespace mantissa::model
