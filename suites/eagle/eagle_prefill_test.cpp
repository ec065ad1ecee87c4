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

#include "reference/eagle/fusion.h"

namespace cb::ref::eagle {
namespace {

Grid Ramp(int c, int h, int w) {
  Grid g{c, h, w, {}};
  for (int i = 0; i < c * h * w; ++i) g.v.push_back(i);
  return g;
}

TEST(EagleFusion, BilinearAlignCornersByHand) {
  // 1 x 2 x 2 [[0, 1], [2, 3]] -> 3 x 3: corners kept, centre the mean.
  const Grid out = ResizeBilinear(Ramp(1, 2, 2), 3, 3);
  const std::vector<double> want = {0, 0.5, 1, 1, 1.5, 2, 2, 2.5, 3};
  EXPECT_EQ(out.v, want);
  // 64 -> 32: source = dst * 63 / 31, so dst 31 is source 63 exactly.
  const Grid big = ResizeBilinear(Ramp(1, 1, 64), 1, 32);
  EXPECT_DOUBLE_EQ(big.v[31], 63.0);
  EXPECT_DOUBLE_EQ(big.v[1], 63.0 / 31);
}

TEST(EagleFusion, PixelUnshuffleLayout) {
  // 1 x 4 x 4 ramp: channel i*2+j holds the (i, j) phase.
  const Grid out = PixelUnshuffle(Ramp(1, 4, 4), 2);
  ASSERT_EQ(out.c, 4);
  EXPECT_EQ(out.at(0, 0, 0), 0);   // in[0][0][0]
  EXPECT_EQ(out.at(1, 0, 0), 1);   // in[0][0][1]
  EXPECT_EQ(out.at(2, 0, 0), 4);   // in[0][1][0]
  EXPECT_EQ(out.at(3, 1, 1), 15);  // in[0][3][3]
  EXPECT_EQ(out.at(1, 0, 1), 3);   // in[0][0][3]
  EXPECT_THROW(PixelUnshuffle(Ramp(1, 3, 4), 2), std::invalid_argument);
}

TEST(EagleFusion, ChannelConcatOrderAndTokenCount) {
  const Grid a = Ramp(2, 32, 32), b = PixelUnshuffle(Ramp(1, 64, 64), 2), c = Ramp(3, 64, 64);
  const Tokens t = FuseChannelConcat({a, b, c});
  EXPECT_EQ(t.n, 1024);
  EXPECT_EQ(t.width, 2 + 4 + 3);
  // Token p = y * 32 + x; expert a's channel 1 at column 1, b's channel 0 at 2.
  EXPECT_EQ(t.v[5 * 9 + 1], a.at(1, 0, 5));
  EXPECT_EQ(t.v[5 * 9 + 2], b.at(0, 0, 5));
  // c is resized 64 -> 32 (align corners): token 1023 is the corner 63, 63.
  EXPECT_EQ(t.v[1023 * 9 + 8], c.at(2, 63, 63));
}

}  // namespace
}  // namespace cb::ref::eagle
