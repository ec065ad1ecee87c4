// File: suites/mtad/lm_model.h
// -----------------------------------------------------------------------------
// A causal transformer (suites/lm/cpu_transformer.h) as MTAD's next-token
// model (reference/mtad.h's NextTokenModel), with a KV cache keyed by prefix,
// so the reference decoders (Ancestral, Speculative, Mtad, DraftBeams) run on
// the trained target and draft unchanged:
//
//   Next(prefix)  exact hit: the stored distribution. Otherwise the longest
//                 stored proper prefix's cache is COPIED (a fork: CpuKvCache is
//                 a plain struct of vectors) and the missing tokens are run
//                 one CpuTransformer::DecodeStep each, every intermediate
//                 prefix stored; with no stored prefix, one Prefill (a batched
//                 forward) of the whole prefix. out (V) = softmax(logits) in fp64.
//
// So MTAD's B draft beams share their common prefix's cache (each beam forks
// it), and a verification of a g-token block after a cached context costs g
// single-token decode steps (positions ctx .. ctx+g-1, plus the context's own
// distribution, already stored). CpuTransformer has no public call that
// appends several tokens to an existing cache in one batched forward, so
// this is the documented equivalent: the same positions, run one at a time;
// the decoders still count it as ONE target call (Costs::target_calls).
//
// Eviction: at most `capacity` prefixes are kept; beyond that the least
// recently used half is dropped (a dropped context is recomputed from its
// longest stored prefix, or prefilled). Clear() drops all: timed runs clear
// before each sequence so no run reuses another's work.
//
// Counters (decode_steps, prefill_tokens) count the transformer work done,
// for the cost rows. Not thread-safe (Next is const but mutates the cache).
// Errors: std::invalid_argument for an empty prefix or a token outside
// [0, V) (the transformer's own check), capacity < 2.
#ifndef CB_SUITES_MTAD_LM_MODEL_H_
#define CB_SUITES_MTAD_LM_MODEL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <vector>

#include "reference/mtad.h"
#include "suites/lm/cpu_transformer.h"

namespace cb::mtad {

class CachedLmModel : public cb::ref::mtad::NextTokenModel {
 public:
  // `model` is not owned and must outlive this.
  explicit CachedLmModel(const cb::lm_suite::CpuTransformer& model, int capacity = 256);

  int vocab_size() const override { return model_.config().vocab_size; }
  // 2 x parameters: the FLOPs of one decode step's matrix-vector products.
  double EvalCost() const override { return 2.0 * double(model_.num_params()); }
  void Next(std::span<const cb::ref::lm::Token> prefix, std::span<double> out) const override;

  void Clear() const;
  int64_t decode_steps() const { return decode_steps_; }
  int64_t prefill_tokens() const { return prefill_tokens_; }
  const cb::lm_suite::CpuTransformer& model() const { return model_; }

 private:
  struct Entry {
    cb::lm_suite::CpuKvCache cache;  // after the prefix
    std::vector<double> probs;       // (V) p(. | prefix)
    uint64_t used = 0;
  };
  void Store(std::vector<int> prefix, cb::lm_suite::CpuKvCache cache, std::span<const float> logits) const;
  void Evict() const;

  const cb::lm_suite::CpuTransformer& model_;
  int capacity_;
  mutable std::map<std::vector<int>, Entry> entries_;
  mutable uint64_t clock_ = 0;
  mutable int64_t decode_steps_ = 0, prefill_tokens_ = 0;
};

}  // namespace cb::mtad

#endif  // CB_SUITES_MTAD_LM_MODEL_H_
