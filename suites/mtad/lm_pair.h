// File: suites/mtad/lm_pair.h
// -----------------------------------------------------------------------------
// A target and a draft transformer checkpoint (Hugging Face layout, one
// tokenizer) loaded for MTAD, with their prompt set, and the decoders run over
// it: what the mtad.*-lm claims and `claimbench eval mtad` share.
//
//   LoadPair(target_dir, draft_dir)  both checkpoints and tokenizers; throws
//       std::invalid_argument (one line) when either does not load, is not a
//       causal token model, or the two differ in vocabulary or tokenizer.
//   SubstratePrompts(pair, n, len)   n windows of `len` BPE ids of the
//       substrate's held-out documents (suites/lm/substrate_data.h), round
//       robin over the documents, window k of each at offset 128 k.
//   RunDecoder(...)                  one decoder over the prompts, caches
//       cleared before each sequence, sequence i seeded Rng(seed, i): the
//       tokens, per-sequence NLL under the unfiltered target, costs.
#ifndef CB_SUITES_MTAD_LM_PAIR_H_
#define CB_SUITES_MTAD_LM_PAIR_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "reference/lm/bpe_tokenizer.h"
#include "reference/lm/hf_checkpoint.h"
#include "reference/mtad.h"
#include "harness/backend.h"
#include "suites/lm/cpu_transformer.h"
#include "suites/lm/incremental_lm.h"
#include "suites/mtad/lm_model.h"

namespace cb::mtad {

struct LmPair {
  std::string target_dir, draft_dir;
  std::unique_ptr<cb::lm_suite::CpuTransformer> target_tf, draft_tf;
  std::unique_ptr<cb::ref::lm::BpeTokenizer> tokenizer;  // the target's (== the draft's)
  std::unique_ptr<cb::lm_suite::IncrementalLm> target_lm, draft_lm;  // on the pair's backend
  std::unique_ptr<CachedLmModel> target, draft;
  std::string content_hash;  // both checkpoints' tensors and the tokenizer
};

// `backend` runs both models' decoding (Prefill/Extend); scoring (the NLL
// under the target) stays on the CPU fast path. CUDA throws "cuda
// unavailable: ..." where it cannot run.
std::unique_ptr<LmPair> LoadPair(const std::string& target_dir, const std::string& draft_dir,
                                 int cache_capacity = 256,
                                 cb::harness::Backend backend = cb::harness::Backend::kCpu);

std::vector<std::vector<int>> SubstratePrompts(const LmPair& pair, int n, int len);

enum class Decoder { kAncestral, kSpeculative, kMtad };
const char* DecoderName(Decoder d);

struct DecodeRuns {
  std::vector<std::vector<int>> tokens;  // per sequence
  std::vector<double> nll;               // mean NLL per token under the unfiltered target
  std::vector<double> efficiency;        // tokens per target call, per sequence
  cb::ref::mtad::Costs costs;
};

// params.gamma / params.filter also configure speculative decoding and
// ancestral sampling (filter only).
DecodeRuns RunDecoder(const LmPair& pair, Decoder decoder,
                      const std::vector<std::vector<int>>& prompts, int count, int tokens,
                      const cb::ref::mtad::MtadParams& params, uint64_t seed, bool score = true);

}  // namespace cb::mtad

#endif  // CB_SUITES_MTAD_LM_PAIR_H_
