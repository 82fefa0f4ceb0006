// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 The Mantissa authors
#pragma once

// The FP64 references of the shadow pass (model/shadow_reference.h): the
// MLP, the CNN and the GPT written again in double from their definitions,
// with the parts they share.
//
// Products: gemm() below, a row-major double GEMM built for AVX-512, AVX2
// and baseline x86-64 (picked at load time) and split over the OpenMP team
// by rows. (Eigen at the library's baseline flags multiplies doubles with
// SSE2 only, about 12 GFLOP/s on this machine against 30-35 for the
// AVX-512 build of this kernel, one thread; compiling Eigen with wider ISA flags in one file
// would let the linker pick those builds of its shared inline functions
// for the other files too.)
//
// Every buffer is allocated when a reference is built; run() does not
// allocate.

#include <mantissa/model/network.h>
#include <mantissa/model/shadow_reference.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

namespace mantissa::model {
class Mlp;
class Cnn;
class GptNetwork;
} // namespace mantissa::model

namespace mantissa::model::ref64 {

// C[M,N] = op(A) . op(B) (+ C when accumulate), all row-major with leading
// dimensions lda, ldb, ldc. op(A) is [M,K]: A stored [M, lda] or, transA,
// [K, lda] read transposed; op(B) is [K,N]: B stored [K, ldb] or, transB,
// [N, ldb] (A is read transposed in place; a transposed B is copied into
// `scratch` first, or the product computed as C^T = B . A^T), which
// must hold gemmScratch() values. parallel: split the rows
// over the OpenMP team when the product is large enough.
void gemm(bool transA, bool transB, int M, int N, int K, const double* A, int lda, const double* B,
          int ldb, double* C, int ldc, bool accumulate, std::span<double> scratch,
          bool parallel = true);

// The scratch values gemm() needs for that product.
std::size_t gemmScratch(bool transA, bool transB, int M, int N, int K);

// Threads a reference splits its loops over (the OpenMP team's size).
int threads();

// Calls fn(thread, i) for every i in [0, n), spread over at most
// maxThreads threads of the OpenMP team (thread in [0, maxThreads)), or on
// the calling thread (thread 0).
using IndexFn = void (*)(void* context, int thread, int i);
void parallelFor(int n, IndexFn fn, void* context, int maxThreads);
template <class F> void parallelFor(int n, F&& f, int maxThreads = threads()) {
  parallelFor(
      n, [](void* c, int t, int i) { (*static_cast<std::remove_reference_t<F>*>(c))(t, i); }, &f,
      maxThreads);
}

// GELU, tanh form (nn/activation.h): x s with s = 0.5 (1 + tanh(a)),
// a = sqrt(2/pi) (x + 0.044715 x^3), and its derivative, from x or from x and s.
double geluSigmoid(double x); // s
double gelu(double x);
double geluGrad(double x);
double geluGradFrom(double x, double s);

// Calls fn(begin, end) for pieces of [0, n) of `piece` items over the OpenMP team.
template <class F> void forPieces(std::size_t n, F&& f, std::size_t piece = 8192) {
  const int pieces = int((n + piece - 1) / piece);
  parallelFor(pieces, [&](int, int i) {
    const std::size_t b = std::size_t(i) * piece;
    f(b, std::min(n, b + piece));
  });
}

// Mean softmax cross-entropy over `rows` rows of `logits` [rows, classes],
// and its gradient (probs - onehot) / rows into dlogits. Labels are checked
// by the caller.
double softmaxXent(const double* logits, const std::int32_t* labels, int rows, int classes,
                   double* dlogits);

// The named tensors of a reference, allocated once.
class TensorStore {
public:
  // A new zero tensor of `count` values (building only).
  double* add(const std::string& name, std::size_t count);
  std::span<double> get(std::string_view name);
  std::span<const double> find(std::string_view name) const; // empty when unknown

private:
  // Looked up by string_view without a std::string.
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::vector<std::vector<double>> m_values;
  std::unordered_map<std::string, std::size_t, Hash, std::equal_to<>> m_index;
};

// One parameter of a reference: its values in double and its gradient
// (the store's "<name> gradient").
struct Param {
  std::string name;
  std::vector<double> value;
  double* grad = nullptr;
};

// Copies the run's FP32 parameters into `params` by name. Throws
// std::invalid_argument naming a parameter the run lacks or whose size differs.
void loadParameters(std::span<Param> params, std::span<const Parameter> run);

// A reference: run() copies the batch and the weights, then runs forward
// and backward; the finite-difference tests read its forward loss again
// with one value of one tensor moved.
class Reference64 : public ShadowReference {
public:
  void run(const ShadowBatch& batch) final;
  std::span<const double> tensor(std::string_view name) const override {
    return m_store.find(name);
  }
  std::string precision() const override { return "FP64"; }
  // The mean loss of the last run's batch and weights, with `delta` added
  // to value `index` of `name` (a parameter, or a forward tensor as soon as
  // it is computed, before the ops after it read it). Overwrites the forward
  // tensors of the last run and the loss's gradient of the logits. Throws std::invalid_argument for
  // an unknown name or an index out of range.
  double perturbedLoss(std::string_view name, std::size_t index, double delta);
  // The mean loss of the last run().
  double loss() const { return m_loss; }

protected:
  // Copies the batch into the reference's own buffers, checking its sizes
  // and labels (std::invalid_argument naming the field).
  virtual void loadBatch(const ShadowBatch& batch) = 0;
  virtual double forward() = 0; // the mean loss; fills the forward tensors
  virtual void backward() = 0;  // after forward(): every gradient
  virtual std::span<Param> params() = 0;

  // After `buffer` is computed in forward(): adds the perturbation's delta
  // when it is this buffer's.
  void touch(double* buffer) const {
    if (buffer == m_perturb.buffer)
      buffer[m_perturb.index] += m_perturb.delta;
  }

  TensorStore m_store;

private:
  struct Perturbation {
    const double* buffer = nullptr;
    std::size_t index = 0;
    double delta = 0.0;
  };
  Perturbation m_perturb;
  double m_loss = 0.0;
};

// Checks a batch's labels against `classes` and its size against `count`:
// std::invalid_argument naming the field ("labels", "tokens").
void checkIds(std::span<const std::int32_t> ids, std::size_t count, int classes, const char* field);

// Builders, one per model (reference64_mlp.cpp, _cnn.cpp, _gpt.cpp).
std::unique_ptr<Reference64> makeMlpReference(const model::Mlp& model);
std::unique_ptr<Reference64> makeCnnReference(const model::Cnn& model);
std::unique_ptr<Reference64> makeGptReference(const model::GptNetwork& model);

} // namespace mantissa::model::ref64
