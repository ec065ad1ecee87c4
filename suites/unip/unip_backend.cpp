// File: suites/unip/unip_backend.cpp
// -----------------------------------------------------------------------------
// Backend dispatch of UNIP's attention statistics (unip_backend.h). The CPU
// side is the reference; the CUDA side gets inputs checked here first, with
// the reference's rules, so both backends refuse the same inputs.
#include "suites/unip/unip_backend.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "reference/unip/distill.h"
#include "suites/unip/unip_cuda.h"

namespace cb::unip {

namespace h = cb::harness;
namespace ru = cb::ref::unip;

namespace {

void CheckMaps(std::span<const double> maps, int count, int q, int k, double eps) {
  if (count < 1 || q < 2 || k < 1) throw std::invalid_argument("BatchNmi: need count >= 1, q >= 2, k >= 1");
  if (maps.size() != size_t(count) * q * k) throw std::invalid_argument("BatchNmi: maps are not [count, q, k]");
  if (!(eps >= 0.0)) throw std::invalid_argument("BatchNmi: eps must be >= 0");
  for (size_t r = 0; r < size_t(count) * q; ++r) {
    double sum = 0.0;
    for (int j = 0; j < k; ++j) {
      const double v = maps[r * k + j];
      if (!std::isfinite(v) || v < 0.0)
        throw std::invalid_argument("BatchNmi: map " + std::to_string(r / q) + " has a negative or non-finite entry");
      sum += v + eps;
    }
    if (!(sum > 0.0))
      throw std::invalid_argument("BatchNmi: map " + std::to_string(r / q) + " row " + std::to_string(r % q) +
                                  " sums to 0");
  }
}

}  // namespace

std::vector<double> BatchNmi(h::Backend backend, std::span<const double> maps, int count, int q, int k, double eps) {
  h::RequireAvailable(backend);
  CheckMaps(maps, count, q, k, eps);
#if CB_HAVE_CUDA
  if (backend == h::Backend::kCuda) {
    std::vector<double> nmi;
    cuda::BatchNmi(std::vector<double>(maps.begin(), maps.end()), count, q, k, eps, nmi);
    return nmi;
  }
#endif
  std::vector<double> nmi(static_cast<size_t>(count));
  const size_t size = size_t(q) * k;
  for (int m = 0; m < count; ++m) nmi[m] = ru::Nmi(maps.subspan(m * size, size), q, k, eps);
  return nmi;
}

double LayerNmi(h::Backend backend, std::span<const double> a, int images, int heads, int n, bool drop_cls,
                double eps) {
  h::RequireAvailable(backend);
  if (backend == h::Backend::kCpu) return ru::LayerNmi(a, images, heads, n, drop_cls, eps);
  if (images < 1 || heads < 1) throw std::invalid_argument("LayerNmi: need at least one image and one head");
  const int m = drop_cls ? n - 1 : n, off = drop_cls ? 1 : 0;
  if (m < 2) throw std::invalid_argument("LayerNmi: fewer than 2 tokens");
  if (a.size() != size_t(images) * heads * n * n)
    throw std::invalid_argument("LayerNmi: size is not images * heads * n * n");
  // maps [images * heads, m, m]: the CLS row and column cut out.
  const int count = images * heads;
  std::vector<double> maps(size_t(count) * m * m);
  for (int c = 0; c < count; ++c)
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < m; ++j)
        maps[(size_t(c) * m + i) * m + j] = a[(size_t(c) * n + i + off) * n + j + off];
  const std::vector<double> nmi = BatchNmi(backend, maps, count, m, m, eps);
  double sum = 0.0;
  for (double v : nmi) sum += v;
  return sum / count;
}

double AttentionKl(h::Backend backend, std::span<const double> student, std::span<const double> teacher, int k,
                   std::span<double> grad) {
  h::RequireAvailable(backend);
#if CB_HAVE_CUDA
  if (backend == h::Backend::kCuda) {
    if (k < 1 || student.size() != teacher.size() || student.size() % size_t(k) != 0 || student.empty())
      throw std::invalid_argument("AttentionKl: student and teacher must both be [rows, k]");
    if (!grad.empty() && grad.size() != student.size())
      throw std::invalid_argument("AttentionKl: the gradient buffer is not [rows, k]");
    for (size_t i = 0; i < student.size(); ++i)
      if (!std::isfinite(student[i]) || !std::isfinite(teacher[i]))
        throw std::invalid_argument("AttentionKl: a logit is not finite");
    const int rows = int(student.size() / k);
    std::vector<double> row_kl, g;
    cuda::AttentionKlRows(std::vector<double>(student.begin(), student.end()),
                          std::vector<double>(teacher.begin(), teacher.end()), rows, k, row_kl,
                          grad.empty() ? nullptr : &g);
    for (size_t i = 0; i < g.size(); ++i) grad[i] = g[i];
    double total = 0.0;
    for (double v : row_kl) total += v;
    return total / rows;
  }
#endif
  return ru::AttentionKl(student, teacher, k, grad);
}

}  // namespace cb::unip
