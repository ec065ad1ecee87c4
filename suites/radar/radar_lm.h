// File: suites/radar/radar_lm.h
// -----------------------------------------------------------------------------
// Radar (Hao et al., ICLR 2025) inside the substrate's transformer: a
// DecodeAttentionHook (suites/lm/cpu_transformer.h) that replaces every
// layer's and head's decode attention by Radar's (suites/radar/radar.h: sink +
// top-k segments + remainder + window, segment rebuild when the store
// doubles), or by StreamingLLM's (sink + the last window tokens) at an equal
// budget. Prefill stays dense (as upstream); the per-head Radar caches are
// filled lazily from the model's CpuKvCache at the first decode step and then
// one row per step, so one LmAttention follows one CpuKvCache from Prefill on.
//
//   model KV cache, layer l: keys/values [t, KV*d]; head h reads KV head
//   g = h / (H / KV); LmAttention keeps per (l, g) one radar::Cache (rows of
//   head g copied, [t, d]); each query head h of the group decodes on it and
//   picks its own segments (upstream's GQA rule).
//
// Usage:
//   LmAttention radar(model.config(), {.method = LmMethod::kRadar, .radar = cfg});
//   model.set_decode_attention_hook(radar.Hook());
//   model.Prefill(prompt, kv); radar.Reset(); ... model.DecodeStep(tok, kv) ...
//
// Errors: std::invalid_argument (one line) when a decode step's cache is not
// the one followed (t shrank) or a CUDA backend is unavailable.
#ifndef CB_SUITES_RADAR_RADAR_LM_H_
#define CB_SUITES_RADAR_RADAR_LM_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "harness/backend.h"
#include "reference/lm/transformer.h"
#include "reference/radar.h"
#include "suites/lm/cpu_transformer.h"
#include "suites/radar/radar.h"

namespace cb::radar {

enum class LmMethod { kRadar, kStreaming };
const char* LmMethodName(LmMethod m);

struct LmAttentionConfig {
  LmMethod method = LmMethod::kRadar;
  // Radar's parameters; d is taken from the model. kStreaming attends
  // [0, sink) and the last window + 1 + budget tokens (Radar's budget at
  // equal cost: its window, the current token and its B selected tokens).
  ref::radar::Config radar;
  cb::harness::Backend backend = cb::harness::Backend::kCpu;
};

class LmAttention {
 public:
  LmAttention(const ref::lm::TransformerConfig& model, const LmAttentionConfig& config);
  ~LmAttention();
  LmAttention(const LmAttention&) = delete;
  LmAttention& operator=(const LmAttention&) = delete;

  // The hook for CpuTransformer::set_decode_attention_hook; refers to *this.
  lm_suite::DecodeAttentionHook Hook();
  void operator()(const lm_suite::DecodeAttention& a);
  // Forgets every cached row (call after a new Prefill).
  void Reset();

  // Tokens attended per (layer, query head) in the last step, summed; and
  // the number of Radar rebuilds so far over every cache.
  int64_t last_attended() const { return last_attended_; }
  uint64_t rebuilds() const;
  const LmAttentionConfig& config() const { return config_; }

 private:
  ref::lm::TransformerConfig model_;
  LmAttentionConfig config_;
  std::vector<std::unique_ptr<Cache>> caches_;  // [L * KV]
  std::vector<int64_t> synced_;                 // rows copied per layer
  std::vector<float> kbuf_, vbuf_;              // [n, d] staging
  int64_t last_attended_ = 0;
};

}  // namespace cb::radar

#endif  // CB_SUITES_RADAR_RADAR_LM_H_
