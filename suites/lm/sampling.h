// File: suites/lm/sampling.h
// -----------------------------------------------------------------------------
// Next-token sampling for `claimbench lm generate`: temperature and top-k over
// one row of logits, drawn by inverse CDF from a uniform u in [0, 1) (Philox,
// so a seed fixes the text on every machine):
//   temperature 0   argmax (the lowest id among equal maxima);
//   otherwise       candidates = the top_k largest logits (all when top_k <= 0;
//                   ties broken by the lower id), p_i ∝ exp((z_i - z_max) / T)
//                   in fp64, token = the first candidate in that order whose
//                   cumulative probability exceeds u * sum p.
#ifndef CB_SUITES_LM_SAMPLING_H_
#define CB_SUITES_LM_SAMPLING_H_

#include <algorithm>
#include <cmath>
#include <numeric>
#include <span>
#include <stdexcept>
#include <vector>

namespace cb::lm_suite {

inline int SampleToken(std::span<const float> logits, double temperature, int top_k, double u) {
  if (logits.empty()) throw std::invalid_argument("sample: empty logits");
  if (!(temperature >= 0)) throw std::invalid_argument("sample: temperature must be >= 0");
  const int V = static_cast<int>(logits.size());
  if (temperature == 0)
    return static_cast<int>(std::max_element(logits.begin(), logits.end()) - logits.begin());
  std::vector<int> order(V);
  std::iota(order.begin(), order.end(), 0);
  const int k = top_k > 0 ? std::min(top_k, V) : V;
  std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int a, int b) {
    return logits[a] > logits[b] || (logits[a] == logits[b] && a < b);
  });
  const double zmax = logits[order[0]];
  std::vector<double> p(k);
  for (int i = 0; i < k; ++i) p[i] = std::exp((logits[order[i]] - zmax) / temperature);
  const double target = u * std::accumulate(p.begin(), p.end(), 0.0);
  double cum = 0;
  for (int i = 0; i < k; ++i)
    if ((cum += p[i]) > target) return order[i];
  return order[k - 1];
}

}  // namespace cb::lm_suite

#endif  // CB_SUITES_LM_SAMPLING_H_
