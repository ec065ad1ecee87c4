// File: reference/odeformer/jacobian.h
// -----------------------------------------------------------------------------
// The analytic Jacobian of the vector field's output row j with respect to
// every input row k, J_k = dF(t, X)_j / dx_k [D, D], which
// analysis/lyapunov.py (compute_jacobian) gets from jax.jacrev. With
// a = LN^a(X), m = LN^m(X), per head h (d = head size, s = 1/sqrt(d)):
//
//   do^h_j/da_k = p_jk W_v^h + s p_jk (v_k - o_j)(W_k^hT q_j)^T
//                 + [k = j] s sum_w p_jw (v_w - o_j)(W_q^hT k_w)^T        [d, D]
//   J_k = (sum_h W_o^h do^h_j/da_k) P^a_k + [k = j] W_p diag(gelu'(u_j)) W_fc P^m_j
//   P_k = dLN(x_k)/dx_k = diag(gamma) rstd_k (I - 1 1^T / D - xhat_k xhat_k^T / D)
//
// J_k = 0 for k > j (causal). Checked against central differences in
// suites/odeformer/odeformer_reference_test.cpp.
#ifndef CB_REFERENCE_ODEFORMER_JACOBIAN_H_
#define CB_REFERENCE_ODEFORMER_JACOBIAN_H_

#include <span>
#include <vector>

#include "reference/odeformer/odeformer.h"

namespace cb::ref::odeformer {

// J [N, D, D] row-major: J[(k*D + a)*D + b] = dF_j[a] / dx_k[b].
// REQUIRES: 0 <= j < n; x is [n, D].
std::vector<double> RowJacobian(const OdeConfig& config, const BlockWeights& w,
                                std::span<const double> x, int n, int j);

}  // namespace cb::ref::odeformer

#endif  // CB_REFERENCE_ODEFORMER_JACOBIAN_H_
