// File: suites/mtad/lm_model.cpp
// The prefix-keyed KV cache of suites/mtad/lm_model.h.
#include "suites/mtad/lm_model.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace cb::mtad {

namespace lms = cb::lm_suite;

CachedLmModel::CachedLmModel(const lms::CpuTransformer& model, int capacity)
    : model_(model), capacity_(capacity) {
  if (capacity < 2) throw std::invalid_argument("mtad lm model: capacity must be >= 2");
  if (!model.arch().causal) throw std::invalid_argument("mtad lm model: the model must be causal");
}

void CachedLmModel::Clear() const { entries_.clear(); }

void CachedLmModel::Store(std::vector<int> prefix, lms::CpuKvCache cache,
                          std::span<const float> logits) const {
  Entry e;
  e.cache = std::move(cache);
  e.probs.resize(logits.size());
  const double mx = *std::max_element(logits.begin(), logits.end());
  double z = 0;
  for (size_t v = 0; v < logits.size(); ++v) z += e.probs[v] = std::exp(double(logits[v]) - mx);
  for (double& p : e.probs) p /= z;
  e.used = ++clock_;
  entries_[std::move(prefix)] = std::move(e);
  if (static_cast<int>(entries_.size()) > capacity_) Evict();
}

void CachedLmModel::Evict() const {
  std::vector<uint64_t> stamps;
  stamps.reserve(entries_.size());
  for (const auto& [k, e] : entries_) stamps.push_back(e.used);
  const size_t drop = entries_.size() / 2;
  std::nth_element(stamps.begin(), stamps.begin() + drop, stamps.end());
  const uint64_t keep_from = stamps[drop];  // the newest half (and ties) stay
  for (auto it = entries_.begin(); it != entries_.end();) {
    it = it->second.used < keep_from ? entries_.erase(it) : std::next(it);
  }
}

void CachedLmModel::Next(std::span<const cb::ref::lm::Token> prefix, std::span<double> out) const {
  if (prefix.empty()) throw std::invalid_argument("mtad lm model: empty prefix (a transformer needs a token)");
  const int V = vocab_size();
  if (static_cast<int>(out.size()) != V) throw std::invalid_argument("mtad lm model: out is not (V)");
  std::vector<int> key(prefix.begin(), prefix.end());
  // Longest stored prefix of `key` (itself included).
  size_t have = key.size();
  auto it = entries_.end();
  for (; have >= 1; --have) {
    it = entries_.find(std::vector<int>(key.begin(), key.begin() + have));
    if (it != entries_.end()) break;
  }
  if (have == key.size()) {
    it->second.used = ++clock_;
    std::copy(it->second.probs.begin(), it->second.probs.end(), out.begin());
    return;
  }
  lms::CpuKvCache cache;
  if (have == 0) {
    const std::vector<float> logits = model_.Prefill(key, cache);  // [T, V]
    prefill_tokens_ += static_cast<int64_t>(key.size());
    Store(key, cache, std::span<const float>(logits).subspan((key.size() - 1) * V, V));
  } else {
    it->second.used = ++clock_;
    cache = it->second.cache;  // the fork
    for (size_t t = have; t < key.size(); ++t) {
      const std::vector<float> logits = model_.DecodeStep(key[t], cache);
      ++decode_steps_;
      Store(std::vector<int>(key.begin(), key.begin() + t + 1), cache, logits);
    }
  }
  const auto done = entries_.find(key);
  // Store() may have evicted older entries but never the newest one.
  std::copy(done->second.probs.begin(), done->second.probs.end(), out.begin());
}

}  // namespace cb::mtad
