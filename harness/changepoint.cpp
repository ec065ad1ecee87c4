// File: harness/changepoint.cpp
// -----------------------------------------------------------------------------
// Binary segmentation with a modified-BIC penalty (see changepoint.h).
#include "harness/changepoint.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "harness/stats.h"

namespace cb::harness {
namespace {

struct Segmenter {
  std::span<const double> y;
  std::vector<double> prefix;  // prefix[i] = sum y[0, i)
  double penalty = 0, min_step = 0;
  size_t min_segment = 2;
  std::vector<size_t> splits;

  double Mean(size_t a, size_t b) const { return (prefix[b] - prefix[a]) / double(b - a); }

  void Search(size_t a, size_t b) {
    if (b - a < 2 * min_segment) return;
    double best = -1;
    size_t best_k = 0;
    for (size_t k = a + min_segment; k + min_segment <= b; ++k) {
      const double n1 = double(k - a), n2 = double(b - k);
      const double d = Mean(a, k) - Mean(k, b);
      const double reduction = n1 * n2 / (n1 + n2) * d * d;
      if (reduction > best) {
        best = reduction;
        best_k = k;
      }
    }
    if (best <= penalty) return;
    if (std::fabs(Mean(a, best_k) - Mean(best_k, b)) < min_step) return;
    splits.push_back(best_k);
    Search(a, best_k);
    Search(best_k, b);
  }
};

}  // namespace

std::vector<ChangePoint> DetectChangePoints(std::span<const double> y,
                                            const ChangePointOptions& options) {
  if (options.min_segment < 1 || options.penalty_factor < 0) {
    throw std::invalid_argument("DetectChangePoints: min_segment >= 1 and penalty_factor >= 0");
  }
  for (double v : y) {
    if (std::isnan(v)) throw std::invalid_argument("DetectChangePoints: NaN in series");
  }
  const size_t n = y.size();
  if (n < 2 * options.min_segment || n < 3) return {};
  std::vector<double> diffs(n - 1);
  for (size_t i = 0; i + 1 < n; ++i) diffs[i] = y[i + 1] - y[i];
  const double sigma = 1.482602218505602 * Mad(diffs) / std::sqrt(2.0);

  Segmenter seg;
  seg.y = y;
  seg.prefix.assign(n + 1, 0.0);
  for (size_t i = 0; i < n; ++i) seg.prefix[i + 1] = seg.prefix[i] + y[i];
  seg.penalty = options.penalty_factor * sigma * sigma * std::log(double(n));
  seg.min_step = std::max(options.min_step, options.min_relative_step * std::fabs(Median(y)));
  seg.min_segment = options.min_segment;
  seg.Search(0, n);
  std::sort(seg.splits.begin(), seg.splits.end());

  std::vector<ChangePoint> out;
  for (size_t i = 0; i < seg.splits.size(); ++i) {
    const size_t start = i == 0 ? 0 : seg.splits[i - 1];
    const size_t end = i + 1 < seg.splits.size() ? seg.splits[i + 1] : n;
    out.push_back({seg.splits[i], seg.Mean(start, seg.splits[i]), seg.Mean(seg.splits[i], end)});
  }
  return out;
}

}  // namespace cb::harness
