// File: reference/odeformer/block.h
// -----------------------------------------------------------------------------
// The parallel GPT-2 block at fixed weights, forward with its activations and
// the hand-derived backward; shared by the model (odeformer.cpp), its
// gradient (odeformer_backward.cpp) and the Jacobian (jacobian.cpp). Internal
// to reference/odeformer.
//
//   a = LN(x; ln_a)      qkv = a W_qkv^T + b_qkv         [N, 3D]
//   per head h: s_tu = q_t . k_u / sqrt(d), u <= t; p = softmax_u s; o_t = sum_u p_tu v_u
//   attn = o W_o^T + b_o
//   m = LN(x; ln_m)      u = m W_fc^T + b_fc  [N, I];  g = gelu(u);  mlp = g W_p^T + b_p
//   F = attn + mlp
#ifndef CB_REFERENCE_ODEFORMER_BLOCK_H_
#define CB_REFERENCE_ODEFORMER_BLOCK_H_

#include <span>
#include <vector>

#include "reference/odeformer/odeformer.h"

namespace cb::ref::odeformer::internal {

struct LayerNormActs {
  std::vector<double> xhat;  // [N, D] normalised input
  std::vector<double> rstd;  // [N]    1 / sqrt(var + eps)
};

struct BlockActs {
  LayerNormActs ln_a, ln_m;
  std::vector<double> a, m;     // [N, D] LayerNorm outputs
  std::vector<double> qkv;      // [N, 3D]
  std::vector<double> probs;    // [H, N, N] (row t: keys u <= t; the rest 0)
  std::vector<double> o;        // [N, D] heads concatenated
  std::vector<double> u, g;     // [N, I] pre- and post-GELU
};

// y [N, D] = gamma * (x - mean) / sqrt(var + eps) + beta per row (biased var).
void LayerNormForward(std::span<const double> x, int n, int d, std::span<const double> gamma,
                      std::span<const double> beta, double eps, std::vector<double>& y,
                      LayerNormActs* acts);
// dx += LayerNorm backward; dgamma, dbeta += (may be empty to skip).
void LayerNormBackward(std::span<const double> dy, const LayerNormActs& acts, int n, int d,
                       std::span<const double> gamma, std::span<double> dx,
                       std::span<double> dgamma, std::span<double> dbeta);

// F [N, D]; `acts` (optional) receives what BlockBackward needs.
std::vector<double> BlockForward(const OdeConfig& c, const BlockWeights& w,
                                 std::span<const double> x, int n, BlockActs* acts);

// Given dF [N, D]: dx += dF^T dF/dx, and the weight gradients (same layout
// as BlockWeights, sized by the caller; accumulated).
void BlockBackward(const OdeConfig& c, const BlockWeights& w, const BlockActs& acts,
                   std::span<const double> dF, int n, std::span<double> dx, BlockWeights& dw);

BlockWeights ZeroBlockWeights(const OdeConfig& c);

}  // namespace cb::ref::odeformer::internal

#endif  // CB_REFERENCE_ODEFORMER_BLOCK_H_
