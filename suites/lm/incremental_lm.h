// File: suites/lm/incremental_lm.h
// -----------------------------------------------------------------------------
// A causal transformer's KV-cache decoding behind one interface, so decoders
// written once (MTAD's cached next-token model, PF's sampler) run on the CPU
// fast path (cpu_transformer.h) or the CUDA path (cuda_transformer.h)
// unchanged.
//
//   auto lm = MakeIncrementalLm(cpu_model, harness::Backend::kCuda);
//   std::vector<float> logits;                       // [T, V]
//   std::unique_ptr<KvState> s = lm->Prefill(prompt, logits);
//   logits = lm->Extend(block, *s);                  // [block, V], one forward
//   std::unique_ptr<KvState> fork = s->Truncated(n); // a copy of n positions
//   logits = lm->DecodeBatch(beam_tokens, beam_states); // [B, V], one per state
//
// Extend with one token is the backend's fused decode step; with more, one
// batched forward that appends every token to the cache (a speculative or
// MTAD verification). A KvState belongs to the IncrementalLm that made it.
//
// Threads: the CUDA backend keeps device workspace between calls, so one
// IncrementalLm must not be used from two threads at once (the CPU backend
// may, with distinct states). Errors: std::invalid_argument for bad tokens
// or positions (the transformers' own checks); MakeIncrementalLm throws
// std::runtime_error("cuda unavailable: ...") when the CUDA backend is
// asked for where it cannot run.
#ifndef CB_SUITES_LM_INCREMENTAL_LM_H_
#define CB_SUITES_LM_INCREMENTAL_LM_H_

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "harness/backend.h"
#include "suites/lm/cpu_transformer.h"

namespace cb::lm_suite {

// A KV cache on some backend.
class KvState {
 public:
  virtual ~KvState() = default;
  virtual int length() const = 0;  // positions cached
  // A copy of the first n positions. REQUIRES: 0 < n <= length().
  virtual std::unique_ptr<KvState> Truncated(int n) const = 0;
};

class IncrementalLm {
 public:
  virtual ~IncrementalLm() = default;
  virtual harness::Backend backend() const = 0;
  int vocab_size() const { return model_.config().vocab_size; }
  size_t num_params() const { return model_.num_params(); }
  const CpuTransformer& model() const { return model_; }

  // Runs `tokens` at positions 0..T-1 into a new state; logits [T, V].
  virtual std::unique_ptr<KvState> Prefill(std::span<const int> tokens, std::vector<float>& logits) const = 0;
  // Appends `tokens` (T >= 1) to `state`; their logits [T, V].
  virtual std::vector<float> Extend(std::span<const int> tokens, KvState& state) const = 0;
  // Appends tokens[b] to *states[b] (distinct states) for every b; logits
  // [B, V]. The CPU backend runs the B rows as one batch (weights read once:
  // MTAD's draft beams); the CUDA backend runs B decode steps in turn.
  virtual std::vector<float> DecodeBatch(std::span<const int> tokens, std::span<KvState* const> states) const = 0;

 protected:
  explicit IncrementalLm(const CpuTransformer& model) : model_(model) {}

 private:
  const CpuTransformer& model_;
};

// `model` is not owned and must outlive the result; the CUDA backend uploads
// its weights once (later changes to model.params() are not seen).
std::unique_ptr<IncrementalLm> MakeIncrementalLm(const CpuTransformer& model, harness::Backend backend);

}  // namespace cb::lm_suite

#endif  // CB_SUITES_LM_INCREMENTAL_LM_H_
