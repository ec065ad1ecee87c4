// File: reference/m3/metrics.cpp
#include "reference/m3/metrics.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace cb::ref::m3 {

double OtsuThreshold(std::span<const double> x) {
  if (x.empty()) throw std::invalid_argument("OtsuThreshold: empty input");
  for (double v : x)
    if (!std::isfinite(v)) throw std::invalid_argument("OtsuThreshold: non-finite value");
  const auto [lo_it, hi_it] = std::minmax_element(x.begin(), x.end());
  const double lo = *lo_it, hi = *hi_it;
  if (lo == hi) return lo;
  // numpy.histogram(x, 256, range=(lo, hi)): edges = linspace(lo, hi, 257),
  // bin = floor((v - lo) * 256 / (hi - lo)) corrected against the edges, the
  // maximum in the last bin; skimage's centres are the edge midpoints.
  constexpr int kBins = 256;
  std::vector<double> edge(kBins + 1), count(kBins, 0.0), centre(kBins);
  const double step = (hi - lo) / kBins, norm = kBins / (hi - lo);
  for (int b = 0; b < kBins; ++b) edge[b] = b * step + lo;
  edge[kBins] = hi;
  for (int b = 0; b < kBins; ++b) centre[b] = (edge[b] + edge[b + 1]) / 2.0;
  for (double v : x) {
    int b = std::clamp(int((v - lo) * norm), 0, kBins - 1);
    if (v < edge[b]) --b;
    else if (b != kBins - 1 && v >= edge[b + 1]) ++b;
    count[b] += 1.0;
  }
  std::vector<double> w1(kBins), m1(kBins), w2(kBins), m2(kBins);
  double cw = 0, cm = 0;
  for (int b = 0; b < kBins; ++b) {
    cw += count[b], cm += count[b] * centre[b];
    w1[b] = cw, m1[b] = cw > 0 ? cm / cw : 0.0;
  }
  cw = 0, cm = 0;
  for (int b = kBins - 1; b >= 0; --b) {
    cw += count[b], cm += count[b] * centre[b];
    w2[b] = cw, m2[b] = cw > 0 ? cm / cw : 0.0;
  }
  // The first bin holds the minimum and the last the maximum, so neither
  // w1 nor w2 is 0 where it divides (numpy's means have no 0/0 here).
  int best = 0;
  double best_v = -1.0;
  for (int b = 0; b + 1 < kBins; ++b) {
    const double v = w1[b] * w2[b + 1] * (m1[b] - m2[b + 1]) * (m1[b] - m2[b + 1]);
    if (v > best_v) best_v = v, best = b;
  }
  return centre[best];
}

void GroundingScore::Add(std::span<const char> pred, std::span<const char> gt) {
  if (pred.size() != gt.size()) throw std::invalid_argument("GroundingScore: mask sizes differ");
  double i = 0, u = 0;
  for (size_t p = 0; p < pred.size(); ++p) {
    i += pred[p] && gt[p];
    u += pred[p] || gt[p];
  }
  const double iou = i / (u + 1e-6);
  ++queries_;
  iou_sum_ += iou;
  cum_i_ += i, cum_u_ += u;
  at_least_half_ += iou >= 0.5;
}

double GroundingScore::MIoU() const { return queries_ ? 100.0 * iou_sum_ / double(queries_) : 0.0; }
double GroundingScore::CIoU() const { return cum_u_ > 0 ? 100.0 * cum_i_ / cum_u_ : 0.0; }
double GroundingScore::Ap50() const { return queries_ ? 100.0 * double(at_least_half_) / double(queries_) : 0.0; }

double RecallAtK(const std::vector<double>& scores, int64_t queries, int64_t candidates,
                 const std::vector<int64_t>& correct, int k) {
  if (int64_t(scores.size()) != queries * candidates || int64_t(correct.size()) != queries || k < 1)
    throw std::invalid_argument("RecallAtK: scores must be (queries, candidates), one correct index per query, k >= 1");
  if (queries == 0) return 0.0;
  int64_t hits = 0;
  for (int64_t q = 0; q < queries; ++q) {
    const double* row = &scores[q * candidates];
    const double mine = row[correct[q]];
    int64_t above = 0;
    for (int64_t c = 0; c < candidates; ++c) above += c != correct[q] && row[c] >= mine;
    hits += above < k;
  }
  return 100.0 * double(hits) / double(queries);
}

}  // namespace cb::ref::m3
