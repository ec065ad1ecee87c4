// File: reference/probegen/adam.cpp
// -----------------------------------------------------------------------------
// torch.optim.Adam (defaults, no weight decay) and the CosineAnnealingLR
// schedule of ProbeGen's training loop (main.py@4872aa7), fp64; see adam.h.
#include "reference/probegen/adam.h"

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

namespace cb::ref::probegen {

double CosineLr(double lr, int64_t step, int64_t total_steps) {
  if (total_steps < 1 || step < 0) {
    throw std::invalid_argument("CosineLr: need total_steps >= 1 and step >= 0");
  }
  // CosineAnnealingLR's closed form with eta_min = 0. Past total_steps the
  // cosine rises again, as torch's schedule does; training stops before that.
  const double phase = std::numbers::pi * double(step) / double(total_steps);
  return lr * (1.0 + std::cos(phase)) / 2.0;
}

void Adam::Update(int slot, std::span<double> p, std::span<const double> g, double lr,
                  int64_t step) {
  if (slot < 0 || step < 0) {
    throw std::invalid_argument("Adam::Update: need slot >= 0 and step >= 0");
  }
  if (p.size() != g.size()) {
    throw std::invalid_argument("Adam::Update: parameter and gradient sizes differ (" +
                                std::to_string(p.size()) + " vs " + std::to_string(g.size()) + ")");
  }
  if (size_t(slot) >= m_.size()) {
    m_.resize(slot + 1);
    v_.resize(slot + 1);
  }
  std::vector<double>& m = m_[slot];
  std::vector<double>& v = v_[slot];
  if (m.empty() && !p.empty()) {
    m.assign(p.size(), 0.0);
    v.assign(p.size(), 0.0);
  }
  if (m.size() != p.size()) {
    throw std::invalid_argument("Adam::Update: slot " + std::to_string(slot) +
                                " changed size from " + std::to_string(m.size()) + " to " +
                                std::to_string(p.size()));
  }
  // Bias corrections for update number s = step + 1: the zero-initialised
  // moments underestimate by these factors early on.
  const double s = double(step + 1);
  const double c1 = 1.0 - std::pow(beta1_, s);
  const double c2 = 1.0 - std::pow(beta2_, s);
  for (size_t i = 0; i < p.size(); ++i) {
    m[i] = beta1_ * m[i] + (1.0 - beta1_) * g[i];
    v[i] = beta2_ * v[i] + (1.0 - beta2_) * g[i] * g[i];
    p[i] -= lr * (m[i] / c1) / (std::sqrt(v[i] / c2) + eps_);
  }
}

}  // namespace cb::ref::probegen
