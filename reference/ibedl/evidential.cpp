// File: reference/ibedl/evidential.cpp
// IB-EDL's head, losses and inference in fp64 (evidential.h).
#include "reference/ibedl/evidential.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "reference/ibedl/special.h"

namespace cb::ref::ibedl {

namespace {

void CheckLabel(int label, size_t K) {
  if (K < 2) throw std::invalid_argument("ibedl: K must be >= 2");
  if (label < 0 || label >= static_cast<int>(K))
    throw std::invalid_argument("ibedl: label " + std::to_string(label) + " outside [0, " +
                                std::to_string(K) + ")");
}

double Sum(std::span<const double> x) {
  double s = 0;
  for (double v : x) s += v;
  return s;
}

}  // namespace

double SsRisk(std::span<const double> alpha, int label, double* grad) {
  const size_t K = alpha.size();
  CheckLabel(label, K);
  const double S = Sum(alpha);
  double loss = 0, var_sum = 0, gp = 0;
  std::vector<double> g(K);
  for (size_t k = 0; k < K; ++k) {
    const double p = alpha[k] / S, y = int(k) == label ? 1.0 : 0.0;
    loss += (y - p) * (y - p) + p * (1 - p) / (S + 1);
    var_sum += p * (1 - p);
    // d loss / d p_k with S held fixed inside the variance's 1/(S+1).
    g[k] = -2 * (y - p) + (1 - 2 * p) / (S + 1);
    gp += g[k] * p;
  }
  if (grad) {
    // dp_k / d alpha_m = (delta_km - p_k) / S; d (S+1)^-1 / d alpha_m = -(S+1)^-2.
    for (size_t m = 0; m < K; ++m) grad[m] = (g[m] - gp) / S - var_sum / ((S + 1) * (S + 1));
  }
  return loss;
}

double CeRisk(std::span<const double> alpha, int label, double* grad) {
  const size_t K = alpha.size();
  CheckLabel(label, K);
  const double S = Sum(alpha);
  if (grad) {
    const double ts = Trigamma(S);
    for (size_t m = 0; m < K; ++m) grad[m] = ts - (int(m) == label ? Trigamma(alpha[m]) : 0.0);
  }
  return Digamma(S) - Digamma(alpha[label]);
}

double DataRisk(DataTerm term, std::span<const double> alpha, int label, double* grad) {
  return term == DataTerm::kSs ? SsRisk(alpha, label, grad) : CeRisk(alpha, label, grad);
}

double DirichletKl(std::span<const double> alpha, int label, double* grad) {
  const size_t K = alpha.size();
  CheckLabel(label, K);
  std::vector<double> at(alpha.begin(), alpha.end());
  at[label] = 1.0;  // y + (1 - y) alpha
  const double St = Sum(at);
  const double psi_st = Digamma(St);
  double kl = LogGamma(St) - LogGamma(double(K));
  for (size_t k = 0; k < K; ++k) kl += -LogGamma(at[k]) + (at[k] - 1) * (Digamma(at[k]) - psi_st);
  if (grad) {
    // d KL / d at_m = (at_m - 1) psi'(at_m) - (St - K) psi'(St); d at_m / d alpha_m = 1 - y_m.
    const double tst = (St - double(K)) * Trigamma(St);
    for (size_t m = 0; m < K; ++m)
      grad[m] = int(m) == label ? 0.0 : (at[m] - 1) * Trigamma(at[m]) - tst;
  }
  return kl;
}

double GaussianKl(std::span<const double> mu, std::span<const double> sigma, double* dmu,
                  double* dsigma) {
  if (mu.size() != sigma.size()) throw std::invalid_argument("ibedl: mu and sigma sizes differ");
  double kl = 0;
  for (size_t k = 0; k < mu.size(); ++k) {
    kl += 0.5 * (mu[k] * mu[k] + sigma[k] * sigma[k] - 2 * std::log(sigma[k]) - 1);
    if (dmu) dmu[k] = mu[k];
    if (dsigma) dsigma[k] = sigma[k] - 1.0 / sigma[k];
  }
  return kl;
}

double RegWeight(double epoch, double epochs, double start_epoch, double final_weight) {
  const double start = start_epoch < 1.0 ? std::floor(start_epoch * epochs) : start_epoch;
  if (epoch < start) return 0.0;
  return std::min(1.0, epoch / epochs) * final_weight;
}

HeadInputs ReadHead(std::span<const double> logits, std::span<const int> target_ids) {
  const int V = static_cast<int>(logits.size()), K = static_cast<int>(target_ids.size());
  if (K < 2 || K > V) throw std::invalid_argument("ibedl: K must be in [2, V]");
  HeadInputs h;
  for (int k = 0; k < K; ++k) {
    if (target_ids[k] < 0 || target_ids[k] >= V)
      throw std::invalid_argument("ibedl: target id " + std::to_string(target_ids[k]) +
                                  " outside the vocabulary of " + std::to_string(V));
    h.mu.push_back(logits[target_ids[k]]);
    h.tail.push_back(logits[V - K + k]);
  }
  return h;
}

double EvidentialLoss(const LossConfig& c, int B, int K, std::span<const double> mu,
                      std::span<const double> tail, std::span<const int> labels,
                      std::span<const double> eps, double* dmu, double* dtail) {
  const size_t BK = size_t(B) * K;
  if (B < 1 || K < 2 || mu.size() != BK || tail.size() != BK || labels.size() != size_t(B))
    throw std::invalid_argument("ibedl: mu, tail [B, K] and labels [B] sizes disagree");
  const int J = c.vib ? c.draws : 1;
  if (c.vib && (J < 1 || eps.size() != BK * J))
    throw std::invalid_argument("ibedl: eps must hold B x J x K = " + std::to_string(BK * J) +
                                " values (J >= 1)");
  if (dmu) std::fill(dmu, dmu + BK, 0.0);
  if (dtail) std::fill(dtail, dtail + BK, 0.0);
  const double rows = double(B) * J;
  double data = 0, reg = 0, info = 0;
  std::vector<double> x(K), alpha(K), gd(K), gr(K), sig(K);
  for (int b = 0; b < B; ++b) {
    const double* m = &mu[size_t(b) * K];
    const double* t = &tail[size_t(b) * K];
    for (int k = 0; k < K; ++k) sig[k] = Softplus(t[k]);
    for (int j = 0; j < J; ++j) {
      const double* e = c.vib ? &eps[(size_t(b) * J + j) * K] : nullptr;
      for (int k = 0; k < K; ++k) {
        x[k] = c.vib ? m[k] + sig[k] * e[k] : m[k];
        alpha[k] = Softplus(x[k]) + 1.0;
      }
      data += DataRisk(c.data, alpha, labels[b], gd.data());
      if (c.reg_weight != 0) reg += DirichletKl(alpha, labels[b], gr.data());
      if (!dmu && !dtail) continue;
      for (int k = 0; k < K; ++k) {
        const double dalpha = (gd[k] + (c.reg_weight != 0 ? c.reg_weight * gr[k] : 0.0)) / rows;
        const double dx = dalpha * SoftplusGrad(x[k]);
        if (dmu) dmu[size_t(b) * K + k] += dx;
        if (dtail && c.vib) dtail[size_t(b) * K + k] += dx * e[k] * SoftplusGrad(t[k]);
      }
    }
    if (c.vib) {
      std::vector<double> gm(K), gs(K);
      info += GaussianKl(std::span<const double>(m, K), sig, gm.data(), gs.data());
      for (int k = 0; k < K; ++k) {
        if (dmu) dmu[size_t(b) * K + k] += c.beta * gm[k] / B;
        if (dtail) dtail[size_t(b) * K + k] += c.beta * gs[k] * SoftplusGrad(t[k]) / B;
      }
    }
  }
  double loss = data / rows + c.reg_weight * reg / rows;
  if (c.vib) loss += c.beta * info / B;
  return loss;
}

double MapLoss(int B, int K, std::span<const double> mu, std::span<const int> labels, double* dmu) {
  if (B < 1 || K < 2 || mu.size() != size_t(B) * K || labels.size() != size_t(B))
    throw std::invalid_argument("ibedl: mu [B, K] and labels [B] sizes disagree");
  double loss = 0;
  for (int b = 0; b < B; ++b) {
    CheckLabel(labels[b], K);
    const double* z = &mu[size_t(b) * K];
    const double mx = *std::max_element(z, z + K);
    double se = 0;
    for (int k = 0; k < K; ++k) se += std::exp(z[k] - mx);
    const double lse = mx + std::log(se);
    loss += lse - z[labels[b]];
    if (dmu)
      for (int k = 0; k < K; ++k)
        dmu[size_t(b) * K + k] = (std::exp(z[k] - lse) - (k == labels[b] ? 1.0 : 0.0)) / B;
  }
  return loss / B;
}

namespace {
Prediction FromAlpha(std::vector<double> alpha) {
  const size_t K = alpha.size();
  Prediction p;
  p.strength = Sum(alpha);
  for (double a : alpha) p.probs.push_back(a / p.strength);
  const double ref = std::log(std::max(p.probs[K - 1], 1e-10));
  for (double q : p.probs) p.logits.push_back(std::log(std::max(q, 1e-10)) - ref);
  p.uncertainty = double(K) / p.strength;
  p.alpha = std::move(alpha);
  return p;
}
}  // namespace

Prediction PredictEvidential(std::span<const double> mu, std::span<const double> tail,
                             std::span<const double> eps, int draws, bool vib, double sigma_mult) {
  const size_t K = mu.size();
  if (K < 2 || tail.size() != K) throw std::invalid_argument("ibedl: mu and tail must hold K >= 2 values");
  std::vector<double> alpha(K, 0.0);
  if (!vib) {
    for (size_t k = 0; k < K; ++k) alpha[k] = Softplus(mu[k]) + 1.0;
    return FromAlpha(std::move(alpha));
  }
  if (draws < 1 || eps.size() != K * draws)
    throw std::invalid_argument("ibedl: eps must hold J x K values");
  for (int j = 0; j < draws; ++j)
    for (size_t k = 0; k < K; ++k) alpha[k] += Softplus(mu[k] + Softplus(tail[k]) * eps[j * K + k]) + 1.0;
  for (size_t k = 0; k < K; ++k)
    alpha[k] = std::max(alpha[k] / draws - sigma_mult * Softplus(tail[k]), 1.0);
  return FromAlpha(std::move(alpha));
}

Prediction PredictMap(std::span<const double> mu) {
  const size_t K = mu.size();
  if (K < 2) throw std::invalid_argument("ibedl: K must be >= 2");
  Prediction p;
  const double mx = *std::max_element(mu.begin(), mu.end());
  double se = 0;
  for (double z : mu) se += std::exp(z - mx);
  for (double z : mu) p.probs.push_back(std::exp(z - mx) / se);
  p.logits.assign(mu.begin(), mu.end());
  return p;
}

}  // namespace cb::ref::ibedl
