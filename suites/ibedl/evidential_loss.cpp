// File: suites/ibedl/evidential_loss.cpp
// Backend dispatch of the batch evidential loss (evidential_loss.h).
#include "suites/ibedl/evidential_loss.h"

#include <stdexcept>
#include <string>

namespace cb::ibedl {

namespace ri = cb::ref::ibedl;

BatchLoss EvidentialLossAndGrad(cb::harness::Backend backend, const ri::LossConfig& c, int B, int K,
                                std::span<const float> mu, std::span<const float> tail,
                                std::span<const int> labels, std::span<const float> eps) {
  cb::harness::RequireAvailable(backend);
  const size_t BK = size_t(B) * K;
  if (B < 1 || K < 2 || K > 16 || mu.size() != BK || tail.size() != BK || labels.size() != size_t(B) ||
      (c.vib && (c.draws < 1 || eps.size() != BK * c.draws)))
    throw std::invalid_argument("ibedl loss: mu, tail [B, K] (2 <= K <= 16), labels [B], eps [B, J, K]");
  for (int y : labels)
    if (y < 0 || y >= K) throw std::invalid_argument("ibedl loss: label " + std::to_string(y) + " outside [0, K)");
  if (backend == cb::harness::Backend::kCuda) {
#if CB_HAVE_CUDA
    return EvidentialLossAndGradCuda(c, B, K, mu, tail, labels, eps);
#else
    throw std::runtime_error("ibedl loss: built without CUDA");
#endif
  }
  const std::vector<double> m(mu.begin(), mu.end()), t(tail.begin(), tail.end()), e(eps.begin(), eps.end());
  BatchLoss out;
  out.dmu.resize(BK);
  out.dtail.resize(BK);
  out.loss = ri::EvidentialLoss(c, B, K, m, t, labels, e, out.dmu.data(), out.dtail.data());
  return out;
}

}  // namespace cb::ibedl
