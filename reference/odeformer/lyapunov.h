// File: reference/odeformer/lyapunov.h
// -----------------------------------------------------------------------------
// Lyapunov exponents "as implemented" by SDML-KU/qkvflow
// (analysis/lyapunov.py, compute_lyapunov_exponent, at a3f15470): for the
// output row j (the last token) and every input token k, Q_k = I, then at each
// step i
//   J_k  = dF(i dt, X^(i))_j / dx_k      X^(i): the state AFTER step i + 1
//   Q_k, R_k = QR(Q_k + dt J_k Q_k)       (Householder, as numpy / LAPACK)
//   lambda[i, k, :] = ln |diag R_k|
// and a token's score is max_d sum_i lambda[i, k, d]. Not a textbook
// Lyapunov spectrum: the tangent map of token k is I + dt J_k, the identity
// added even though x_k's own update is not part of row j's flow, and the
// Jacobian is taken at the state after the step with the weights of t = i dt
// while that step used (i + 1) dt. Tokens after j have J_k = 0 and so
// lambda = 0.
#ifndef CB_REFERENCE_ODEFORMER_LYAPUNOV_H_
#define CB_REFERENCE_ODEFORMER_LYAPUNOV_H_

#include <functional>
#include <span>
#include <vector>

#include "reference/odeformer/odeformer.h"

namespace cb::ref::odeformer {

// Householder QR of a [D, D] (row-major) in place: `a` becomes Q, `r_diag`
// R's diagonal (LAPACK dgeqrf's signs: R_cc = -sign(a_cc) ||a[c:, c]||, or a_cc itself
// when the column below the diagonal is already zero).
void HouseholderQr(std::vector<double>& a, int D, std::vector<double>& r_diag);

struct LyapunovResult {
  int steps = 0, tokens = 0, dim = 0;
  std::vector<double> lambda;  // [steps, tokens, dim]
  std::vector<double> score;   // [tokens]: max_d sum_i lambda[i, k, d]
};

// score[k] = max_d sum_i lambda[i, k, d] of a result's lambda.
std::vector<double> TokenScores(const LyapunovResult& r);

// The QR iteration for any Jacobians: jacobians(i) returns [tokens, dim, dim]
// (J_k of step i, row-major).
LyapunovResult LyapunovQr(int steps, int tokens, int dim, double dt,
                          const std::function<std::vector<double>(int step)>& jacobians);

// The model's: X^(i) from Trajectory(x_0, steps, kForward), J at WeightsAt(i dt),
// output row j (-1: the last token). steps 0: config().num_steps.
LyapunovResult ModelLyapunov(const OdeTransformer& model, std::span<const int> tokens, int j = -1,
                             int steps = 0);

}  // namespace cb::ref::odeformer

#endif  // CB_REFERENCE_ODEFORMER_LYAPUNOV_H_
