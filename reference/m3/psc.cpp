// File: reference/m3/psc.cpp
#include "reference/m3/psc.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace cb::ref::m3 {
namespace {

std::vector<double> Normalised(const double* rows, int64_t n, int d) {
  std::vector<double> out(size_t(n) * d);
  for (int64_t i = 0; i < n; ++i) {
    double ss = 0.0;
    for (int k = 0; k < d; ++k) ss += rows[i * d + k] * rows[i * d + k];
    if (!(ss > 0.0) || !std::isfinite(ss))
      throw std::invalid_argument("PrincipalSceneComponents: row " + std::to_string(i) +
                                  " has zero or non-finite norm");
    const double inv = 1.0 / std::sqrt(ss);
    for (int k = 0; k < d; ++k) out[size_t(i) * d + k] = rows[i * d + k] * inv;
  }
  return out;
}

double Dot(const double* a, const double* b, int d) {
  double s = 0.0;
  for (int k = 0; k < d; ++k) s += a[k] * b[k];
  return s;
}

}  // namespace

PscResult PrincipalSceneComponents(const double* rows, int64_t n, int d, double theta,
                                   const std::function<void(int64_t, int64_t)>& progress) {
  if (n < 0 || d < 1) throw std::invalid_argument("PrincipalSceneComponents: need n >= 0 and d >= 1");
  if (!std::isfinite(theta)) throw std::invalid_argument("PrincipalSceneComponents: theta must be finite");
  const std::vector<double> u = Normalised(rows, n, d);
  PscResult r;
  std::vector<char> used(size_t(n), 0);
  std::vector<int64_t> similar;
  for (int64_t i = 0; i < n; ++i) {
    if (progress) progress(i, n);
    if (used[i]) continue;
    similar.clear();
    bool any_used = false;
    for (int64_t j = 0; j < n; ++j) {
      if (Dot(&u[size_t(i) * d], &u[size_t(j) * d], d) >= theta) {
        similar.push_back(j);
        any_used = any_used || used[j];
      }
    }
    if (any_used) {
      r.dropped.push_back(int(i));
      continue;
    }
    r.selected.push_back(int(i));
    for (int64_t j : similar) used[j] = 1;
  }
  for (int64_t i = 0; i < n; ++i) {
    bool covered = false;
    for (int s : r.selected) covered = covered || Dot(&u[size_t(i) * d], &u[size_t(s) * d], d) >= theta;
    if (!covered) r.unrepresented.push_back(int(i));
  }
  return r;
}

std::vector<double> GatherRows(const double* rows, int d, const std::vector<int>& indices) {
  std::vector<double> out;
  out.reserve(indices.size() * d);
  for (int i : indices) out.insert(out.end(), rows + size_t(i) * d, rows + size_t(i + 1) * d);
  return out;
}

int64_t SelfCosineBelowOneF32(const double* rows, int64_t n, int d) {
  int64_t count = 0;
  std::vector<float> v(d);
  for (int64_t i = 0; i < n; ++i) {
    float ss = 0.0f;
    for (int k = 0; k < d; ++k) {
      v[k] = float(rows[i * d + k]);
      ss += v[k] * v[k];
    }
    const float norm = std::sqrt(ss);
    float self = 0.0f;
    for (int k = 0; k < d; ++k) {
      const float x = v[k] / norm;
      self += x * x;
    }
    count += self < 1.0f;
  }
  return count;
}

}  // namespace cb::ref::m3
