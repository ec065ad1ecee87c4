// File: generators/tensors.cpp
// -----------------------------------------------------------------------------
// Gaussian, Haar-orthogonal and layer-stack matrix generators and their
// content hash (see tensors.h). The Haar construction is Mezzadri (2007), §4:
// QR of a Ginibre (Gaussian) matrix, then Q <- Q * diag(sign(R_jj)).
#include "generators/tensors.h"

#include <bit>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/hash.h"
#include "harness/random.h"

namespace cb::gen {
namespace {

// %.17g round-trips every binary64 exactly, so the string names the value.
std::string CanonicalDouble(double x) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.17g", x);
  return buf;
}

void AppendU64Le(std::string& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xffu));
}

void CheckShape(int64_t rows, int64_t cols, const char* who) {
  if (rows < 0 || cols < 0) {
    throw std::invalid_argument(std::string(who) + ": rows and cols must be >= 0, got " +
                                std::to_string(rows) + " x " + std::to_string(cols));
  }
}

// `count` unit normals: the first `count` Normal() draws of Rng(seed, stream).
std::vector<double> UnitNormals(int64_t count, uint64_t seed, uint64_t stream) {
  harness::Rng rng(seed, stream);
  std::vector<double> out(static_cast<size_t>(count));
  for (double& x : out) x = rng.Normal();
  return out;
}

}  // namespace

Generated GaussianMatrix(int64_t rows, int64_t cols, uint64_t seed, uint64_t stream,
                         double stddev) {
  CheckShape(rows, cols, "GaussianMatrix");
  if (!std::isfinite(stddev) || stddev < 0.0) {
    throw std::invalid_argument("GaussianMatrix: stddev must be finite and >= 0, got " +
                                CanonicalDouble(stddev));
  }
  Generated g;
  g.matrix.rows = rows;
  g.matrix.cols = cols;
  g.matrix.data = UnitNormals(rows * cols, seed, stream);  // (rows, cols)
  for (double& x : g.matrix.data) x *= stddev;
  g.generator = kGaussianMatrixName;
  g.version = kGaussianMatrixVersion;
  g.params = "rows=" + std::to_string(rows) + ";cols=" + std::to_string(cols) +
             ";seed=" + std::to_string(seed) + ";stream=" + std::to_string(stream) +
             ";stddev=" + CanonicalDouble(stddev);
  return g;
}

namespace internal {

ref::Matrix QrOrthogonalFactor(const ref::Matrix& a, bool sign_fix) {
  if (a.rows != a.cols || a.rows < 1 || a.data.size() != static_cast<size_t>(a.rows * a.cols)) {
    throw std::invalid_argument("QrOrthogonalFactor: need a square (n, n) matrix, n >= 1");
  }
  const int64_t n = a.rows;
  std::vector<double> w = a.data;  // (n, n) row-major; becomes R in its upper triangle
  auto at = [&](int64_t r, int64_t c) -> double& { return w[static_cast<size_t>(r * n + c)]; };

  // Reflector k is H_k = I - 2 v_k v_k^T / |v_k|^2 acting on rows k..n-1;
  // vs[k] holds v_k (length n - k), vnorm2[k] = |v_k|^2 (0: no reflection).
  std::vector<std::vector<double>> vs(static_cast<size_t>(n));
  std::vector<double> vnorm2(static_cast<size_t>(n), 0.0);
  std::vector<double> rdiag(static_cast<size_t>(n), 0.0);

  for (int64_t k = 0; k < n; ++k) {
    if (k == n - 1) {  // 1x1 trailing block: nothing to annihilate
      rdiag[static_cast<size_t>(k)] = at(k, k);
      break;
    }
    double norm2 = 0.0;
    for (int64_t i = k; i < n; ++i) norm2 += at(i, k) * at(i, k);
    const double norm = std::sqrt(norm2);
    if (norm == 0.0) continue;  // zero column (probability 0): R_kk = 0, no reflection
    // alpha has the sign opposite to x_0 so v_0 = x_0 - alpha does not cancel.
    const double alpha = at(k, k) >= 0.0 ? -norm : norm;
    std::vector<double> v(static_cast<size_t>(n - k));  // (n - k)
    for (int64_t i = k; i < n; ++i) v[static_cast<size_t>(i - k)] = at(i, k);
    v[0] -= alpha;
    double vv = 0.0;
    for (double x : v) vv += x * x;
    for (int64_t j = k; j < n; ++j) {
      double s = 0.0;
      for (int64_t i = k; i < n; ++i) s += v[static_cast<size_t>(i - k)] * at(i, j);
      const double f = 2.0 * s / vv;
      for (int64_t i = k; i < n; ++i) at(i, j) -= f * v[static_cast<size_t>(i - k)];
    }
    rdiag[static_cast<size_t>(k)] = alpha;
    vs[static_cast<size_t>(k)] = std::move(v);
    vnorm2[static_cast<size_t>(k)] = vv;
  }

  // Q = H_0 H_1 ... H_{n-2}: apply the reflectors to I from the last one back.
  ref::Matrix q(n, n);  // (n, n) row-major, zero-filled
  for (int64_t i = 0; i < n; ++i) q(i, i) = 1.0;
  for (int64_t k = n - 1; k >= 0; --k) {
    const double vv = vnorm2[static_cast<size_t>(k)];
    if (vv == 0.0) continue;
    const std::vector<double>& v = vs[static_cast<size_t>(k)];
    for (int64_t j = 0; j < n; ++j) {
      double s = 0.0;
      for (int64_t i = k; i < n; ++i) s += v[static_cast<size_t>(i - k)] * q(i, j);
      const double f = 2.0 * s / vv;
      for (int64_t i = k; i < n; ++i) q(i, j) -= f * v[static_cast<size_t>(i - k)];
    }
  }

  if (sign_fix) {  // Q <- Q diag(sign(R_jj)), so that QR has R_jj >= 0 (Mezzadri §4)
    for (int64_t j = 0; j < n; ++j) {
      if (rdiag[static_cast<size_t>(j)] < 0.0) {
        for (int64_t i = 0; i < n; ++i) q(i, j) = -q(i, j);
      }
    }
  }
  return q;
}

}  // namespace internal

Generated HaarOrthogonal(int64_t n, uint64_t seed, uint64_t stream) {
  if (n < 1)
    throw std::invalid_argument("HaarOrthogonal: n must be >= 1, got " + std::to_string(n));
  const ref::Matrix a = GaussianMatrix(n, n, seed, stream).matrix;  // (n, n)
  Generated q;
  q.matrix = internal::QrOrthogonalFactor(a, /*sign_fix=*/true);
  q.generator = kHaarOrthogonalName;
  q.version = kHaarOrthogonalVersion;
  q.params = "n=" + std::to_string(n) + ";seed=" + std::to_string(seed) +
             ";stream=" + std::to_string(stream);
  return q;
}

std::vector<Generated> LayerStack(int64_t num_layers, int64_t rows, int64_t cols, double rho,
                                  uint64_t seed) {
  CheckShape(rows, cols, "LayerStack");
  if (num_layers < 0) {
    throw std::invalid_argument("LayerStack: num_layers must be >= 0, got " +
                                std::to_string(num_layers));
  }
  if (!(rho >= 0.0 && rho <= 1.0)) {  // also rejects NaN
    throw std::invalid_argument("LayerStack: rho must be in [0, 1], got " + CanonicalDouble(rho));
  }
  const double innovation = std::sqrt(1.0 - rho * rho);
  std::vector<Generated> layers;
  layers.reserve(static_cast<size_t>(num_layers));
  for (int64_t l = 0; l < num_layers; ++l) {
    Generated w;
    w.matrix.rows = rows;
    w.matrix.cols = cols;
    // G_l: (rows, cols), unit normals from stream l; W_l overwrites it in place.
    std::vector<double>& data = w.matrix.data;
    data = UnitNormals(rows * cols, seed, static_cast<uint64_t>(l));
    if (l > 0) {
      const std::vector<double>& prev = layers.back().matrix.data;  // W_{l-1}
      for (size_t i = 0; i < data.size(); ++i) data[i] = rho * prev[i] + innovation * data[i];
    }
    w.generator = kLayerStackName;
    w.version = kLayerStackVersion;
    w.params = "num_layers=" + std::to_string(num_layers) + ";rows=" + std::to_string(rows) +
               ";cols=" + std::to_string(cols) + ";rho=" + CanonicalDouble(rho) +
               ";seed=" + std::to_string(seed) + ";layer=" + std::to_string(l);
    layers.push_back(std::move(w));
  }
  return layers;
}

std::string ContentHash(const Generated& g) {
  const ref::Matrix& m = g.matrix;
  if (m.rows < 0 || m.cols < 0 || m.data.size() != static_cast<size_t>(m.rows * m.cols)) {
    throw std::invalid_argument("ContentHash: data.size() must equal rows * cols");
  }
  std::string header;
  AppendU64Le(header, g.generator.size());
  header += g.generator;
  AppendU64Le(header, static_cast<uint64_t>(static_cast<int64_t>(g.version)));
  AppendU64Le(header, g.params.size());
  header += g.params;
  AppendU64Le(header, static_cast<uint64_t>(m.rows));
  AppendU64Le(header, static_cast<uint64_t>(m.cols));

  harness::Hasher hasher;
  hasher.Update(header);
  std::string chunk;
  chunk.reserve(8 * 1024);
  for (double x : m.data) {
    AppendU64Le(chunk, std::bit_cast<uint64_t>(x));
    if (chunk.size() >= 8 * 1024) {
      hasher.Update(chunk);
      chunk.clear();
    }
  }
  if (!chunk.empty()) hasher.Update(chunk);
  return hasher.Digest().Hex();
}

}  // namespace cb::gen
