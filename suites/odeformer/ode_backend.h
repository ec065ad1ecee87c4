// File: suites/odeformer/ode_backend.h
// -----------------------------------------------------------------------------
// The neural-ODE transformer's heavy parts on a chosen backend (DESIGN §3):
// the time-dependent forward (weights W(t) generated and the block run at
// every Euler step) and the as-implemented Lyapunov analysis (row Jacobians
// of every token and the QR iteration). kCpu is the fp64 reference itself
// (reference/odeformer); kCuda is ode.cu in fp64, held to the reference at
// kCudaRelTolerance. The hypernetworks' small MLPs (h(t), T numbers per
// module and step) run on the host for both.
//
// Errors: an unavailable backend throws as harness::RequireAvailable does;
// bad shapes throw std::invalid_argument; a CUDA failure throws CudaError.
#ifndef CB_SUITES_ODEFORMER_ODE_BACKEND_H_
#define CB_SUITES_ODEFORMER_ODE_BACKEND_H_

#include <span>
#include <vector>

#include "harness/backend.h"
#include "reference/odeformer/lyapunov.h"
#include "reference/odeformer/odeformer.h"

namespace cb::odeformer {

// fp64 on both sides; only the order of the sums differs.
inline constexpr double kCudaRelTolerance = 1e-9;

// The states after each of `steps` Euler steps from x0 [n, D] on `grid`
// (as OdeTransformer::Trajectory).
std::vector<std::vector<double>> Trajectory(harness::Backend backend, const ref::odeformer::OdeTransformer& model,
                                            std::span<const double> x0, int n, int steps,
                                            ref::odeformer::TimeGrid grid = ref::odeformer::TimeGrid::kForward);

// As ref::odeformer::ModelLyapunov (output row j, -1: the last token; steps 0:
// the model's).
ref::odeformer::LyapunovResult Lyapunov(harness::Backend backend, const ref::odeformer::OdeTransformer& model,
                                        std::span<const int> tokens, int j = -1, int steps = 0);

}  // namespace cb::odeformer

#endif  // CB_SUITES_ODEFORMER_ODE_BACKEND_H_
