// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// Convolutional classifier executing a mixed-precision recipe.
//
// Model spec grammar (`--model`):
//   spec    := "cnn:" ( "lenet" | "lenet-bn" | layers )
//   layers  := conv { "-" ( conv | pool ) } { "-" fc }
//   conv    := "c" CHANNELS "k" ( "3" | "5" ) [ "b" ]
//   pool    := "p2"
//   fc      := "f" UNITS
// "c32k5" is a 5x5 convolution to 32 channels (stride 1, same padding)
// followed by ReLU; a trailing "b" puts BatchNorm between the convolution
// and the ReLU ("c32k5b"). "p2" is 2x2 max pooling with stride 2 after the
// convolution block before it (at most one per block). "f128" is a fully
// connected layer of 128 units with ReLU. The classifier (a fully connected
// layer to the data's classes, its softmax part of the loss) is always
// appended. Every convolution comes before every fully connected layer.
//   cnn:lenet    = cnn:c32k5-p2-c64k5-p2-f128   (then fc to 10 classes)
//   cnn:lenet-bn = cnn:c32k5b-p2-c64k5b-p2-f128
// Limits: CHANNELS in [1, kMaxCnnChannels], UNITS in [1, 65536], at most
// kMaxCnnBlocks convolutions and fully connected layers in all; numbers are
// plain decimal without leading zeros or signs.
// The input must be images (C x H x W, C = features / (H x W)); each pooling
// needs an even height and width. A spec that does not fit the data is
// rejected when the model is built for it (cnnLayout).
//
// Input standardization: every input value x enters the first convolution as
//   x' = (x - mean) / std
// in FP32, with the training set's mean and standard deviation over all its
// pixels (data::valueStats), as image classifiers are usually trained; the
// Session sets them (setInputStandardization), the test set is standardized
// with the training set's values. Without a call mean = 0, std = 1 (x' = x).
//
// A telemetry "layer" is one conv block (conv -> [BatchNorm] -> ReLU ->
// [pool]) or one fully connected layer. Per layer l (D the recipe's product
// dtype, round_x as in mlp.h):
//   in_l   = cast_D(input of the block)
//   pre_l  = round_act(conv(in_l, W_l) + b_l)        FP32 accumulation
//   bn_l   = round_act(BatchNorm(pre_l))             batch statistics in the
//            stats dtype while training, running statistics in evaluation
//   relu_l = round_act(max(0, bn_l or pre_l))
//   post_l = maxpool(relu_l) or relu_l               (exact: picks values;
//            in pooled blocks ReLU and pooling run as one pass, relu_l is
//            not stored)
// Fully connected layers are the MLP's (mlp.h). Backward mirrors forward;
// the BatchNorm backward computes in FP32 and its result is rounded to the
// gradient dtype like every activation gradient. BatchNorm's scale and
// shift are optimizer slots after the layers' ("layer<l>.bn.gamma",
// "layer<l>.bn.beta"), updated at the recipe's weight precision.
//
// Every buffer is allocated in the constructor; forward/backward/refresh
// never allocate.

#include <mantissa/amp/recipe.h>
#include <mantissa/model/network.h>
#include <mantissa/nn/conv2d.h>
#include <mantissa/nn/linear.h>
#include <mantissa/nn/scaled_linear.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mantissa::model {

inline constexpr int kMaxCnnChannels = 1024;
inline constexpr int kMaxCnnBlocks = 32;
inline constexpr int kMaxCnnUnits = 65536;
// Values of one sample's largest activation (C x H x W), and parameters in all.
inline constexpr std::int64_t kMaxCnnActivation = std::int64_t{1} << 22;
inline constexpr std::int64_t kMaxCnnParameters = std::int64_t{1} << 27;

struct CnnBlock {
  bool conv = true; // false: fully connected
  int out = 0;      // channels or units
  int kernel = 0;   // 3 or 5 (conv only)
  bool batchNorm = false;
  bool pool = false;
  bool operator==(const CnnBlock&) const = default;
};

struct CnnSpec {
  std::vector<CnnBlock> blocks; // the hidden blocks; the classifier is implicit
  std::string toString() const; // "cnn:c32k5-p2-c64k5-p2-f128"
  bool operator==(const CnnSpec&) const = default;
};

// Throws std::invalid_argument quoting the spec and naming the problem.
CnnSpec parseCnnSpec(std::string_view spec);
bool isCnnSpec(std::string_view spec); // starts with "cnn:"

// One layer as built for an input: its input and output geometry.
struct CnnLayer {
  CnnBlock block;         // the classifier: conv = false, out = classes
  int cin = 0, h = 0, w = 0;    // input channels (features for fc) and image size
  int cout = 0, ho = 0, wo = 0; // output (after pooling); fc: cout = units, ho = wo = 1
  std::int64_t inValues() const { return std::int64_t{cin} * h * w; }
  std::int64_t outValues() const { return std::int64_t{cout} * ho * wo; }
};

// The layers of `spec` on images of channels x height x width with `classes`
// classes. Throws std::invalid_argument naming the layer that does not fit
// (odd size before a pooling, limits) or the input that is no image.
std::vector<CnnLayer> cnnLayout(const CnnSpec& spec, int features, int imageHeight,
                                int imageWidth, int classes);

class Cnn final : public Network {
public:
  // bnStats: the precision of BatchNorm's statistics.
  Cnn(const CnnSpec& spec, std::vector<CnnLayer> layout, int batch, const amp::Recipe& recipe,
      int accumulation = 1, DType bnStats = DType::F32);
  ~Cnn() override;

  // PyTorch's default for Conv2d and Linear, U(-1/sqrt(fan_in), 1/sqrt(fan_in))
  // for W and b, times gain; BatchNorm scale 1, shift 0, running mean 0, variance 1.
  void initialize(std::uint64_t seed, float gain = 1.0f) override;
  std::span<float> inputs() override { return m_x.f32(); }
  // Throws std::invalid_argument unless std is finite and positive and mean finite.
  void setInputStandardization(float mean, float std);
  float inputMean() const { return m_inputMean; }
  float inputStd() const { return m_inputStd; }
  std::span<std::int32_t> labels() override { return m_labels; }
  nn::XentResult forward(OpTimes& times, int validRows = 0) override;
  void backward(float scale, bool accumulate, OpTimes& times,
                const std::function<void(int)>& layerDone = {}) override;
  void refreshWorkingWeights(OpTimes& times) override;
  void setTraining(bool training) override { m_training = training; }
  void setMeasureUnderflow(bool on) override { m_measureUnderflow = on; }
  std::span<const GradUnderflow> underflow() const override { return m_underflow; }
  bool setParallelSections(ParallelSections* sections) override {
    m_sections = sections;
    return true;
  }
  std::optional<NonFiniteSite> firstNonFinite(bool backward) const override;
  void shadowTensors(std::vector<ShadowTensor>& out) const override;

  int layers() const override { return static_cast<int>(m_layout.size()); }
  int batch() const override { return m_batch; }
  std::string specString() const override { return m_spec.toString(); }
  std::vector<LayerInfo> layerInfo() const override;
  std::vector<LayerParams>& params() override { return m_params; }
  const std::vector<LayerParams>& params() const override { return m_params; }
  std::vector<LayerGrads>& grads() override { return m_grads; }
  const std::vector<LayerGrads>& grads() const override { return m_grads; }
  const std::vector<LayerActs>& acts() const override { return m_acts; }
  // layer<l>.W, layer<l>.b, then each BatchNorm's layer<l>.bn.gamma and
  // .beta; in PyTorch a ModuleList `layers` of nn.Conv2d and nn.Linear, with
  // a BatchNorm2d `layers.<l>.bn` where a block has one.
  std::vector<Parameter> parameters() override;
  // BatchNorm's running statistics and the scaled products' state.
  void visitState(RunStateVisitor& v) override;
  std::int64_t parameterCount() const override;
  std::string matmulImplementation() const override { return m_linear.front().implementation(); }
  bool matmulEmulated() const override { return m_linear.front().emulated(); }
  std::string convImplementation() const override { return m_conv.front().implementation(); }
  bool convEmulated() const override { return m_conv.front().emulated(); }
  std::vector<amp::RecipeRow> opRows() const override;
  std::vector<PlanRow> plan() const override;
  std::map<std::string, std::size_t> allocatedBytes() const override;

  const CnnSpec& spec() const { return m_spec; }
  const std::vector<CnnLayer>& layout() const { return m_layout; }
  DType batchNormStats() const { return m_bnStats; }
  const Tensor& probs() const { return m_probs; }
  const nn::Conv2d& conv(int layer) const;

  // BatchNorm state of a conv block with BatchNorm (empty Tensors otherwise).
  struct Norm {
    Tensor gamma, beta;               // [1, C] parameters
    Tensor dgamma, dbeta;             // [1, C] gradients (accumulated)
    Tensor dgammaStep, dbetaStep;     // [1, C] one micro-batch's (accumulation only)
    Tensor mean, rstd;                // [1, C] batch statistics of the last training forward
    Tensor runningMean, runningVar;   // [1, C]
    Tensor out;                       // [B, C*H*W] normalised pre (rounded to act)
    Tensor dout;                      // [B, C*H*W] its gradient
  };
  const Norm& norm(int layer) const { return m_norm[static_cast<std::size_t>(layer)]; }

  std::vector<telemetry::ScaledTensorStats> scalingStats() const override;

private:
  const Tensor& productInput(int layer) const;
  const Tensor& fp32Input(int layer) const; // x or the previous block's output, FP32
  // A convolution's operands under a per-tensor scaled recipe (fp8-delayed,
  // fp8-current): quantized FP32 copies, the products then run in FP32.
  struct ConvScaling {
    nn::OperandQuantizer x, w, dy;
    Tensor xq, wq, dyq;
  };

  CnnSpec m_spec;
  std::vector<CnnLayer> m_layout;
  int m_batch;
  const amp::Recipe& m_recipe;
  int m_accumulation;
  DType m_bnStats;
  bool m_training = true;
  bool m_measureUnderflow = false;
  ParallelSections* m_sections = nullptr;
  std::vector<nn::Conv2d> m_conv;           // one per conv block
  std::vector<nn::Linear> m_linear;         // one per fc layer
  bool m_low = false;                       // products take 16-bit copies (a.in, wLow, dpreLow)
  std::vector<ConvScaling> m_convScaling;   // per conv block under fp8-delayed / fp8-current
  std::vector<nn::ScaledLinear> m_scaledFc; // per fc layer under any scaled recipe
  std::vector<int> m_opIndex;               // [L] index into m_conv or m_linear
  std::vector<LayerParams> m_params;        // [L]
  std::vector<LayerGrads> m_grads;          // [L]
  std::vector<LayerActs> m_acts;            // [L]
  std::vector<Norm> m_norm;                 // [L]
  std::vector<std::vector<std::int32_t>> m_argmax; // [L] pooling's argmax
  std::vector<GradUnderflow> m_underflow;   // [L]
  Tensor m_x;                               // [B, F] FP32 as the caller wrote it
  Tensor m_xs;                              // [B, F] FP32 standardized
  float m_inputMean = 0.0f;
  float m_inputStd = 1.0f;
  std::vector<std::int32_t> m_labels;       // [B]
  Tensor m_probs;                           // [B, C] FP32
};

} // namespace mantissa::model
