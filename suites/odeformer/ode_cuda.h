// File: suites/odeformer/ode_cuda.h
// -----------------------------------------------------------------------------
// Host-only declarations of the neural-ODE transformer's CUDA path (ode.cu),
// called by the dispatch in ode_backend.cpp with fp64 host arrays. The device
// computes in fp64 too, so it is held to the reference at 1e-9 relative.
// Every function throws cb::harness::CudaError on a CUDA failure.
//
// What runs on the device: each step's weights W(t) = fw_b + fw_w h(t)
// (the hypernetworks' outputs h(t), T numbers per module, come from the
// host), the parallel block and the Euler update of the time-dependent
// forward; for the Lyapunov analysis the row Jacobians of all tokens and the
// batched Householder QR of Q + dt J Q, one thread block per token.
#ifndef CB_SUITES_ODEFORMER_ODE_CUDA_H_
#define CB_SUITES_ODEFORMER_ODE_CUDA_H_

#if CB_HAVE_CUDA
#include <vector>

namespace cb::odeformer::cuda {

struct Shape {
  int n = 0;   // tokens
  int D = 0;   // hidden size
  int H = 0;   // heads
  int I = 0;   // MLP width
  int T = 0;   // hypernetwork width
  double eps = 1e-5;
};

// One module's tables: rows = fw [rows, T] with base fw_b [rows] (nullptr: a
// LayerNorm's constant 1), bias = fb [bias_rows, T]. Order of the six
// modules: attn_ln, c_attn, attn c_proj, mlp_ln, c_fc, mlp c_proj.
struct ModuleTables {
  const double* fw = nullptr;
  const double* fw_b = nullptr;
  const double* fb = nullptr;
  int rows = 0, bias_rows = 0;
};
inline constexpr int kModules = 6;

// hyper[i] holds step i's h for the six modules, [6 * T].
// x [n, D] is integrated in place over hyper.size() Euler steps of size dt;
// trajectory (optional) receives the state after every step.
void IntegrateForward(const Shape& s, const ModuleTables (&modules)[kModules],
                      const std::vector<std::vector<double>>& hyper, double dt, std::vector<double>& x,
                      std::vector<std::vector<double>>* trajectory);

// The as-implemented Lyapunov iteration (reference/odeformer/lyapunov.h):
// states[i] is the state at which step i's Jacobian of row j is taken and
// hyper[i] the h of its weights. lambda [steps, n, D].
void Lyapunov(const Shape& s, const ModuleTables (&modules)[kModules],
              const std::vector<std::vector<double>>& hyper, const std::vector<std::vector<double>>& states,
              double dt, int j, std::vector<double>& lambda);

}  // namespace cb::odeformer::cuda
#endif

#endif  // CB_SUITES_ODEFORMER_ODE_CUDA_H_
