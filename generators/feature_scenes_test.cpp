// File: generators/feature_scenes_test.cpp
// The M3 scenes: deterministic, labels that match the pixels, views inside
// the canvas, extractor tokens whose semantic part follows the labels, text
// embeddings closest to their own class; bad parameters refused; golden
// hashes in fixtures/generators/feature_scenes_golden.txt.
#include "generators/feature_scenes.h"

#include <cmath>
#include <stdexcept>

#include <gtest/gtest.h>

#include "fixtures/golden.h"
#include "harness/hash.h"

namespace cb::gen {
namespace {

FeatureSceneParams Small() { return {.canvas = 40, .classes = 4, .objects = 5, .view = 24, .train_views = 3,
                                     .test_views = 2, .seed = 3}; }

double Cos(const std::vector<double>& a, const double* b) {
  double ab = 0, aa = 0, bb = 0;
  for (size_t i = 0; i < a.size(); ++i) ab += a[i] * b[i], aa += a[i] * a[i], bb += b[i] * b[i];
  return ab / std::sqrt(aa * bb);
}

TEST(FeatureScenes, SameParamsSameSceneOtherSeedOtherScene) {
  const FeatureScene a = MakeFeatureScene(Small()), b = MakeFeatureScene(Small());
  EXPECT_EQ(a.hash, b.hash);
  EXPECT_EQ(a.rgb, b.rgb);
  FeatureSceneParams p = Small();
  p.seed = 4;
  EXPECT_NE(MakeFeatureScene(p).hash, a.hash);
}

TEST(FeatureScenes, ObjectsAreDrawnAndViewsLieInsideTheCanvas) {
  const FeatureScene s = MakeFeatureScene(Small());
  int object_pixels = 0;
  for (uint8_t l : s.label) {
    EXPECT_LE(l, 4);
    object_pixels += l > 0;
  }
  EXPECT_GT(object_pixels, 40);
  ASSERT_EQ(s.train_views.size(), 3u);
  ASSERT_EQ(s.test_views.size(), 2u);
  for (const auto& v : s.train_views) {
    EXPECT_GE(v.x0, 0);
    EXPECT_LE(v.x0 + v.width, 40);
    EXPECT_LE(v.y0 + v.height, 40);
    EXPECT_EQ(ViewLabels(s, v).size(), size_t(24 * 24));
  }
}

TEST(FeatureScenes, TokensOfOneClassAgreeAndTextFindsItsClass) {
  // A pure-class patch's token is s E_k + (1 - s) appearance, so two pure
  // patches of one class are closer than patches of different classes, and
  // a class's text embedding is closest to its own class embedding.
  FeatureSceneParams p = Small();
  p.objects = 0;  // background only: every token is semantic class 0
  const FeatureScene s = MakeFeatureScene(p);
  const Extractor e = StandInExtractors(0.1, p.classes, 1)[0];
  const auto tokens = ExtractTokens(e, s, s.train_views[0]);
  ASSERT_EQ(tokens.size(), size_t(9 * e.dim));
  const auto text0 = TextEmbedding(e, 0), text1 = TextEmbedding(e, 1);
  for (int t = 0; t < 9; ++t) EXPECT_GT(Cos(text0, &tokens[t * e.dim]), Cos(text1, &tokens[t * e.dim]));
}

TEST(FeatureScenes, FeaturesAreTheTokensUpsampledWithAlignedCorners) {
  const FeatureScene s = MakeFeatureScene(Small());
  const Extractor e = StandInExtractors(0.05, 4, 2)[2];
  const auto& v = s.test_views[1];
  const auto tokens = ExtractTokens(e, s, v), features = ExtractFeatures(e, s, v);
  // Corners coincide with the corner tokens (align_corners = True).
  for (int d = 0; d < e.dim; ++d) {
    EXPECT_DOUBLE_EQ(features[d], tokens[d]);
    EXPECT_NEAR(features[(size_t(24 * 24) - 1) * e.dim + d], tokens[size_t(8) * e.dim + d], 1e-15);
  }
}

TEST(FeatureScenes, BadParametersAreRefused) {
  FeatureSceneParams p = Small();
  p.view = 41;
  EXPECT_THROW(MakeFeatureScene(p), std::invalid_argument);
  p = Small();
  p.classes = 8;
  EXPECT_THROW(MakeFeatureScene(p), std::invalid_argument);
  const FeatureScene s = MakeFeatureScene(Small());
  EXPECT_THROW(ViewLabels(s, {30, 0, 24, 24}), std::invalid_argument);
  EXPECT_THROW(TextEmbedding(StandInExtractors(1, 4, 1)[0], 5), std::invalid_argument);
  EXPECT_THROW(ExtractTokens(StandInExtractors(1, 3, 1)[0], s, s.train_views[0]), std::invalid_argument);
}

TEST(Golden, FeatureScenesHashesMatchFixture) {
  const FeatureScene s = MakeFeatureScene(Small());
  const Extractor e = StandInExtractors(0.1, 4, 1)[1];
  cb::testing::ExpectMatchesGolden(
      "generators/feature_scenes_golden.txt",
      {{"scene_c40_k4_o5_v24_s3", s.hash.Hex()},
       {"siglip_w0.1_tokens_view0", cb::harness::HashDoubles(ExtractTokens(e, s, s.train_views[0])).Hex()}});
}

}  // namespace
}  // namespace cb::gen
