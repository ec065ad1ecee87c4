// File: reference/odeformer/hypernet.h
// -----------------------------------------------------------------------------
// The per-module hypernetworks of the neural-ODE transformer (odeformer.h):
// h = lin2(silu(lin1 s(t))), a Linear's W(t) = fw_b + fw_w h and b(t) = fb h,
// a LayerNorm's gamma(t) = 1 + fw h and beta(t) = fb h; and their backward
// (from the gradient of the weights at t to the hypernetwork's parameters).
// Internal to reference/odeformer.
#ifndef CB_REFERENCE_ODEFORMER_HYPERNET_H_
#define CB_REFERENCE_ODEFORMER_HYPERNET_H_

#include <span>
#include <vector>

#include "reference/odeformer/odeformer.h"

namespace cb::ref::odeformer::internal {

// h [T] of time features s [2S+1].
std::vector<double> HyperForward(const HyperNet& net, std::span<const double> s);

void LinearAt(const TemporalLinear& l, std::span<const double> s, std::vector<double>& w,
              std::vector<double>& b);
void NormAt(const TemporalLayerNorm& l, std::span<const double> s, std::vector<double>& gamma,
            std::vector<double>& beta);

// Accumulate into `g` (same shapes as `l`) the gradient of the weights at
// time features s: dW [out*in], db [out].
void LinearBackward(const TemporalLinear& l, std::span<const double> s, std::span<const double> dw,
                    std::span<const double> db, TemporalLinear& g);
void NormBackward(const TemporalLayerNorm& l, std::span<const double> s,
                  std::span<const double> dgamma, std::span<const double> dbeta,
                  TemporalLayerNorm& g);

}  // namespace cb::ref::odeformer::internal

#endif  // CB_REFERENCE_ODEFORMER_HYPERNET_H_
