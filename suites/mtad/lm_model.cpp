// File: suites/mtad/lm_model.cpp
// The prefix-keyed KV cache of suites/mtad/lm_model.h.
#include "suites/mtad/lm_model.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace cb::mtad {

namespace lms = cb::lm_suite;

CachedLmModel::CachedLmModel(const lms::IncrementalLm& model, int capacity)
    : model_(model), capacity_(capacity) {
  if (capacity < 2) throw std::invalid_argument("mtad lm model: capacity must be >= 2");
  if (!model.model().arch().causal) throw std::invalid_argument("mtad lm model: the model must be causal");
}

void CachedLmModel::Clear() const { entries_.clear(); }

// Stores p(. | key[0..n)) = softmax(logits) (fp64) with `state`, and copies it to `probs`.
void CachedLmModel::Store(const std::vector<int>& key, size_t n, const std::shared_ptr<const lms::KvState>& state,
                          std::span<const float> logits, std::span<double> probs) const {
  Entry e;
  e.state = state;
  e.probs.resize(logits.size());
  const double mx = *std::max_element(logits.begin(), logits.end());
  double z = 0;
  for (size_t v = 0; v < logits.size(); ++v) z += e.probs[v] = std::exp(double(logits[v]) - mx);
  for (double& p : e.probs) p /= z;
  std::copy(e.probs.begin(), e.probs.end(), probs.begin());
  e.used = ++clock_;
  entries_[std::vector<int>(key.begin(), key.begin() + n)] = std::move(e);
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

// REQUIRES: 1 <= from <= key.size().
void CachedLmModel::Ensure(const std::vector<int>& key, size_t from, std::span<double> out) const {
  const size_t V = static_cast<size_t>(vocab_size());
  auto row = [&](size_t n) { return out.subspan((n - from) * V, V); };
  // Longest stored prefix of `key` (itself included); its entry is copied
  // (a shared_ptr and the probabilities) because storing may evict it.
  size_t have = key.size();
  std::shared_ptr<const lms::KvState> parent;
  for (; have >= 1; --have) {
    const auto it = entries_.find(std::vector<int>(key.begin(), key.begin() + have));
    if (it == entries_.end()) continue;
    it->second.used = ++clock_;
    parent = it->second.state;
    if (have >= from) std::copy(it->second.probs.begin(), it->second.probs.end(), row(have).begin());
    break;
  }
  if (have < key.size()) {
    std::vector<float> logits;  // [new positions, V]
    std::shared_ptr<lms::KvState> state;
    size_t first;  // the prefix length logits row 0 belongs to
    if (have == 0) {
      state = model_.Prefill(key, logits);
      prefill_tokens_ += static_cast<int64_t>(key.size());
      first = 1;
    } else {
      state = parent->Truncated(static_cast<int>(have));  // the fork
      const std::span<const int> rest = std::span<const int>(key).subspan(have);
      logits = model_.Extend(rest, *state);
      if (rest.size() == 1) {
        ++decode_steps_;
      } else {
        ++block_calls_;
        block_tokens_ += static_cast<int64_t>(rest.size());
      }
      first = have + 1;
    }
    for (size_t n = std::max(first, from); n <= key.size(); ++n)
      Store(key, n, state, std::span<const float>(logits).subspan((n - first) * V, V), row(n));
  }
  // Rows between `from` and the stored prefix that an eviction dropped.
  for (size_t n = from; n < std::min(have, key.size() + 1); ++n) {
    const auto it = entries_.find(std::vector<int>(key.begin(), key.begin() + n));
    if (it != entries_.end()) {
      it->second.used = ++clock_;
      std::copy(it->second.probs.begin(), it->second.probs.end(), row(n).begin());
    } else {
      Ensure(std::vector<int>(key.begin(), key.begin() + n), n, row(n));
    }
  }
}

void CachedLmModel::Next(std::span<const cb::ref::lm::Token> prefix, std::span<double> out) const {
  if (prefix.empty()) throw std::invalid_argument("mtad lm model: empty prefix (a transformer needs a token)");
  if (out.size() != static_cast<size_t>(vocab_size())) throw std::invalid_argument("mtad lm model: out is not (V)");
  const std::vector<int> key(prefix.begin(), prefix.end());
  Ensure(key, key.size(), out);
}

void CachedLmModel::NextBlock(std::span<const cb::ref::lm::Token> ctx, std::span<const cb::ref::lm::Token> block,
                              std::span<double> out) const {
  if (ctx.empty()) throw std::invalid_argument("mtad lm model: empty prefix (a transformer needs a token)");
  if (out.size() != (block.size() + 1) * static_cast<size_t>(vocab_size()))
    throw std::invalid_argument("mtad lm model: out is not [(g + 1) * V]");
  std::vector<int> key(ctx.begin(), ctx.end());
  key.insert(key.end(), block.begin(), block.end());
  Ensure(key, ctx.size(), out);
}

void CachedLmModel::NextMany(std::span<const std::vector<cb::ref::lm::Token>> prefixes, std::span<double> out) const {
  const size_t V = static_cast<size_t>(vocab_size());
  if (out.size() != prefixes.size() * V) throw std::invalid_argument("mtad lm model: out is not [n * V]");
  // Prefixes one token past a stored prefix (not themselves stored, each
  // once): batched. Their parents' states are forked before anything is
  // stored, so no eviction can drop one in between.
  std::vector<size_t> batched;
  std::vector<int> tokens;
  std::vector<std::unique_ptr<lms::KvState>> forks;
  std::map<std::vector<int>, size_t> first_of;  // a repeated prefix is copied from its first row
  for (size_t b = 0; b < prefixes.size(); ++b) {
    const std::vector<int>& key = prefixes[b];
    if (key.size() < 2 || entries_.count(key) || first_of.count(key)) continue;
    const auto parent = entries_.find(std::vector<int>(key.begin(), key.end() - 1));
    if (parent == entries_.end()) continue;
    parent->second.used = ++clock_;
    first_of[key] = b;
    batched.push_back(b);
    tokens.push_back(key.back());
    forks.push_back(parent->second.state->Truncated(static_cast<int>(key.size() - 1)));
  }
  if (!batched.empty()) {
    std::vector<lms::KvState*> states;
    for (const auto& f : forks) states.push_back(f.get());
    const std::vector<float> logits = model_.DecodeBatch(tokens, states);  // [n, V]
    decode_steps_ += static_cast<int64_t>(batched.size());
    ++decode_batches_;
    for (size_t i = 0; i < batched.size(); ++i) {
      const size_t b = batched[i];
      Store(prefixes[b], prefixes[b].size(), std::shared_ptr<const lms::KvState>(std::move(forks[i])),
            std::span<const float>(logits).subspan(i * V, V), out.subspan(b * V, V));
    }
  }
  for (size_t b = 0; b < prefixes.size(); ++b) {
    const auto f = first_of.find(prefixes[b]);
    if (f != first_of.end() && f->second == b) continue;  // filled above
    Next(prefixes[b], out.subspan(b * V, V));             // stored, repeated, or further away
  }
}

}  // namespace cb::mtad
