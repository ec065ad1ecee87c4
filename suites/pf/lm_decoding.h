// File: suites/pf/lm_decoding.h
// -----------------------------------------------------------------------------
// PF, softmax and greedy decoding (and the PF/Gumbel/KGW watermarks) from a
// causal transformer (suites/lm/incremental_lm.h: the CPU fast path or CUDA)
// with a KV cache: prefill the prompt, then one decode step per new token. Each step's fp32 logits row
// [V] is widened to fp64 and handed to the same reference decoders as the
// n-gram path (reference/pf/pf.h): top-p at T, then
//   greedy   argmax (lowest id among ties),
//   pf       argmax(u/T - log r), r = Philox(seed, stream, y),
//   softmax  argmax(u/T - log(-log r)),
//   watermark != none: WatermarkedSample (r keyed by the watermark key and the
//            previous m tokens; KGW's own noise keyed by seed ^ stream),
// with stream = (text_index << 32) | position, as `claimbench gen text` uses.
// Alongside it records, per new token, the model's own NLL at T = 1 without
// top-p (-log softmax(logits)[y], the "PPL measured by the model" of the
// paper's Table 2) and the entropy of the distribution sampled from
// (softmax(u/T) after top-p), both fp64.
#ifndef CB_SUITES_PF_LM_DECODING_H_
#define CB_SUITES_PF_LM_DECODING_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "reference/pf/pf.h"
#include "suites/lm/cpu_transformer.h"
#include "suites/lm/incremental_lm.h"

namespace cb::pf {

enum class LmDecoder { kGreedy, kPf, kSoftmax };

// "greedy", "pf", "softmax"; throws std::invalid_argument otherwise.
LmDecoder ParseLmDecoder(const std::string& name);

struct LmDecodeOptions {
  LmDecoder decoder = LmDecoder::kPf;
  cb::ref::pf::Watermark watermark = cb::ref::pf::Watermark::kNone;
  cb::ref::pf::WatermarkParams params{};  // key and m, used when watermark != kNone
  double temperature = 1.0;               // > 0
  double top_p = 1.0;                     // (0, 1]
  uint64_t seed = 1;                      // key of the unwatermarked samplers' noise
  uint64_t text_index = 0;                // high half of the noise stream
  int max_new_tokens = 64;                // >= 1
};

struct LmDecoded {
  std::vector<int32_t> tokens;  // prompt + new tokens
  size_t prompt_length = 0;
  std::vector<double> nll;      // [new tokens] -log softmax(logits)[y_t] at T = 1
  std::vector<double> entropy;  // [new tokens] entropy (nats) of the law sampled from
};

// Decodes up to max_new_tokens after `prompt`, stopping early when prompt +
// new tokens reach the model's max_position_embeddings.
// REQUIRES: prompt non-empty, every id in [0, vocab), prompt shorter than
// max_position_embeddings; the watermark matches the decoder (pf -> pf;
// gumbel, kgw -> softmax). Throws std::invalid_argument otherwise.
LmDecoded DecodeLm(const cb::lm_suite::CpuTransformer& model, std::span<const int> prompt, const LmDecodeOptions& o);
// The same on `lm`'s backend (suites/lm/incremental_lm.h): the CUDA path's
// logits differ from the CPU's by fp32 rounding, so a sampled text may part
// from the CPU's where two candidates nearly tie.
LmDecoded DecodeLm(const cb::lm_suite::IncrementalLm& lm, std::span<const int> prompt, const LmDecodeOptions& o);

}  // namespace cb::pf

#endif  // CB_SUITES_PF_LM_DECODING_H_
