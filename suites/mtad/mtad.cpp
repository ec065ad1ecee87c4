// File: suites/mtad/mtad.cpp
// Input checks and backend dispatch of suites/mtad/mtad.h; the CPU path is
// the fp64 reference itself (reference/mtad.h).
#include "suites/mtad/mtad.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "reference/mtad.h"

namespace cb::mtad {
namespace {

namespace h = cb::harness;

void Fail(const std::string& what) { throw std::invalid_argument("mtad: " + what); }

}  // namespace

void ExpandScores(h::Backend backend, std::span<const double> w, std::span<const double> q,
                  int vocab_size, std::span<double> out) {
  if (vocab_size < 1) Fail("vocab_size must be >= 1");
  if (w.empty()) Fail("no beams");
  if (q.size() != w.size() * vocab_size) Fail("q is not beams x vocab_size");
  if (out.size() != q.size()) Fail("out is not beams x vocab_size");
  double total = 0;
  for (size_t b = 0; b < w.size(); ++b) {
    if (!(std::isfinite(w[b]) && w[b] >= 0)) Fail("beam weight " + std::to_string(b) + " is negative or not finite");
    for (int v = 0; v < vocab_size; ++v) {
      const double x = q[b * vocab_size + v];
      if (!(std::isfinite(x) && x >= 0)) {
        Fail("q[" + std::to_string(b) + ", " + std::to_string(v) + "] is negative or not finite");
      }
      total += w[b] * x;
    }
  }
  if (!(total > 0)) Fail("beam scores have zero total mass");
  h::RequireAvailable(backend);
  if (backend == h::Backend::kCpu) return cb::ref::mtad::ExpandScores(w, q, vocab_size, out);
#if CB_HAVE_CUDA
  ExpandScoresCuda(w, q, vocab_size, out);
#else
  throw std::logic_error("unreachable: cuda is available in a build without CUDA");
#endif
}

void AcceptDepths(h::Backend backend, std::span<const double> logp, std::span<const double> logq,
                  int gamma, double log_tau, std::span<int> depth) {
  if (gamma < 1) Fail("gamma must be >= 1");
  if (logp.size() != logq.size()) Fail("logp and logq differ in size");
  if (logp.empty() || logp.size() % gamma != 0) Fail("logp is not beams x gamma");
  if (depth.size() != logp.size() / gamma) Fail("depth is not (beams)");
  if (std::isnan(log_tau)) Fail("log_tau is NaN");
  for (size_t i = 0; i < logp.size(); ++i) {
    if (std::isnan(logp[i]) || logp[i] == INFINITY || std::isnan(logq[i]) || logq[i] == INFINITY) {
      Fail("log-probability " + std::to_string(i) + " is NaN or +infinity");
    }
    if (logq[i] == -INFINITY) Fail("draft log-probability " + std::to_string(i) + " is -infinity");
  }
  h::RequireAvailable(backend);
  if (backend == h::Backend::kCpu) {
    for (size_t b = 0; b < depth.size(); ++b) {
      depth[b] = cb::ref::mtad::AcceptDepth(logp.subspan(b * gamma, gamma),
                                            logq.subspan(b * gamma, gamma), log_tau);
    }
    return;
  }
#if CB_HAVE_CUDA
  AcceptDepthsCuda(logp, logq, gamma, log_tau, depth);
#else
  throw std::logic_error("unreachable: cuda is available in a build without CUDA");
#endif
}

}  // namespace cb::mtad
