// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
//
// The CNN in double (model/cnn.h without the recipe's roundings), NCHW,
// one row per sample:
//   x'     = (x - mean) / std                    the input standardization
//   conv block l (k x k, stride 1, k/2 zeros around, H x W kept):
//     pre  = conv(in, W) + b                     W [Cout, Cin*k*k] (oihw)
//     bn   = (pre - mean_c) / sqrt(var_c + 1e-5) * gamma + beta
//            (training: the batch's statistics over B*H*W, biased variance)
//     post = maxpool2x2(relu(bn or pre)) or relu(bn or pre)
//   fc layer l: pre = in . W + b, W [I, O]; post = relu(pre) (hidden)
//   loss  = mean over the B rows of cross-entropy(softmax(pre of the last))
// Pooling's ties go to the first maximum in row-major window order.
// Tensors: "layer<l> output" pre [B, Cout*H*W], "layer<l> activation"
// post [B, Cout*Ho*Wo] (hidden layers), "layer<l> output gradient" the
// gradient of pre, and "<parameter> gradient" for layer<l>.W, layer<l>.b,
// layer<l>.bn.gamma, layer<l>.bn.beta.
#include "reference64.h"

#include <mantissa/model/cnn.h>

#include <algorithm>
#include <cmath>

namespace mantissa::model::ref64 {
namespace {

constexpr double kBatchNormEps = 1e-5;

class CnnReference final : public Reference64 {
public:
  explicit CnnReference(const Cnn& model)
      : m_layout(model.layout()), m_batch(model.batch()), m_mean(model.inputMean()),
        m_std(model.inputStd()) {
    const int n = int(m_layout.size()), B = m_batch;
    m_x.assign(std::size_t(B) * std::size_t(m_layout.front().inValues()), 0.0);
    m_labels.assign(std::size_t(B), 0);
    m_layers.resize(std::size_t(n));
    std::size_t scratch = 0, dIn = 0, col = 0, plane = 0;
    for (int l = 0; l < n; ++l) {
      const CnnLayer& c = m_layout[std::size_t(l)];
      auto& L = m_layers[std::size_t(l)];
      const std::string p = "layer" + std::to_string(l);
      const std::size_t preValues =
          c.block.conv ? std::size_t(c.cout) * c.h * c.w : std::size_t(c.cout);
      L.pre = m_store.add(p + " output", std::size_t(B) * preValues);
      if (l + 1 < n)
        L.post = m_store.add(p + " activation", std::size_t(B) * std::size_t(c.outValues()));
      L.dpre = m_store.add(p + " output gradient", std::size_t(B) * preValues);
      const int I = int(c.inValues());
      if (c.block.conv) {
        const int ckk = c.cin * c.block.kernel * c.block.kernel, hw = c.h * c.w;
        L.weight = m_params.size();
        m_params.push_back({p + ".W", std::vector<double>(std::size_t(c.cout) * ckk),
                            m_store.add(p + ".W gradient", std::size_t(c.cout) * ckk)});
        scratch = std::max({scratch, gemmScratch(false, false, c.cout, hw, ckk),
                            gemmScratch(false, true, c.cout, ckk, hw),
                            gemmScratch(true, false, ckk, hw, c.cout)});
        col = std::max(col, std::size_t(ckk) * hw);
        plane = std::max(plane, std::size_t(B) * preValues);
      } else {
        L.weight = m_params.size();
        m_params.push_back({p + ".W", std::vector<double>(std::size_t(I) * c.cout),
                            m_store.add(p + ".W gradient", std::size_t(I) * c.cout)});
        scratch = std::max({scratch, gemmScratch(true, false, I, c.cout, B),
                            gemmScratch(false, true, B, I, c.cout)});
        if (l + 1 < n)
          plane = std::max(plane, std::size_t(B) * preValues);
      }
      m_params.push_back({p + ".b", std::vector<double>(std::size_t(c.cout)),
                          m_store.add(p + ".b gradient", std::size_t(c.cout))});
      if (c.block.batchNorm) {
        L.bnOut.assign(std::size_t(B) * preValues, 0.0);
        L.bnMean.assign(std::size_t(c.cout), 0.0);
        L.bnRstd.assign(std::size_t(c.cout), 0.0);
      }
      if (c.block.pool)
        L.argmax.assign(std::size_t(B) * std::size_t(c.outValues()), 0);
      if (l > 0)
        dIn = std::max(dIn, std::size_t(B) * std::size_t(I));
    }
    // BatchNorm's parameters follow every layer's W and b, as Cnn::parameters() lists them.
    for (int l = 0; l < n; ++l) {
      const CnnLayer& c = m_layout[std::size_t(l)];
      if (!c.block.batchNorm)
        continue;
      const std::string p = "layer" + std::to_string(l) + ".bn.";
      m_layers[std::size_t(l)].gamma = m_params.size();
      m_params.push_back({p + "gamma", std::vector<double>(std::size_t(c.cout)),
                          m_store.add(p + "gamma gradient", std::size_t(c.cout))});
      m_params.push_back({p + "beta", std::vector<double>(std::size_t(c.cout)),
                          m_store.add(p + "beta gradient", std::size_t(c.cout))});
    }
    m_xs.assign(m_x.size(), 0.0);
    m_scratch.assign(scratch, 0.0);
    m_col.assign(col, 0.0);
    m_dcur.assign(plane, 0.0);
    for (auto& d : m_dIn)
      d.assign(dIn, 0.0);
  }

private:
  struct Layer {
    double* pre = nullptr;
    double* post = nullptr;
    double* dpre = nullptr;
    std::size_t weight = 0; // index of W in m_params; b follows
    std::size_t gamma = 0;  // index of bn.gamma (BatchNorm blocks); beta follows
    std::vector<double> bnOut, bnMean, bnRstd;
    std::vector<std::int32_t> argmax;
  };

  const double* input(int l) const {
    return l == 0 ? m_xs.data() : m_layers[std::size_t(l) - 1].post;
  }

  void loadBatch(const ShadowBatch& batch) override {
    if (batch.inputs.size() != m_x.size())
      throw std::invalid_argument("FP64 reference: the batch's inputs hold " +
                                  std::to_string(batch.inputs.size()) +
                                  " values, the model reads " + std::to_string(m_x.size()));
    checkIds(batch.labels, m_labels.size(), m_layout.back().cout, "labels");
    std::copy(batch.inputs.begin(), batch.inputs.end(), m_x.begin());
    std::copy(batch.labels.begin(), batch.labels.end(), m_labels.begin());
  }

  // col [Cin*k*k, H*W] of one sample's input [Cin, H, W].
  void im2col(const double* in, const CnnLayer& c) {
    const int k = c.block.kernel, pad = k / 2, H = c.h, W = c.w;
    for (int ci = 0; ci < c.cin; ++ci)
      for (int i = 0; i < k; ++i)
        for (int j = 0; j < k; ++j) {
          double* row = m_col.data() + std::size_t((ci * k + i) * k + j) * H * W;
          for (int y = 0; y < H; ++y) {
            const int sy = y + i - pad;
            for (int x = 0; x < W; ++x) {
              const int sx = x + j - pad;
              row[y * W + x] = sy >= 0 && sy < H && sx >= 0 && sx < W
                                   ? in[(std::size_t(ci) * H + sy) * W + sx]
                                   : 0.0;
            }
          }
        }
  }

  // din [Cin, H, W] += the columns of col.
  void col2im(double* din, const CnnLayer& c) const {
    const int k = c.block.kernel, pad = k / 2, H = c.h, W = c.w;
    for (int ci = 0; ci < c.cin; ++ci)
      for (int i = 0; i < k; ++i)
        for (int j = 0; j < k; ++j) {
          const double* row = m_col.data() + std::size_t((ci * k + i) * k + j) * H * W;
          for (int y = 0; y < H; ++y) {
            const int sy = y + i - pad;
            if (sy < 0 || sy >= H)
              continue;
            for (int x = 0; x < W; ++x) {
              const int sx = x + j - pad;
              if (sx >= 0 && sx < W)
                din[(std::size_t(ci) * H + sy) * W + sx] += row[y * W + x];
            }
          }
        }
  }

  double forward() override {
    const int n = int(m_layout.size()), B = m_batch;
    const double mean = m_mean, sd = m_std;
    for (std::size_t i = 0; i < m_x.size(); ++i)
      m_xs[i] = (m_x[i] - mean) / sd;
    for (int l = 0; l < n; ++l) {
      const CnnLayer& c = m_layout[std::size_t(l)];
      auto& L = m_layers[std::size_t(l)];
      const double* W = m_params[L.weight].value.data();
      const double* bias = m_params[L.weight + 1].value.data();
      const double* in = input(l);
      const int I = int(c.inValues());
      if (!c.block.conv) {
        gemm(false, false, B, c.cout, I, in, I, W, c.cout, L.pre, c.cout, false, m_scratch);
        for (int r = 0; r < B; ++r)
          for (int o = 0; o < c.cout; ++o)
            L.pre[std::size_t(r) * c.cout + o] += bias[o];
        touch(L.pre);
        if (l + 1 == n)
          break;
        for (int i = 0; i < B * c.cout; ++i)
          L.post[i] = L.pre[i] > 0.0 ? L.pre[i] : 0.0;
        touch(L.post);
        continue;
      }
      const int hw = c.h * c.w, ckk = c.cin * c.block.kernel * c.block.kernel;
      const std::size_t rowValues = std::size_t(c.cout) * hw;
      for (int b = 0; b < B; ++b) {
        im2col(in + std::size_t(b) * I, c);
        double* y = L.pre + std::size_t(b) * rowValues;
        gemm(false, false, c.cout, hw, ckk, W, ckk, m_col.data(), hw, y, hw, false, m_scratch);
        for (int co = 0; co < c.cout; ++co)
          for (int p = 0; p < hw; ++p)
            y[std::size_t(co) * hw + p] += bias[co];
      }
      touch(L.pre);
      const double* cur = L.pre;
      if (c.block.batchNorm) {
        const double* gamma = m_params[L.gamma].value.data();
        const double* beta = m_params[L.gamma + 1].value.data();
        const double count = double(B) * hw;
        for (int co = 0; co < c.cout; ++co) {
          double s = 0.0;
          for (int b = 0; b < B; ++b)
            for (int p = 0; p < hw; ++p)
              s += L.pre[b * rowValues + std::size_t(co) * hw + p];
          const double mu = s / count;
          double v = 0.0;
          for (int b = 0; b < B; ++b)
            for (int p = 0; p < hw; ++p) {
              const double d = L.pre[b * rowValues + std::size_t(co) * hw + p] - mu;
              v += d * d;
            }
          const double rstd = 1.0 / std::sqrt(v / count + kBatchNormEps);
          L.bnMean[std::size_t(co)] = mu;
          L.bnRstd[std::size_t(co)] = rstd;
          for (int b = 0; b < B; ++b)
            for (int p = 0; p < hw; ++p) {
              const std::size_t i = b * rowValues + std::size_t(co) * hw + p;
              L.bnOut[i] = (L.pre[i] - mu) * rstd * gamma[co] + beta[co];
            }
        }
        cur = L.bnOut.data();
      }
      if (l + 1 == n)
        break;
      if (!c.block.pool) {
        for (std::size_t i = 0; i < std::size_t(B) * rowValues; ++i)
          L.post[i] = cur[i] > 0.0 ? cur[i] : 0.0;
      } else {
        const int Ho = c.ho, Wo = c.wo;
        for (int b = 0; b < B; ++b)
          for (int co = 0; co < c.cout; ++co) {
            const double* src = cur + b * rowValues + std::size_t(co) * hw;
            const std::size_t o0 = (std::size_t(b) * c.cout + co) * Ho * Wo;
            for (int i = 0; i < Ho; ++i)
              for (int j = 0; j < Wo; ++j) {
                int best = (2 * i) * c.w + 2 * j;
                double mx = std::max(src[best], 0.0);
                for (const int q : {(2 * i) * c.w + 2 * j + 1, (2 * i + 1) * c.w + 2 * j,
                                    (2 * i + 1) * c.w + 2 * j + 1}) {
                  const double v = std::max(src[q], 0.0);
                  if (v > mx) {
                    mx = v;
                    best = q;
                  }
                }
                L.post[o0 + std::size_t(i) * Wo + j] = mx;
                L.argmax[o0 + std::size_t(i) * Wo + j] = best;
              }
          }
      }
      touch(L.post);
    }
    auto& last = m_layers.back();
    return softmaxXent(last.pre, m_labels.data(), B, m_layout.back().cout, last.dpre);
  }

  void backward() override {
    const int n = int(m_layout.size()), B = m_batch;
    for (int l = n - 1; l >= 0; --l) {
      const CnnLayer& c = m_layout[std::size_t(l)];
      auto& L = m_layers[std::size_t(l)];
      const double* W = m_params[L.weight].value.data();
      double* dW = m_params[L.weight].grad;
      double* db = m_params[L.weight + 1].grad;
      const int I = int(c.inValues());
      const int hw = c.block.conv ? c.h * c.w : 1;
      const std::size_t rowValues = std::size_t(c.cout) * hw;
      const std::size_t values = std::size_t(B) * rowValues;
      if (l + 1 < n) {
        const double* dpost = m_dIn[std::size_t(l + 1) % 2].data();
        const double* x = c.block.batchNorm ? L.bnOut.data() : L.pre; // ReLU's input
        double* dx = c.block.batchNorm ? m_dcur.data() : L.dpre;      // its gradient
        if (c.block.pool) {
          std::fill(dx, dx + values, 0.0);
          const std::size_t outs = std::size_t(B) * std::size_t(c.outValues());
          const std::size_t planeOut = std::size_t(c.ho) * c.wo;
          for (std::size_t o = 0; o < outs; ++o) {
            const std::size_t at = o / planeOut * hw + std::size_t(L.argmax[o]);
            if (x[at] > 0.0)
              dx[at] = dpost[o];
          }
        } else {
          for (std::size_t i = 0; i < values; ++i)
            dx[i] = x[i] > 0.0 ? dpost[i] : 0.0;
        }
        if (c.block.batchNorm) {
          const double* gamma = m_params[L.gamma].value.data();
          double* dgamma = m_params[L.gamma].grad;
          double* dbeta = m_params[L.gamma + 1].grad;
          const double count = double(B) * hw;
          for (int co = 0; co < c.cout; ++co) {
            const double mu = L.bnMean[std::size_t(co)], rstd = L.bnRstd[std::size_t(co)];
            double sb = 0.0, sg = 0.0;
            for (int b = 0; b < B; ++b)
              for (int p = 0; p < hw; ++p) {
                const std::size_t i = b * rowValues + std::size_t(co) * hw + p;
                sb += dx[i];
                sg += dx[i] * (L.pre[i] - mu) * rstd;
              }
            dgamma[co] = sg;
            dbeta[co] = sb;
            for (int b = 0; b < B; ++b)
              for (int p = 0; p < hw; ++p) {
                const std::size_t i = b * rowValues + std::size_t(co) * hw + p;
                const double xhat = (L.pre[i] - mu) * rstd;
                L.dpre[i] = gamma[co] * rstd * (dx[i] - sb / count - xhat * sg / count);
              }
          }
        }
      }
      std::fill(db, db + c.cout, 0.0);
      for (int b = 0; b < B; ++b)
        for (int co = 0; co < c.cout; ++co)
          for (int p = 0; p < hw; ++p)
            db[co] += L.dpre[b * rowValues + std::size_t(co) * hw + p];
      double* dIn = l > 0 ? m_dIn[std::size_t(l) % 2].data() : nullptr;
      const double* in = input(l);
      if (!c.block.conv) {
        gemm(true, false, I, c.cout, B, in, I, L.dpre, c.cout, dW, c.cout, false, m_scratch);
        if (dIn != nullptr)
          gemm(false, true, B, I, c.cout, L.dpre, c.cout, W, c.cout, dIn, I, false, m_scratch);
        continue;
      }
      const int ckk = c.cin * c.block.kernel * c.block.kernel;
      if (dIn != nullptr)
        std::fill(dIn, dIn + std::size_t(B) * I, 0.0);
      for (int b = 0; b < B; ++b) {
        const double* dy = L.dpre + std::size_t(b) * rowValues;
        im2col(in + std::size_t(b) * I, c);
        gemm(false, true, c.cout, ckk, hw, dy, hw, m_col.data(), hw, dW, ckk, b > 0, m_scratch);
        if (dIn == nullptr)
          continue;
        gemm(true, false, ckk, hw, c.cout, W, ckk, dy, hw, m_col.data(), hw, false, m_scratch);
        col2im(dIn + std::size_t(b) * I, c);
      }
    }
  }

  std::span<Param> params() override { return m_params; }

  std::vector<CnnLayer> m_layout;
  int m_batch;
  double m_mean, m_std;
  std::vector<double> m_x, m_xs;
  std::vector<std::int32_t> m_labels;
  std::vector<Layer> m_layers;
  std::vector<Param> m_params;
  std::vector<double> m_scratch; // the products' transposed operands
  std::vector<double> m_col;     // [Cin*k*k, H*W] one sample's columns (or their gradient)
  std::vector<double> m_dcur;    // [B, C*H*W] gradient of a BatchNorm's output
  std::vector<double> m_dIn[2];  // layer l's input gradient in [l % 2], read by layer l - 1
};

} // namespace

std::unique_ptr<Reference64> makeCnnReference(const Cnn& model) {
  return std::make_unique<CnnReference>(model);
}

} // namespace mantissa::model::ref64
