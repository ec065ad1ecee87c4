// File: reference/eagle/prefill.cpp
// The fusion token count and prefill cost model; see prefill.h.
#include "reference/eagle/prefill.h"

#include <algorithm>

namespace cb::ref::eagle {

const std::vector<Expert>& X5Experts() {
  static const std::vector<Expert> kX5 = {
      {"clip-448", 1024}, {"convnext-1024", 3072}, {"sam-1024", 1024}, {"pix2struct-1024", 1536}, {"det-1024", 1024}};
  return kX5;
}

PrefillFlops LlmPrefill(const LlmShape& s, int64_t n) {
  const double N = static_cast<double>(n), d = static_cast<double>(s.d), L = static_cast<double>(s.layers);
  PrefillFlops f;
  f.projections = L * 8 * N * d * d;
  f.attention_dense = L * 4 * N * N * d;
  f.attention_causal = L * 2 * N * (N + 1) * d;
  f.mlp = L * 6 * N * d * static_cast<double>(s.ffn);
  f.lm_head = 2 * d * static_cast<double>(s.vocab);
  return f;
}

namespace {
double Projector(int64_t tokens, int64_t c_in, int64_t d) {
  return 2.0 * static_cast<double>(tokens) * (static_cast<double>(c_in) * d + static_cast<double>(d) * d);
}
}  // namespace

Fusion ChannelConcat(const LlmShape& s, const std::vector<Expert>& experts, int64_t text_tokens) {
  Fusion f;
  f.visual_tokens = kTokensPerExpert;
  for (const auto& e : experts) f.token_width += e.channels;
  f.flops = LlmPrefill(s, f.visual_tokens + text_tokens);
  f.flops.projector = Projector(kTokensPerExpert, f.token_width, s.d);
  return f;
}

Fusion SequenceConcat(const LlmShape& s, const std::vector<Expert>& experts, int64_t text_tokens) {
  Fusion f;
  f.visual_tokens = kTokensPerExpert * static_cast<int64_t>(experts.size());
  f.flops = LlmPrefill(s, f.visual_tokens + text_tokens);
  for (const auto& e : experts) {
    f.token_width = std::max(f.token_width, e.channels);
    f.flops.projector += Projector(kTokensPerExpert, e.channels, s.d);
  }
  return f;
}

}  // namespace cb::ref::eagle
