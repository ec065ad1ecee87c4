// File: reference/m3/gma.cpp
#include "reference/m3/gma.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "harness/safetensors.h"

namespace cb::ref::m3 {
namespace {

void Check(const GmaShape& s, double tau, bool identity_wm = false) {
  if (s.pixels < 0 || s.query < 1 || s.dim < 1 || s.memory < 1)
    throw std::invalid_argument("GMA: need pixels >= 0 and query, dim, memory >= 1");
  if (identity_wm && s.query != s.dim) throw std::invalid_argument("GMA: a null W_m (the identity) needs query == dim");
  if (!(tau > 0.0) || !std::isfinite(tau)) throw std::invalid_argument("GMA: tau must be positive and finite");
}

double RowNorm(const double* x, int d) {
  double ss = 0.0;
  for (int k = 0; k < d; ++k) ss += x[k] * x[k];
  return std::sqrt(ss);
}

// e (D) = q (c) W (c, D); a null W is the identity (c == D).
void Project(const double* q, const double* wm, int c, int d, double* e) {
  if (!wm) {
    std::copy(q, q + d, e);
    return;
  }
  std::fill(e, e + d, 0.0);
  for (int i = 0; i < c; ++i)
    for (int k = 0; k < d; ++k) e[k] += q[i] * wm[size_t(i) * d + k];
}

// In place: logits (K) -> softmax.
void Softmax(double* x, int n) {
  const double mx = *std::max_element(x, x + n);
  double sum = 0.0;
  for (int j = 0; j < n; ++j) sum += x[j] = std::exp(x[j] - mx);
  for (int j = 0; j < n; ++j) x[j] /= sum;
}

std::vector<double> NormalisedMemory(const GmaShape& s, const double* mem) {
  std::vector<double> mhat(size_t(s.memory) * s.dim);
  for (int j = 0; j < s.memory; ++j) {
    const double r = RowNorm(mem + size_t(j) * s.dim, s.dim) + kGmaNormEps;
    for (int k = 0; k < s.dim; ++k) mhat[size_t(j) * s.dim + k] = mem[size_t(j) * s.dim + k] / r;
  }
  return mhat;
}

// The normalised-cosine logits of pixel p (K), and e (D) and |e|.
void Logits(const GmaShape& s, const double* q, const double* wm, const std::vector<double>& mhat, double tau,
            int64_t p, double* e, double* enorm, double* logits) {
  Project(q + p * s.query, wm, s.query, s.dim, e);
  *enorm = RowNorm(e, s.dim);
  const double inv = 1.0 / (*enorm + kGmaNormEps);
  for (int j = 0; j < s.memory; ++j) {
    double dot = 0.0;
    for (int k = 0; k < s.dim; ++k) dot += e[k] * mhat[size_t(j) * s.dim + k];
    logits[j] = dot * inv / tau;
  }
}

double Half(double x) { return cb::harness::HalfBitsToDouble(cb::harness::DoubleToHalfBits(x)); }

}  // namespace

void GmaForward(const GmaShape& s, const double* q, const double* wm, const double* mem, double tau, double* out,
                GmaCache* cache) {
  Check(s, tau, wm == nullptr);
  const std::vector<double> mhat = NormalisedMemory(s, mem);
  std::vector<double> e(s.dim), a(s.memory);
  if (cache) {
    cache->e.assign(size_t(s.pixels) * s.dim, 0.0);
    cache->enorm.assign(s.pixels, 0.0);
    cache->attn.assign(size_t(s.pixels) * s.memory, 0.0);
    cache->mhat = mhat;
  }
  for (int64_t p = 0; p < s.pixels; ++p) {
    double enorm = 0.0;
    Logits(s, q, wm, mhat, tau, p, e.data(), &enorm, a.data());
    Softmax(a.data(), s.memory);
    double* r = out + p * s.dim;
    std::fill(r, r + s.dim, 0.0);
    for (int j = 0; j < s.memory; ++j)
      for (int k = 0; k < s.dim; ++k) r[k] += a[j] * mem[size_t(j) * s.dim + k];
    if (cache) {
      std::copy(e.begin(), e.end(), cache->e.begin() + p * s.dim);
      cache->enorm[p] = enorm;
      std::copy(a.begin(), a.end(), cache->attn.begin() + p * s.memory);
    }
  }
}

void GmaPaper(const GmaShape& s, const double* q, const double* wm, const double* mem, double* out) {
  Check(s, 1.0);
  std::vector<double> e(s.dim), a(s.memory);
  for (int64_t p = 0; p < s.pixels; ++p) {
    Project(q + p * s.query, wm, s.query, s.dim, e.data());
    for (int j = 0; j < s.memory; ++j) {
      double dot = 0.0;
      for (int k = 0; k < s.dim; ++k) dot += e[k] * mem[size_t(j) * s.dim + k];
      a[j] = dot;
    }
    Softmax(a.data(), s.memory);
    double* r = out + p * s.dim;
    std::fill(r, r + s.dim, 0.0);
    for (int j = 0; j < s.memory; ++j)
      for (int k = 0; k < s.dim; ++k) r[k] += a[j] * mem[size_t(j) * s.dim + k];
  }
}

void GmaHalf(const GmaShape& s, const double* q, const double* wm, const double* mem, double tau, double* out) {
  Check(s, tau, wm == nullptr);
  // Inputs cast to fp16 (index_to_raw's .half()).
  auto half_copy = [](const double* x, size_t n) {
    std::vector<double> h(n);
    for (size_t i = 0; i < n; ++i) h[i] = Half(x[i]);
    return h;
  };
  const std::vector<double> qh = half_copy(q, size_t(s.pixels) * s.query);
  const std::vector<double> wh = wm ? half_copy(wm, size_t(s.query) * s.dim) : std::vector<double>{};
  const std::vector<double> mh = half_copy(mem, size_t(s.memory) * s.dim);
  // Norms: fp32 accumulation, the quotient stored in fp16.
  auto normalise = [&](const double* x, int d, double* y) {
    float ss = 0.0f;
    for (int k = 0; k < d; ++k) ss += float(x[k]) * float(x[k]);
    const double r = Half(Half(std::sqrt(double(ss))) + kGmaNormEps);
    for (int k = 0; k < d; ++k) y[k] = Half(x[k] / r);
  };
  std::vector<double> mhat(mh.size());
  for (int j = 0; j < s.memory; ++j) normalise(&mh[size_t(j) * s.dim], s.dim, &mhat[size_t(j) * s.dim]);
  std::vector<double> e(s.dim), ehat(s.dim), a(s.memory);
  for (int64_t p = 0; p < s.pixels; ++p) {
    for (int k = 0; k < s.dim; ++k) {
      if (!wm) {
        e[k] = qh[p * s.query + k];
        continue;
      }
      float acc = 0.0f;
      for (int i = 0; i < s.query; ++i) acc += float(qh[p * s.query + i]) * float(wh[size_t(i) * s.dim + k]);
      e[k] = Half(acc);
    }
    normalise(e.data(), s.dim, ehat.data());
    for (int j = 0; j < s.memory; ++j) {
      float acc = 0.0f;
      for (int k = 0; k < s.dim; ++k) acc += float(ehat[k]) * float(mhat[size_t(j) * s.dim + k]);
      a[j] = Half(Half(acc) / tau);
    }
    // Softmax of fp16 logits computed in fp32, stored in fp16.
    float mx = float(*std::max_element(a.begin(), a.end())), sum = 0.0f;
    std::vector<float> ex(s.memory);
    for (int j = 0; j < s.memory; ++j) sum += ex[j] = std::exp(float(a[j]) - mx);
    for (int j = 0; j < s.memory; ++j) a[j] = Half(ex[j] / sum);
    for (int k = 0; k < s.dim; ++k) {
      float acc = 0.0f;
      for (int j = 0; j < s.memory; ++j) acc += float(a[j]) * float(mh[size_t(j) * s.dim + k]);
      out[p * s.dim + k] = Half(acc);
    }
  }
}

void GmaBackward(const GmaShape& s, const double* q, const double* wm, const double* mem, double tau,
                 const GmaCache& cache, const double* dout, double* dq, double* dwm) {
  Check(s, tau);
  std::vector<double> da(s.memory), de(s.dim);
  for (int64_t p = 0; p < s.pixels; ++p) {
    const double* a = &cache.attn[p * s.memory];
    const double* g = dout + p * s.dim;
    // R = A M: dA_j = g . M_j; softmax: dS_j = A_j (dA_j - sum_i A_i dA_i).
    double mean = 0.0;
    for (int j = 0; j < s.memory; ++j) {
      double dot = 0.0;
      for (int k = 0; k < s.dim; ++k) dot += g[k] * mem[size_t(j) * s.dim + k];
      da[j] = dot;
      mean += a[j] * dot;
    }
    // S = ê m̂ᵀ / τ: dê = sum_j dS_j m̂_j / τ.
    std::vector<double> dehat(s.dim, 0.0);
    for (int j = 0; j < s.memory; ++j) {
      const double ds = a[j] * (da[j] - mean) / tau;
      for (int k = 0; k < s.dim; ++k) dehat[k] += ds * cache.mhat[size_t(j) * s.dim + k];
    }
    // ê = e / (r + ε), r = |e|: de = dê / (r + ε) - e (e . dê) / (r (r + ε)^2).
    const double* e = &cache.e[p * s.dim];
    const double r = cache.enorm[p], re = r + kGmaNormEps;
    double edot = 0.0;
    for (int k = 0; k < s.dim; ++k) edot += e[k] * dehat[k];
    const double coef = r > 0.0 ? edot / (r * re * re) : 0.0;
    for (int k = 0; k < s.dim; ++k) de[k] = dehat[k] / re - e[k] * coef;
    // e = q W_m.
    for (int i = 0; i < s.query; ++i) {
      const double qi = q[p * s.query + i];
      double acc = 0.0;
      for (int k = 0; k < s.dim; ++k) {
        acc += de[k] * wm[size_t(i) * s.dim + k];
        if (dwm) dwm[size_t(i) * s.dim + k] += qi * de[k];
      }
      if (dq) dq[p * s.query + i] += acc;
    }
  }
}

void GmaArgmaxBound(const GmaShape& s, const double* q, const double* wm, const double* mem, double tau,
                    double* bound, int* argmax) {
  Check(s, tau);
  const std::vector<double> mhat = NormalisedMemory(s, mem);
  std::vector<double> e(s.dim), logit(s.memory);
  for (int64_t p = 0; p < s.pixels; ++p) {
    double enorm = 0.0;
    Logits(s, q, wm, mhat, tau, p, e.data(), &enorm, logit.data());
    const int k = int(std::max_element(logit.begin(), logit.end()) - logit.begin());
    double b = 0.0;
    for (int j = 0; j < s.memory; ++j) {
      if (j == k) continue;
      double dist = 0.0;
      for (int t = 0; t < s.dim; ++t) {
        const double diff = mem[size_t(j) * s.dim + t] - mem[size_t(k) * s.dim + t];
        dist += diff * diff;
      }
      b += std::exp(logit[j] - logit[k]) * std::sqrt(dist);
    }
    bound[p] = b;
    argmax[p] = k;
  }
}

}  // namespace cb::ref::m3
