// File: reference/unip/nmi.cpp
#include "reference/unip/nmi.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace cb::ref::unip {

double Nmi(std::span<const double> a, int q, int k, double eps) {
  if (q < 2 || k < 1) throw std::invalid_argument("Nmi: need at least 2 queries and 1 key");
  if (a.size() != static_cast<size_t>(q) * k) throw std::invalid_argument("Nmi: map size is not q * k");
  if (!(eps >= 0.0)) throw std::invalid_argument("Nmi: eps must be >= 0");
  // A [q, k]: eps added, rows renormalised.
  std::vector<double> p(a.begin(), a.end());
  for (int i = 0; i < q; ++i) {
    double sum = 0.0;
    for (int j = 0; j < k; ++j) {
      double& v = p[static_cast<size_t>(i) * k + j];
      if (!std::isfinite(v) || v < 0.0)
        throw std::invalid_argument("Nmi: entry (" + std::to_string(i) + ", " + std::to_string(j) +
                                    ") is negative or not finite");
      v += eps;
      sum += v;
    }
    if (!(sum > 0.0)) throw std::invalid_argument("Nmi: row " + std::to_string(i) + " sums to 0");
    for (int j = 0; j < k; ++j) p[static_cast<size_t>(i) * k + j] /= sum;
  }
  const double pq = 1.0 / q;
  std::vector<double> pk(static_cast<size_t>(k), 0.0);  // [k]
  for (int i = 0; i < q; ++i) {
    for (int j = 0; j < k; ++j) pk[j] += p[static_cast<size_t>(i) * k + j] * pq;
  }
  double mi = 0.0, hk = 0.0;
  for (int i = 0; i < q; ++i) {
    for (int j = 0; j < k; ++j) {
      const double v = p[static_cast<size_t>(i) * k + j];
      if (v > 0.0) mi += v * pq * std::log(v / pk[j]);  // 0 ln 0 = 0 (only reachable with eps = 0)
    }
  }
  for (int j = 0; j < k; ++j) {
    if (pk[j] > 0.0) hk -= pk[j] * std::log(pk[j]);
  }
  const double hq = std::log(static_cast<double>(q));
  // H(k) = 0 (every query on one key) makes MI = 0 too: 0 / 0 in the
  // notebook (NaN); here 0, the attention being as collapsed as it gets.
  return hk > 0.0 ? mi / std::sqrt(hq * hk) : 0.0;
}

double LayerNmi(std::span<const double> a, int images, int heads, int n, bool drop_cls, double eps) {
  if (images < 1 || heads < 1) throw std::invalid_argument("LayerNmi: need at least one image and one head");
  const int m = drop_cls ? n - 1 : n;
  if (m < 2) throw std::invalid_argument("LayerNmi: fewer than 2 tokens");
  if (a.size() != static_cast<size_t>(images) * heads * n * n)
    throw std::invalid_argument("LayerNmi: size is not images * heads * n * n");
  const int off = drop_cls ? 1 : 0;
  std::vector<double> map(static_cast<size_t>(m) * m);
  double sum = 0.0;
  for (int b = 0; b < images; ++b) {
    for (int h = 0; h < heads; ++h) {
      const double* base = a.data() + (static_cast<size_t>(b) * heads + h) * n * n;
      for (int i = 0; i < m; ++i) {
        for (int j = 0; j < m; ++j) map[static_cast<size_t>(i) * m + j] = base[(i + off) * n + (j + off)];
      }
      sum += Nmi(map, m, m, eps);
    }
  }
  return sum / (static_cast<double>(images) * heads);
}

int NmiHadLayer(std::span<const double> profile, double target) {
  if (profile.empty()) throw std::invalid_argument("NmiHadLayer: empty profile");
  int best = 0;
  for (size_t l = 0; l < profile.size(); ++l) {
    if (std::isnan(profile[l])) throw std::invalid_argument("NmiHadLayer: NaN in the profile");
    if (std::abs(profile[l] - target) < std::abs(profile[best] - target)) best = static_cast<int>(l);
  }
  return best;
}

std::vector<double> CircularWindowMap(int n, int w) {
  if (w < 1 || w > n) throw std::invalid_argument("CircularWindowMap: need 1 <= w <= n");
  std::vector<double> a(static_cast<size_t>(n) * n, 0.0);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < w; ++j) a[static_cast<size_t>(i) * n + (i + j) % n] = 1.0 / w;
  }
  return a;
}

const char* NmiKind(double nmi) {
  if (nmi < 0.06) return "global";
  if (nmi <= 0.12) return "hybrid";
  return "local";
}

}  // namespace cb::ref::unip
