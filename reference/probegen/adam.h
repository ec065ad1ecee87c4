// File: reference/probegen/adam.h
// -----------------------------------------------------------------------------
// The optimiser of ProbeGen's training (main.py@4872aa7): torch.optim.Adam
// with its defaults (betas 0.9, 0.999, eps 1e-8, no weight decay) and
// CosineAnnealingLR stepped once per batch over epochs * batches_per_epoch
// steps, eta_min 0:
//   lr_t = lr * (1 + cos(pi * t / T)) / 2           (t = 0 for the first step)
//   m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2
//   p -= lr_t * (m / (1 - b1^s)) / (sqrt(v / (1 - b2^s)) + eps)   (s = t + 1)
#ifndef CB_REFERENCE_PROBEGEN_ADAM_H_
#define CB_REFERENCE_PROBEGEN_ADAM_H_

#include <cstdint>
#include <span>
#include <vector>

namespace cb::ref::probegen {

// REQUIRES: total_steps >= 1, step >= 0 (else std::invalid_argument).
double CosineLr(double lr, int64_t step, int64_t total_steps);

// One Adam state per parameter tensor.
class Adam {
 public:
  explicit Adam(double beta1 = 0.9, double beta2 = 0.999, double eps = 1e-8)
      : beta1_(beta1), beta2_(beta2), eps_(eps) {}
  // Updates p in place from g with learning rate lr; `slot` names the
  // tensor (its moments are created, zero, on first use); `step` is the
  // 0-based step count shared by all tensors.
  // REQUIRES: p.size() == g.size(), the same size every call for a slot.
  void Update(int slot, std::span<double> p, std::span<const double> g, double lr, int64_t step);

 private:
  double beta1_, beta2_, eps_;
  std::vector<std::vector<double>> m_, v_;
};

}  // namespace cb::ref::probegen

#endif  // CB_REFERENCE_PROBEGEN_ADAM_H_
