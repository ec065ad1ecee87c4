// File: suites/eagle/eagle_prefill_test.cpp
// The fusion token count and prefill cost model (reference/eagle/prefill.h),
// checked against hand-computed numbers.
#include <gtest/gtest.h>

#include "reference/eagle/prefill.h"

namespace cb::ref::eagle {
namespace {

TEST(EaglePrefill, TokenCounts) {
  const LlmShape s;
  for (size_t e = 1; e <= 5; ++e) {
    const std::vector<Expert> ex(X5Experts().begin(), X5Experts().begin() + e);
    EXPECT_EQ(ChannelConcat(s, ex, 0).visual_tokens, 1024);
    EXPECT_EQ(SequenceConcat(s, ex, 0).visual_tokens, 1024 * static_cast<int64_t>(e));
  }
  EXPECT_EQ(ChannelConcat(s, X5Experts(), 0).token_width, 1024 + 3072 + 1024 + 1536 + 1024);
}

TEST(EaglePrefill, FlopsByHand) {
  // A toy shape: d 2, L 1, f 3, V 5, n 4.
  const LlmShape s{"toy", 2, 1, 3, 5};
  const PrefillFlops f = LlmPrefill(s, 4);
  EXPECT_EQ(f.projections, 8 * 4 * 2 * 2);
  EXPECT_EQ(f.attention_dense, 4 * 16 * 2);
  EXPECT_EQ(f.attention_causal, 2 * 4 * 5 * 2);
  EXPECT_EQ(f.mlp, 6 * 4 * 2 * 3);
  EXPECT_EQ(f.lm_head, 2 * 2 * 5);
  // Vicuna-7B, 1024 tokens: ~13.5 TFLOP dense (2 * 6.5e9 params * 1024 + attention).
  const PrefillFlops v = LlmPrefill(LlmShape{}, 1024);
  EXPECT_NEAR(v.TotalDense() / 1e12, 13.8, 0.3);
}

TEST(EaglePrefill, SequenceCostsMoreThanEFoldAtZeroText) {
  const LlmShape s;
  for (size_t e = 2; e <= 5; ++e) {
    const std::vector<Expert> ex(X5Experts().begin(), X5Experts().begin() + e);
    const double r = SequenceConcat(s, ex, 0).flops.TotalCausal() / ChannelConcat(s, ex, 0).flops.TotalCausal();
    EXPECT_GT(r, static_cast<double>(e) * 0.99) << e;
    EXPECT_LT(r, static_cast<double>(e) * 1.5) << e;
  }
}

}  // namespace
}  // namespace cb::ref::eagle
