// File: suites/ibedl/evidential_loss.h
// -----------------------------------------------------------------------------
// The evidential loss of a batch and its gradient with respect to the head's
// inputs (mu and the raw tail logits), on a backend: the fp32 inputs the
// fine-tuning reads off the logits, the same eps buffer [B, J, K] for every
// backend (drawn on the host), the loss of reference/ibedl/evidential.h.
//   cpu:  the fp64 reference itself (inputs widened).
//   cuda: evidential_loss.cu, one thread per example in fp32 (softplus, psi,
//         psi', lgamma on the device), per-example losses summed on the host
//         in example order (fp64), so the result is deterministic.
// Agreement (evidential_loss_test.cpp, fresh random inputs): loss relative
// 1e-5, each gradient tensor max|got - ref| / max|ref| <= 1e-4.
// THE CUDA PATH HAS NEVER RUN ON A GPU (no device where it was written); its
// test SKIPs without one.
//
// Errors: as the reference (std::invalid_argument); an unavailable backend
// throws from RequireAvailable.
#ifndef CB_SUITES_IBEDL_EVIDENTIAL_LOSS_H_
#define CB_SUITES_IBEDL_EVIDENTIAL_LOSS_H_

#include <span>
#include <vector>

#include "harness/backend.h"
#include "reference/ibedl/evidential.h"

namespace cb::ibedl {

struct BatchLoss {
  double loss = 0;
  std::vector<double> dmu, dtail;  // [B, K]
};

BatchLoss EvidentialLossAndGrad(cb::harness::Backend backend, const cb::ref::ibedl::LossConfig& config, int B,
                                int K, std::span<const float> mu, std::span<const float> tail,
                                std::span<const int> labels, std::span<const float> eps);

#if CB_HAVE_CUDA
// evidential_loss.cu; inputs validated by the dispatcher.
BatchLoss EvidentialLossAndGradCuda(const cb::ref::ibedl::LossConfig& config, int B, int K,
                                    std::span<const float> mu, std::span<const float> tail,
                                    std::span<const int> labels, std::span<const float> eps);
#endif

}  // namespace cb::ibedl

#endif  // CB_SUITES_IBEDL_EVIDENTIAL_LOSS_H_
