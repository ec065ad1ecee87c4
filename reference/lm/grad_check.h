// File: reference/lm/grad_check.h
// -----------------------------------------------------------------------------
// Finite-difference check of the reference transformer's hand-derived
// gradients (transformer_backward.cpp), in fp64, tensor by tensor. Used by
// the tests (reference/lm/transformer_test.cpp) and by claim lm.L1.
//
// The derivative of the loss in each weight w_i is estimated by Richardson's
// extrapolation of two central differences (the five-point stencil):
//   D(h)  = (L(w_i + h) - L(w_i - h)) / 2h,
//   fd_i  = (4 D(h) - D(2h)) / 3                 (error O(h^4) instead of O(h^2)).
// With h = 1e-4 and a loss of order 1, rounding (~1.5 eps |L| / h ~ 1e-11)
// dominates truncation (~h^4 f^(5) / 30). h = 1e-3 is too coarse here: the
// embeddings enter RMSNorm at norm ~0.3 and their fd error showed the h^4
// truncation term up to ~2e-7 relative (measured over seeds); at 1e-4 every
// tensor measured <= ~2e-10.
//
// Error of a tensor g (its hand-derived gradient) against fd, the infinity-
// norm relative error:
//   rel(g) = max_i |g_i - fd_i| / max(max_i |fd_i|, 1e-8).
// Not the elementwise |g_i - fd_i| / |fd_i|: an element whose true gradient is
// ~1e-9 has an fd estimate dominated by the ~1e-12 rounding floor, so the
// elementwise ratio measures rounding, not the backward pass.
#ifndef CB_REFERENCE_LM_GRAD_CHECK_H_
#define CB_REFERENCE_LM_GRAD_CHECK_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "reference/lm/transformer.h"

namespace cb::ref::lm {

struct TensorGradError {
  std::string name;
  int64_t size = 0;           // elements checked (all of them)
  double max_abs_diff = 0;    // max_i |g_i - fd_i|
  double max_abs_fd = 0;      // max_i |fd_i|
  double rel_error = 0;       // max_abs_diff / max(max_abs_fd, 1e-8)
  int64_t worst_index = 0;    // the i of max_abs_diff
};

struct GradCheckReport {
  std::vector<TensorGradError> tensors;  // one per weight tensor, in name order
  double max_rel_error = 0;              // over all tensors
  std::string worst_tensor;
  int64_t loss_evaluations = 0;
};

// Compares `grads` (by name, as Transformer::Backward returns them) with the
// five-point finite differences of `loss` over every element of every weight
// of `model`; `loss` is called on a Transformer rebuilt from the perturbed
// weights. REQUIRES: grads has exactly the model's names and shapes (throws
// std::invalid_argument naming the first that differs); step > 0.
GradCheckReport CheckGradients(const Transformer& model, const NamedTensors& grads,
                               const std::function<double(const Transformer&)>& loss,
                               double step = 1e-4);

}  // namespace cb::ref::lm

#endif  // CB_REFERENCE_LM_GRAD_CHECK_H_
