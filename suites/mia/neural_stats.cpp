// File: suites/mia/neural_stats.cpp
// Per-token statistics of a substrate transformer (neural_stats.h).
#include "suites/mia/neural_stats.h"

#include <stdexcept>
#include <string>

#include "suites/lm/cuda_transformer.h"
#include "suites/mia/score_kernel.h"

namespace cb::mia {

namespace h = cb::harness;

struct NeuralScorer::Gpu {
#if CB_HAVE_CUDA
  explicit Gpu(const cb::lm_suite::CpuTransformer& m) : model(m) {}
  cb::lm_suite::CudaTransformer model;
#endif
};

NeuralScorer::NeuralScorer(const cb::lm_suite::CpuTransformer& model, h::Backend backend)
    : model_(model), backend_(backend) {
  if (backend == h::Backend::kCuda) {
    const h::BackendStatus st = h::Availability(h::Backend::kCuda);
    if (!st.ok) throw std::runtime_error("neural scorer: cuda unavailable: " + st.reason);
#if CB_HAVE_CUDA
    gpu_ = std::make_unique<Gpu>(model);
#endif
  }
}

NeuralScorer::~NeuralScorer() = default;

TokenStats NeuralScorer::Score(std::span<const int> ids) const {
  if (ids.size() < 2)
    throw std::invalid_argument("neural scorer: a text of " + std::to_string(ids.size()) +
                                " tokens has no scored position (need >= 2)");
  const int V = model_.config().vocab_size;
  std::vector<float> logits;  // [T, V]
#if CB_HAVE_CUDA
  if (gpu_) logits = gpu_->model.Forward(ids);
#endif
  if (logits.empty()) logits = model_.Forward(ids);
  const int64_t rows = static_cast<int64_t>(ids.size()) - 1;  // the last row predicts nothing
  std::vector<int32_t> targets(ids.begin() + 1, ids.end());    // (T - 1)
  const PositionScores p = ScorePositions(backend_, {logits.data(), rows, V, LogitType::kF32}, targets);
  TokenStats s;
  s.ll.assign(p.logp.begin(), p.logp.end());
  s.mu.assign(p.mu.begin(), p.mu.end());
  s.sigma2.assign(p.sigma2.begin(), p.sigma2.end());
  return s;
}

}  // namespace cb::mia
