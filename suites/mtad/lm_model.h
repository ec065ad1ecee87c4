// File: suites/mtad/lm_model.h
// -----------------------------------------------------------------------------
// A causal transformer (suites/lm/incremental_lm.h: the CPU fast path or the
// CUDA path) as MTAD's next-token model (reference/mtad.h's NextTokenModel),
// with KV caches keyed by prefix, so the reference decoders (Ancestral,
// Speculative, Mtad, DraftBeams) run on the trained target and draft
// unchanged:
//
//   Next(prefix)  exact hit: the stored distribution. Otherwise the longest
//                 stored proper prefix's cache is forked (KvState::Truncated:
//                 a copy of its positions) and the missing tokens are run in
//                 ONE IncrementalLm::Extend (the fused decode step for one
//                 token, a batched forward for more), the prefix stored;
//                 with no stored prefix, one Prefill of the whole prefix.
//                 out (V) = softmax(logits) in fp64.
//   NextBlock(ctx, block)  the g + 1 distributions of a verification from
//                 ONE Extend of the block after ctx's cache: what Speculative
//                 and Mtad count as one target call is one batched forward;
//                 each of the g + 1 prefixes stored.
//   NextMany(prefixes)  the draft beams of one MTAD step: the prefixes one
//                 token past a stored prefix run as ONE IncrementalLm::
//                 DecodeBatch (each forks its parent); any other goes through
//                 Next.
//
// So MTAD's B draft beams share their common prefix's cache (each beam forks
// it), and a verification costs one forward over g tokens. The prefixes one
// call stores share one cache (each entry remembers its own length in it).
//
// Eviction: at most `capacity` prefixes are kept; beyond that the least
// recently used half is dropped (a dropped prefix is recomputed from its
// longest stored prefix, or prefilled). Clear() drops all: timed runs clear
// before each sequence so no run reuses another's work.
//
// Counters count the transformer work done: prefill_tokens (positions run by
// Prefill), decode_steps (one-token Extends and DecodeBatch rows),
// decode_batches (DecodeBatch calls), block_calls / block_tokens (Extends of
// two or more tokens). Not thread-safe (Next is const but
// mutates the cache). Errors: std::invalid_argument for an empty prefix, a
// token outside [0, V) (the transformer's own check), capacity < 2.
#ifndef CB_SUITES_MTAD_LM_MODEL_H_
#define CB_SUITES_MTAD_LM_MODEL_H_

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <vector>

#include "reference/mtad.h"
#include "suites/lm/incremental_lm.h"

namespace cb::mtad {

class CachedLmModel : public cb::ref::mtad::NextTokenModel {
 public:
  // `model` is not owned and must outlive this.
  explicit CachedLmModel(const cb::lm_suite::IncrementalLm& model, int capacity = 256);

  int vocab_size() const override { return model_.vocab_size(); }
  // 2 x parameters: the FLOPs of one decode step's matrix-vector products.
  double EvalCost() const override { return 2.0 * double(model_.num_params()); }
  void Next(std::span<const cb::ref::lm::Token> prefix, std::span<double> out) const override;
  void NextBlock(std::span<const cb::ref::lm::Token> ctx, std::span<const cb::ref::lm::Token> block,
                 std::span<double> out) const override;
  void NextMany(std::span<const std::vector<cb::ref::lm::Token>> prefixes, std::span<double> out) const override;

  void Clear() const;
  int64_t prefill_tokens() const { return prefill_tokens_; }
  int64_t decode_steps() const { return decode_steps_; }
  int64_t decode_batches() const { return decode_batches_; }
  int64_t block_calls() const { return block_calls_; }
  int64_t block_tokens() const { return block_tokens_; }
  const cb::lm_suite::IncrementalLm& model() const { return model_; }

 private:
  struct Entry {
    std::shared_ptr<const cb::lm_suite::KvState> state;  // covers the prefix (and maybe more)
    std::vector<double> probs;                           // (V) p(. | prefix)
    uint64_t used = 0;
  };
  // Makes p(. | key[0..n)) known for every n in [from, key.size()], into
  // out [(key.size() - from + 1) * V], row n - from.
  void Ensure(const std::vector<int>& key, size_t from, std::span<double> out) const;
  void Store(const std::vector<int>& key, size_t n, const std::shared_ptr<const cb::lm_suite::KvState>& state,
             std::span<const float> logits, std::span<double> probs) const;
  void Evict() const;

  const cb::lm_suite::IncrementalLm& model_;
  int capacity_;
  mutable std::map<std::vector<int>, Entry> entries_;
  mutable uint64_t clock_ = 0;
  mutable int64_t prefill_tokens_ = 0, decode_steps_ = 0, decode_batches_ = 0, block_calls_ = 0, block_tokens_ = 0;
};

}  // namespace cb::mtad

#endif  // CB_SUITES_MTAD_LM_MODEL_H_
