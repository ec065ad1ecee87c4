// File: suites/mia/neural_stats.h
// -----------------------------------------------------------------------------
// Min-K%++'s per-token statistics (brief §1 step 2) from a trained transformer
// of the substrate (suites/lm): one forward pass per text gives logits [T, V];
// the scoring kernel (score_kernel.h) turns row t = 0..T-2 with target
// ids[t + 1] into
//   ll_t = log p(x_{t+1} | x_<=t),  mu_t = sum_v p log p,
//   sigma2_t = sum_v p (log p)^2 - mu_t^2
// over the whole vocabulary (§0: the first token is never scored, n = T - 1).
//
// Backends: kCpu runs the fp32 CPU forward (cpu_transformer.h) and the CPU
// kernel; kCuda the CUDA forward (cuda_transformer.h) and the CUDA kernel
// (mia.cu). The fp32 logits feed the kernel directly; its sums are fp64
// (CPU) or fp64 block reductions (CUDA), as score_kernel.h says.
//
// Usage:
//   NeuralScorer scorer(model, Backend::kCpu);   // model must outlive scorer
//   TokenStats s = scorer.Score(ids);             // ids.size() >= 2
//
// Errors: fewer than 2 ids, an id outside the vocabulary or a text longer than
// max_position_embeddings: std::invalid_argument (one line); kCuda where it is
// unavailable: std::runtime_error with the backend's reason.
#ifndef CB_SUITES_MIA_NEURAL_STATS_H_
#define CB_SUITES_MIA_NEURAL_STATS_H_

#include <memory>
#include <span>
#include <vector>

#include "harness/backend.h"
#include "suites/lm/cpu_transformer.h"

namespace cb::mia {

struct TokenStats {
  std::vector<double> ll, mu, sigma2;  // (T - 1) each
};

class NeuralScorer {
 public:
  NeuralScorer(const cb::lm_suite::CpuTransformer& model, cb::harness::Backend backend);
  ~NeuralScorer();
  NeuralScorer(const NeuralScorer&) = delete;
  NeuralScorer& operator=(const NeuralScorer&) = delete;

  TokenStats Score(std::span<const int> ids) const;
  // Only ll (the same forward pass and kernel; mu and sigma2 discarded).
  std::vector<double> LogProbs(std::span<const int> ids) const { return Score(ids).ll; }
  cb::harness::Backend backend() const { return backend_; }

 private:
  struct Gpu;  // the CUDA model, when backend is kCuda
  const cb::lm_suite::CpuTransformer& model_;
  cb::harness::Backend backend_;
  std::unique_ptr<Gpu> gpu_;
};

}  // namespace cb::mia

#endif  // CB_SUITES_MIA_NEURAL_STATS_H_
