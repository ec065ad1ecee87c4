// File: reference/odeformer/spectral.h
// -----------------------------------------------------------------------------
// The spectral analysis of SDML-KU/qkvflow (analysis/spectral.py at a3f15470)
// on the weights at t_i = i dt:
//   QK  per head h: W_Q^hT W_K^h   [D, D]  (q.dot(k) over head_size)
//   OV  per head h: W_V^hT W_O^hT  [D, D]  (vmap(matmul)(w_v, w_o))
//   FF  W_fc^T W_p^T               [D, D]  (ff1 @ ff2)
// with W [out, in] as stored here (so W_Q^h is rows h*d.. of c_attn's q
// part, W_O^h columns h*d.. of c_proj). Eigenvalues by LAPACK dgeev (what
// jnp.linalg.eig calls on CPU), then sorted as numpy sorts complex numbers
// (by real part, ties by imaginary part), and the code then stores them in a
// real array, which DROPS the imaginary parts: `real` is that row; `imag` and
// `magnitude` are kept beside it.
//
// Two differences from the authors' file, both because it cannot run as
// written: _get_weight reads `block.time_embeding`, which Block lacks, and
// applies f_W to the raw time features; here W(t) is what the forward pass
// uses (the module's own hypernetwork, then f_W). t = i dt as spectral.py.
#ifndef CB_REFERENCE_ODEFORMER_SPECTRAL_H_
#define CB_REFERENCE_ODEFORMER_SPECTRAL_H_

#include <span>
#include <vector>

#include "reference/odeformer/odeformer.h"

namespace cb::ref::odeformer {

struct Spectrum {
  std::vector<double> real;       // [D] the code's row: sorted, imaginary parts dropped
  std::vector<double> imag;       // [D] the dropped parts, same order
  std::vector<double> magnitude;  // [D] |lambda|, same order
};

// Eigenvalues of a general real m [D, D] (row-major). Throws std::runtime_error
// when dgeev does not converge.
Spectrum Eigenvalues(std::span<const double> m, int D);

// Singular values of a [rows, cols] (row-major), descending (LAPACK dgesvd).
std::vector<double> SingularValues(std::span<const double> a, int rows, int cols);
// Number of singular values > rel_tol * the largest.
int NumericalRank(std::span<const double> a, int rows, int cols, double rel_tol = 1e-10);

// The three products at one time.
std::vector<double> QkMatrix(const OdeConfig& c, const BlockWeights& w, int head);  // [D, D]
std::vector<double> OvMatrix(const OdeConfig& c, const BlockWeights& w, int head);  // [D, D]
std::vector<double> FfMatrix(const OdeConfig& c, const BlockWeights& w);            // [D, D]

struct StepSpectra {
  double t = 0;
  std::vector<Spectrum> qk, ov;  // [H]
  Spectrum ff;
};
// At t_i = i / steps for i < steps (steps 0: config().num_steps).
std::vector<StepSpectra> ModelSpectra(const OdeTransformer& model, int steps = 0);

}  // namespace cb::ref::odeformer

#endif  // CB_REFERENCE_ODEFORMER_SPECTRAL_H_
