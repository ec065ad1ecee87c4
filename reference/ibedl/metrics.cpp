// File: reference/ibedl/metrics.cpp
// ACC, ECE (torchmetrics' binning), NLL, Brier and OOD AUROC/AUPR (metrics.h).
#include "reference/ibedl/metrics.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "reference/common/roc.h"

namespace cb::ref::ibedl {

namespace {

size_t Rows(std::span<const double> x, int K, std::span<const int> labels) {
  if (K < 1 || x.empty() || x.size() % K != 0 || x.size() / K != labels.size())
    throw std::invalid_argument("ibedl metrics: values must be [N, K] with N labels, N >= 1");
  for (double v : x)
    if (std::isnan(v)) throw std::invalid_argument("ibedl metrics: NaN value");
  for (int y : labels)
    if (y < 0 || y >= K) throw std::invalid_argument("ibedl metrics: label " + std::to_string(y) + " outside [0, K)");
  return labels.size();
}

int Argmax(const double* row, int K) { return int(std::max_element(row, row + K) - row); }

}  // namespace

std::vector<double> Softmax(std::span<const double> logits, int K) {
  std::vector<double> p(logits.size());
  for (size_t i = 0; i < logits.size() / K; ++i) {
    const double* z = &logits[i * K];
    const double mx = *std::max_element(z, z + K);
    double se = 0;
    for (int k = 0; k < K; ++k) se += std::exp(z[k] - mx);
    for (int k = 0; k < K; ++k) p[i * K + k] = std::exp(z[k] - mx) / se;
  }
  return p;
}

double Accuracy(std::span<const double> probs, int K, std::span<const int> labels) {
  const size_t N = Rows(probs, K, labels);
  double hits = 0;
  for (size_t i = 0; i < N; ++i) hits += Argmax(&probs[i * K], K) == labels[i];
  return hits / double(N);
}

double Ece(std::span<const double> probs, int K, std::span<const int> labels, int bins) {
  const size_t N = Rows(probs, K, labels);
  if (bins < 1) throw std::invalid_argument("ibedl metrics: bins must be >= 1");
  std::vector<double> count(bins + 1, 0.0), conf(bins + 1, 0.0), acc(bins + 1, 0.0);
  for (size_t i = 0; i < N; ++i) {
    const double* row = &probs[i * K];
    const int pred = Argmax(row, K);
    const double c = row[pred];
    // bucketize(right=True) - 1: the number of boundaries k/bins <= c, minus 1.
    int idx = -1;
    for (int k = 0; k <= bins; ++k)
      if (double(k) / bins <= c) idx = k;
    if (idx < 0) idx = 0;  // c < 0 cannot come from probabilities; torch would wrap to the last bin
    count[idx] += 1;
    conf[idx] += c;
    acc[idx] += pred == labels[i] ? 1.0 : 0.0;
  }
  double ece = 0;
  for (int b = 0; b <= bins; ++b)
    if (count[b] > 0) ece += std::abs(acc[b] / count[b] - conf[b] / count[b]) * count[b] / double(N);
  return ece;
}

double EceFromLogits(std::span<const double> logits, int K, std::span<const int> labels, int bins) {
  const bool probabilities = std::all_of(logits.begin(), logits.end(), [](double v) { return v >= 0 && v <= 1; });
  if (probabilities) return Ece(logits, K, labels, bins);
  const std::vector<double> p = Softmax(logits, K);
  return Ece(p, K, labels, bins);
}

double Nll(std::span<const double> logits, int K, std::span<const int> labels) {
  const size_t N = Rows(logits, K, labels);
  double s = 0;
  for (size_t i = 0; i < N; ++i) {
    const double* z = &logits[i * K];
    const double mx = *std::max_element(z, z + K);
    double se = 0;
    for (int k = 0; k < K; ++k) se += std::exp(z[k] - mx);
    s += mx + std::log(se) - z[labels[i]];
  }
  return s / double(N);
}

double Brier(std::span<const double> probs, int K, std::span<const int> labels) {
  const size_t N = Rows(probs, K, labels);
  double s = 0;
  for (size_t i = 0; i < N; ++i)
    for (int k = 0; k < K; ++k) {
      const double d = probs[i * K + k] - (k == labels[i] ? 1.0 : 0.0);
      s += d * d;
    }
  return s / double(N);
}

double AveragePrecision(std::span<const double> scores, std::span<const int> labels) {
  if (scores.size() != labels.size() || scores.empty())
    throw std::invalid_argument("ibedl metrics: scores and labels sizes differ or are empty");
  std::vector<size_t> order(scores.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return scores[a] > scores[b]; });
  double positives = 0;
  for (int y : labels) {
    if (y != 0 && y != 1) throw std::invalid_argument("ibedl metrics: OOD labels must be 0/1");
    positives += y;
  }
  if (positives == 0) throw std::invalid_argument("ibedl metrics: no positive example");
  double tp = 0, fp = 0, ap = 0, prev_recall = 0;
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j < order.size() && scores[order[j]] == scores[order[i]]) {
      tp += labels[order[j]];
      fp += 1 - labels[order[j]];
      ++j;
    }
    const double recall = tp / positives, precision = tp / (tp + fp);
    ap += (recall - prev_recall) * precision;
    prev_recall = recall;
    i = j;
  }
  return ap;
}

OodScores Ood(std::span<const double> id_logits, int k_id, std::span<const double> id_u,
              std::span<const double> ood_logits, int k_ood, std::span<const double> ood_u) {
  if (k_id < 1 || k_ood < 1 || id_logits.empty() || ood_logits.empty() || id_logits.size() % k_id ||
      ood_logits.size() % k_ood)
    throw std::invalid_argument("ibedl metrics: OOD logits must be [N, K], N >= 1");
  const size_t n_id = id_logits.size() / k_id, n_ood = ood_logits.size() / k_ood;
  std::vector<int> det(n_id, 1);
  det.resize(n_id + n_ood, 0);
  std::vector<double> mp;
  for (const auto& [z, K] : {std::pair{id_logits, k_id}, std::pair{ood_logits, k_ood}}) {
    const std::vector<double> p = Softmax(z, K);
    for (size_t i = 0; i < p.size() / K; ++i) mp.push_back(*std::max_element(&p[i * K], &p[i * K] + K));
  }
  OodScores o;
  o.auroc_mp = cb::ref::Auroc(mp, det);
  o.aupr_mp = AveragePrecision(mp, det);
  if (!id_u.empty() && !ood_u.empty()) {
    if (id_u.size() != n_id || ood_u.size() != n_ood)
      throw std::invalid_argument("ibedl metrics: one uncertainty per example");
    std::vector<double> um;
    for (double u : id_u) um.push_back(1.0 / std::max(u, 1e-8));
    for (double u : ood_u) um.push_back(1.0 / std::max(u, 1e-8));
    o.auroc_um = cb::ref::Auroc(um, det);
    o.aupr_um = AveragePrecision(um, det);
    o.has_um = true;
  }
  return o;
}

}  // namespace cb::ref::ibedl
