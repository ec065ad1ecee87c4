// File: suites/radar/radar_lm.cpp
// -----------------------------------------------------------------------------
// LmAttention (radar_lm.h): per (layer, KV head) radar::Cache fed from the
// model's strided KV cache; per query head Radar decode, or StreamingLLM's
// spans through the same exact-attention kernel (AttendSpansCpu), so the two
// differ only in which tokens they attend.
#include "suites/radar/radar_lm.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace cb::radar {

const char* LmMethodName(LmMethod m) { return m == LmMethod::kRadar ? "radar" : "streaming"; }

LmAttention::LmAttention(const ref::lm::TransformerConfig& model, const LmAttentionConfig& config)
    : model_(model), config_(config) {
  config_.radar.d = model.HeadDim();
  if (config_.method == LmMethod::kStreaming && config_.backend != cb::harness::Backend::kCpu)
    throw std::invalid_argument("radar lm: StreamingLLM runs on the CPU backend only");
  if (config_.backend != cb::harness::Backend::kCpu) {
    const auto st = cb::harness::Availability(config_.backend);
    if (!st.ok) throw std::invalid_argument("radar lm: " + st.reason);
  }
  Reset();
}

LmAttention::~LmAttention() = default;

void LmAttention::Reset() {
  caches_.clear();
  const int L = model_.num_hidden_layers, KV = model_.num_key_value_heads;
  if (config_.method == LmMethod::kRadar)
    for (int i = 0; i < L * KV; ++i) {
      ref::radar::Config c = config_.radar;
      c.seed = config_.radar.seed + static_cast<uint64_t>(i);  // an Omega per (layer, head)
      caches_.push_back(std::make_unique<Cache>(config_.backend, c));
    }
  synced_.assign(L, 0);
}

lm_suite::DecodeAttentionHook LmAttention::Hook() {
  return [this](const lm_suite::DecodeAttention& a) { (*this)(a); };
}

uint64_t LmAttention::rebuilds() const {
  uint64_t n = 0;
  for (const auto& c : caches_) n += c->counters().rebuilds;
  return n;
}

void LmAttention::operator()(const lm_suite::DecodeAttention& a) {
  const int d = a.head_dim, KV = a.kv_heads, KVd = KV * d, rep = a.heads / KV;
  if (a.layer == 0) last_attended_ = 0;
  if (a.t < synced_[a.layer] + 1)
    throw std::invalid_argument("radar lm: the KV cache shrank (call Reset() after a new Prefill)");
  const int64_t first = synced_[a.layer], n = a.t - first;
  // Every head's new rows and queries before any head's cache changes.
  cb::ref::radar::RequireFinite(a.keys + first * KVd, n * KVd, "key");
  cb::ref::radar::RequireFinite(a.values + first * KVd, n * KVd, "value");
  cb::ref::radar::RequireFinite(a.q, int64_t{a.heads} * d, "query");
  if (config_.method == LmMethod::kStreaming) {
    // sink + the last w + 1 + B tokens, the spans merged when they meet.
    const int64_t sink = std::min<int64_t>(config_.radar.sink, a.t);
    const int64_t keep = int64_t{config_.radar.window} + 1 + std::max(0, config_.radar.budget);
    const int64_t from = std::max(sink, a.t - keep);
    std::vector<Span> spans;
    if (sink > 0) spans.push_back({0, sink});
    if (from < a.t) {
      if (!spans.empty() && spans.back().second == from) spans.back().second = a.t;
      else spans.push_back({from, a.t});
    }
    kbuf_.resize(static_cast<size_t>(a.t) * d);
    vbuf_.resize(kbuf_.size());
    for (int g = 0; g < KV; ++g) {
      for (const auto& [s0, s1] : spans)  // copy only the attended rows of head g
        for (int64_t r = s0; r < s1; ++r) {
          std::copy_n(a.keys + r * KVd + g * d, d, &kbuf_[r * d]);
          std::copy_n(a.values + r * KVd + g * d, d, &vbuf_[r * d]);
        }
      for (int j = 0; j < rep; ++j) {
        const int hq = g * rep + j;
        AttendSpansCpu(a.q + size_t(hq) * d, kbuf_.data(), vbuf_.data(), d, spans, a.out + size_t(hq) * d, 1);
      }
    }
    for (const auto& [s0, s1] : spans) last_attended_ += (s1 - s0) * a.heads;
    synced_[a.layer] = a.t;
    return;
  }
  kbuf_.resize(static_cast<size_t>(n) * d);
  vbuf_.resize(kbuf_.size());
  for (int g = 0; g < KV; ++g) {
    for (int64_t r = 0; r < n; ++r) {
      std::copy_n(a.keys + (first + r) * KVd + g * d, d, &kbuf_[r * d]);
      std::copy_n(a.values + (first + r) * KVd + g * d, d, &vbuf_[r * d]);
    }
    Cache& cache = *caches_[size_t(a.layer) * KV + g];
    cache.Append(kbuf_.data(), vbuf_.data(), n);
    // The group's query heads g*rep .. g*rep+rep-1, scored in one pass.
    for (const auto& spans : cache.DecodeGroup(a.q + size_t(g) * rep * d, rep, a.out + size_t(g) * rep * d))
      for (const auto& [s0, s1] : spans) last_attended_ += s1 - s0;
  }
  synced_[a.layer] = a.t;
}

}  // namespace cb::radar
