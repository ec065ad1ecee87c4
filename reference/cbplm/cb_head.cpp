// File: reference/cbplm/cb_head.cpp
// -----------------------------------------------------------------------------
// The CB-pLM concept-bottleneck head in fp64 (cb_head.h): forward, the loss of
// lobster's _compute_loss and its hand-derived backward. Derivatives used:
//   tanh'  = 1 - z^2;  gelu'(u) = Phi(u) + u phi(u) (erf form);
//   LayerNorm: dg = r (dn_hat - mean(dn_hat) - n_hat mean(dn_hat n_hat));
//   softmax CE: dlogits = (p - onehot) w / Σw;
//   cos(x, y) = x.y / (|x||y|): dcos/dx = y / (|x||y|) - cos x / |x|^2 (and
//   with |x||y| < eps: x.y / eps, dcos/dx = y / eps).
#include "reference/cbplm/cb_head.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

#include "harness/random.h"

namespace cb::ref::cbplm {
namespace {

double Gelu(double u) { return 0.5 * u * (1.0 + std::erf(u / std::numbers::sqrt2)); }
double GeluGrad(double u) {
  const double cdf = 0.5 * (1.0 + std::erf(u / std::numbers::sqrt2));
  const double pdf = std::exp(-0.5 * u * u) / std::sqrt(2.0 * std::numbers::pi);
  return cdf + u * pdf;
}

// y[o] = Σ_i W[o, i] x[i] + b[o]; W [O, I].
void Linear(const double* W, const double* b, const double* x, int O, int I, double* y) {
  for (int o = 0; o < O; ++o) {
    double s = b ? b[o] : 0.0;
    for (int i = 0; i < I; ++i) s += W[size_t(o) * I + i] * x[i];
    y[o] = s;
  }
}
// dW += dy x^T, db += dy, dx += W^T dy (dx may be null).
void LinearBack(const double* W, const double* x, const double* dy, int O, int I, double* dW,
                double* db, double* dx) {
  for (int o = 0; o < O; ++o) {
    if (db) db[o] += dy[o];
    for (int i = 0; i < I; ++i) {
      dW[size_t(o) * I + i] += dy[o] * x[i];
      if (dx) dx[i] += W[size_t(o) * I + i] * dy[o];
    }
  }
}

}  // namespace

CbHead::CbHead(const CbHeadConfig& c, uint64_t seed) : config_(c) {
  if (c.hidden < 1 || c.concepts < 1 || c.concept_emb < 1 || c.vocab < 2)
    throw std::invalid_argument("cb head: hidden, concepts, concept_emb must be >= 1 and vocab >= 2");
  const int D = c.hidden, C = c.concepts, CE = c.concepts * c.concept_emb, V = c.vocab;
  size_t offset = 0;
  auto add = [&](const char* name, int rows, int cols) {
    slots_.push_back({name, rows, cols, offset});
    offset += size_t(rows) * cols;
  };
  add("cls_dense.weight", D, D);
  add("cls_dense.bias", D, 1);
  add("cls_out.weight", C, D);
  add("cls_out.bias", C, 1);
  add("unk_dense.weight", D, D);
  add("unk_dense.bias", D, 1);
  add("unk_norm.weight", D, 1);
  add("unk_norm.bias", D, 1);
  add("unk_decoder.weight", CE, D);
  add("unk_decoder.bias", CE, 1);
  add("concept_emb", C, c.concept_emb);
  add("lm_decoder.weight", V, 2 * CE);
  add("lm_bias", V, 1);
  params_.assign(offset, 0.0);
  harness::Rng rng(seed, 0);
  for (const HeadSlot& s : slots_) {
    const std::string name = s.name;
    double* p = &params_[s.offset];
    if (name.ends_with(".weight") && name != "unk_norm.weight") {
      for (size_t i = 0; i < s.size(); ++i) p[i] = 0.02 * rng.Normal();
    } else if (name == "unk_norm.weight") {
      std::fill(p, p + s.size(), 1.0);
    } else if (name == "concept_emb") {
      const double sd = 1.0 / std::sqrt(double(c.concept_emb));
      for (size_t i = 0; i < s.size(); ++i) {
        double x;
        do x = sd * rng.Normal(); while (std::abs(x) > 2.0);
        p[i] = x;
      }
    }
  }
}

const HeadSlot& CbHead::slot(const std::string& name) const {
  for (const HeadSlot& s : slots_)
    if (name == s.name) return s;
  throw std::invalid_argument("cb head: no tensor named '" + name + "'");
}

void CbHead::CheckShapes(size_t xf, int batch, int seq) const {
  if (batch < 1 || seq < 1 || xf != size_t(batch) * seq * config_.hidden)
    throw std::invalid_argument("cb head: xf must hold batch x seq x hidden = " +
                                std::to_string(size_t(std::max(batch, 0)) * std::max(seq, 0) * config_.hidden) +
                                " values, got " + std::to_string(xf));
}

std::vector<double> CbHead::Concepts(std::span<const double> xf, int B, int T) const {
  CheckShapes(xf.size(), B, T);
  const int D = config_.hidden, C = config_.concepts;
  const double* P = params_.data();
  std::vector<double> pred(size_t(B) * C), z(D);
  for (int b = 0; b < B; ++b) {
    Linear(P + slot("cls_dense.weight").offset, P + slot("cls_dense.bias").offset,
           &xf[size_t(b) * T * D], D, D, z.data());
    for (double& v : z) v = std::tanh(v);
    Linear(P + slot("cls_out.weight").offset, P + slot("cls_out.bias").offset, z.data(), C, D,
           &pred[size_t(b) * C]);
  }
  return pred;
}

// The unknown path of one row: u, n_hat, r and xunk (kept for the backward).
struct UnkRow {
  std::vector<double> u, nhat, n, xunk;
  double r = 0;
};
static UnkRow UnkForward(const CbHead& h, const double* x) {
  const CbHeadConfig& c = h.config();
  const int D = c.hidden, CE = c.concepts * c.concept_emb;
  const double* P = h.params().data();
  UnkRow row{std::vector<double>(D), std::vector<double>(D), std::vector<double>(D), std::vector<double>(CE)};
  Linear(P + h.slot("unk_dense.weight").offset, P + h.slot("unk_dense.bias").offset, x, D, D, row.u.data());
  std::vector<double> g(D);
  double mu = 0;
  for (int i = 0; i < D; ++i) g[i] = Gelu(row.u[i]), mu += g[i];
  mu /= D;
  double var = 0;
  for (int i = 0; i < D; ++i) var += (g[i] - mu) * (g[i] - mu);
  var /= D;
  row.r = 1.0 / std::sqrt(var + c.ln_eps);
  const double* gamma = P + h.slot("unk_norm.weight").offset;
  const double* beta = P + h.slot("unk_norm.bias").offset;
  for (int i = 0; i < D; ++i) row.nhat[i] = (g[i] - mu) * row.r, row.n[i] = row.nhat[i] * gamma[i] + beta[i];
  Linear(P + h.slot("unk_decoder.weight").offset, P + h.slot("unk_decoder.bias").offset, row.n.data(), CE, D,
         row.xunk.data());
  return row;
}

std::vector<double> CbHead::Logits(std::span<const double> xf, int B, int T, std::span<const double> c_in) const {
  CheckShapes(xf.size(), B, T);
  const int D = config_.hidden, C = config_.concepts, E = config_.concept_emb, CE = C * E, V = config_.vocab;
  if (c_in.size() != size_t(B) * C)
    throw std::invalid_argument("cb head: c_in must hold batch x concepts = " + std::to_string(B * C) + " values");
  const double* P = params_.data();
  const double* emb = P + slot("concept_emb").offset;
  std::vector<double> logits(size_t(B) * T * V), hcat(2 * CE);
  for (int b = 0; b < B; ++b) {
    for (int k = 0; k < CE; ++k) hcat[k] = c_in[size_t(b) * C + k / E] * emb[k];
    for (int t = 0; t < T; ++t) {
      const size_t row = size_t(b) * T + t;
      const UnkRow u = UnkForward(*this, &xf[row * D]);
      std::copy(u.xunk.begin(), u.xunk.end(), hcat.begin() + CE);
      Linear(P + slot("lm_decoder.weight").offset, P + slot("lm_bias").offset, hcat.data(), V, 2 * CE,
             &logits[row * V]);
    }
  }
  return logits;
}

HeadLoss CbHead::LossAndGrad(std::span<const double> xf, int B, int T, std::span<const double> c_in,
                             std::span<const double> true_concepts, std::span<const int> targets,
                             std::span<const double> weights, const LossWeights& lw, std::span<double> dxf,
                             std::span<double> grad) const {
  CheckShapes(xf.size(), B, T);
  const int D = config_.hidden, C = config_.concepts, E = config_.concept_emb, CE = C * E, V = config_.vocab;
  const size_t M = size_t(B) * T;
  if (c_in.size() != size_t(B) * C || true_concepts.size() != size_t(B) * C)
    throw std::invalid_argument("cb head: c_in and true_concepts must hold batch x concepts = " +
                                std::to_string(B * C) + " values");
  if (targets.size() != M || weights.size() != M)
    throw std::invalid_argument("cb head: targets and weights must hold batch x seq = " + std::to_string(M) + " values");
  if (dxf.size() != xf.size() || grad.size() != params_.size())
    throw std::invalid_argument("cb head: dxf must match xf and grad the " + std::to_string(params_.size()) +
                                " parameters");
  double wsum = 0;
  for (size_t i = 0; i < M; ++i) {
    if (weights[i] < 0) throw std::invalid_argument("cb head: a negative weight at position " + std::to_string(i));
    if (weights[i] > 0 && (targets[i] < 0 || targets[i] >= V))
      throw std::invalid_argument("cb head: target " + std::to_string(targets[i]) + " outside [0, V)");
    wsum += weights[i];
  }
  std::fill(dxf.begin(), dxf.end(), 0.0);
  std::fill(grad.begin(), grad.end(), 0.0);
  const double* P = params_.data();
  double* G = grad.data();
  auto off = [&](const char* n) { return slot(n).offset; };
  HeadLoss out;

  // Concept classifier and the MSE term: dpred = w_c * C * 2 (pred - true) / (B C).
  std::vector<double> z(D), dz(D), dpred(C);
  for (int b = 0; b < B; ++b) {
    const double* x0 = &xf[size_t(b) * T * D];
    Linear(P + off("cls_dense.weight"), P + off("cls_dense.bias"), x0, D, D, z.data());
    for (double& v : z) v = std::tanh(v);
    std::vector<double> pred(C);
    Linear(P + off("cls_out.weight"), P + off("cls_out.bias"), z.data(), C, D, pred.data());
    for (int c = 0; c < C; ++c) {
      const double e = pred[c] - true_concepts[size_t(b) * C + c];
      out.concept_mse += e * e;
      dpred[c] = lw.concept_mse * 2.0 * e / B;  // C * 2e / (B C)
    }
    std::fill(dz.begin(), dz.end(), 0.0);
    LinearBack(P + off("cls_out.weight"), z.data(), dpred.data(), C, D, G + off("cls_out.weight"),
               G + off("cls_out.bias"), dz.data());
    for (int i = 0; i < D; ++i) dz[i] *= 1.0 - z[i] * z[i];
    LinearBack(P + off("cls_dense.weight"), x0, dz.data(), D, D, G + off("cls_dense.weight"),
               G + off("cls_dense.bias"), &dxf[size_t(b) * T * D]);
  }
  out.concept_mse /= B;  // C * mean over B*C

  // Per position: logits, cross-entropy, orthogonality, and their backward.
  const double* emb = P + off("concept_emb");
  const double* gamma = P + off("unk_norm.weight");
  std::vector<double> hcat(2 * CE), logits(V), dl(V), dh(2 * CE), dn(D), du(D);
  for (int b = 0; b < B; ++b) {
    for (int k = 0; k < CE; ++k) hcat[k] = c_in[size_t(b) * C + k / E] * emb[k];
    for (int t = 0; t < T; ++t) {
      const size_t row = size_t(b) * T + t;
      const double* x = &xf[row * D];
      const UnkRow u = UnkForward(*this, x);
      std::copy(u.xunk.begin(), u.xunk.end(), hcat.begin() + CE);
      std::fill(dh.begin(), dh.end(), 0.0);
      if (weights[row] > 0) {
        Linear(P + off("lm_decoder.weight"), P + off("lm_bias"), hcat.data(), V, 2 * CE, logits.data());
        const double mx = *std::max_element(logits.begin(), logits.end());
        double zsum = 0;
        for (int v = 0; v < V; ++v) zsum += std::exp(logits[v] - mx);
        out.mlm += weights[row] * (mx + std::log(zsum) - logits[targets[row]]) / wsum;
        for (int v = 0; v < V; ++v) dl[v] = std::exp(logits[v] - mx) / zsum * weights[row] / wsum;
        dl[targets[row]] -= weights[row] / wsum;
        LinearBack(P + off("lm_decoder.weight"), hcat.data(), dl.data(), V, 2 * CE, G + off("lm_decoder.weight"),
                   G + off("lm_bias"), dh.data());
      }
      // |cos(xcbm, xunk)| averaged over B*T rows.
      const double* xc = hcat.data();
      const double* xu = u.xunk.data();
      double dot = 0, nc = 0, nu = 0;
      for (int k = 0; k < CE; ++k) dot += xc[k] * xu[k], nc += xc[k] * xc[k], nu += xu[k] * xu[k];
      nc = std::sqrt(nc), nu = std::sqrt(nu);
      const double denom = std::max(nc * nu, config_.cos_eps);
      const double cosv = dot / denom;
      out.orth += std::abs(cosv) / double(M);
      const double s = lw.orth * (cosv > 0 ? 1.0 : cosv < 0 ? -1.0 : 0.0) / double(M);
      for (int k = 0; k < CE; ++k) {
        if (nc * nu > config_.cos_eps) {
          dh[k] += s * (xu[k] / denom - cosv * xc[k] / (nc * nc));
          dh[CE + k] += s * (xc[k] / denom - cosv * xu[k] / (nu * nu));
        } else {
          dh[k] += s * xu[k] / denom;
          dh[CE + k] += s * xc[k] / denom;
        }
      }
      // Concept path: xcbm[k] = c_in[k / E] emb[k] (c_in is an input).
      for (int k = 0; k < CE; ++k) G[off("concept_emb") + k] += dh[k] * c_in[size_t(b) * C + k / E];
      // Unknown path backward.
      std::fill(dn.begin(), dn.end(), 0.0);
      LinearBack(P + off("unk_decoder.weight"), u.n.data(), dh.data() + CE, CE, D, G + off("unk_decoder.weight"),
                 G + off("unk_decoder.bias"), dn.data());
      double m1 = 0, m2 = 0;  // mean(dn_hat), mean(dn_hat n_hat)
      for (int i = 0; i < D; ++i) {
        G[off("unk_norm.weight") + i] += dn[i] * u.nhat[i];
        G[off("unk_norm.bias") + i] += dn[i];
        const double dnh = dn[i] * gamma[i];
        m1 += dnh, m2 += dnh * u.nhat[i];
      }
      m1 /= D, m2 /= D;
      for (int i = 0; i < D; ++i) du[i] = u.r * (dn[i] * gamma[i] - m1 - u.nhat[i] * m2) * GeluGrad(u.u[i]);
      LinearBack(P + off("unk_dense.weight"), x, du.data(), D, D, G + off("unk_dense.weight"),
                 G + off("unk_dense.bias"), &dxf[row * D]);
    }
  }
  out.total = out.mlm + lw.concept_mse * out.concept_mse + lw.orth * out.orth;
  return out;
}

void CbHead::ConceptGradient(std::span<const double> xf, int B, int T, int concept_index, std::span<double> dxf) const {
  CheckShapes(xf.size(), B, T);
  const int D = config_.hidden, C = config_.concepts;
  if (concept_index < 0 || concept_index >= C)
    throw std::invalid_argument("cb head: concept " + std::to_string(concept_index) + " outside [0, " + std::to_string(C) + ")");
  if (dxf.size() != xf.size()) throw std::invalid_argument("cb head: dxf must match xf");
  std::fill(dxf.begin(), dxf.end(), 0.0);
  const double* P = params_.data();
  const double* Wd = P + slot("cls_dense.weight").offset;
  const double* Wo = P + slot("cls_out.weight").offset;
  std::vector<double> z(D);
  for (int b = 0; b < B; ++b) {
    const double* x0 = &xf[size_t(b) * T * D];
    Linear(Wd, P + slot("cls_dense.bias").offset, x0, D, D, z.data());
    for (int j = 0; j < D; ++j) {
      const double da = Wo[size_t(concept_index) * D + j] * (1.0 - std::tanh(z[j]) * std::tanh(z[j]));
      for (int i = 0; i < D; ++i) dxf[size_t(b) * T * D + i] += Wd[size_t(j) * D + i] * da;
    }
  }
}

std::vector<double> CbHead::ConceptTokenMap() const {
  const int C = config_.concepts, E = config_.concept_emb, CE = C * E, V = config_.vocab;
  const double* Wl = &params_[slot("lm_decoder.weight").offset];
  const double* emb = &params_[slot("concept_emb").offset];
  std::vector<double> map(size_t(C) * V, 0.0);
  for (int c = 0; c < C; ++c)
    for (int v = 0; v < V; ++v)
      for (int e = 0; e < E; ++e) map[size_t(c) * V + v] += Wl[size_t(v) * 2 * CE + c * E + e] * emb[c * E + e];
  return map;
}

}  // namespace cb::ref::cbplm
