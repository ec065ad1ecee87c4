// File: suites/unip/distill_test.cpp
// The distillation loop, the patch labels, the ridge probe and the probe's
// mIoU (distill.h) on small cases worked by hand, and bad input.
#include "suites/unip/distill.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "generators/segscenes.h"
#include "suites/unip/teacher.h"

namespace cb::unip {
namespace {

// One hand-made 4x4 scene; labels row-major.
gen::SegScenes HandScene(const std::vector<uint8_t>& label) {
  gen::SegScenes s;
  s.params.size = 4;
  s.params.classes = 2;
  gen::SegScene scene;
  scene.size = 4;
  scene.label = label;
  scene.rgb.assign(16 * 3, 0.5);
  scene.ir.assign(16, 0.25);
  s.scenes.push_back(scene);
  return s;
}

TEST(Distill, PatchMajorityLabelsByHand) {
  // 2x2 patches: top-left all 1; top-right two 2s, two 0s (tie -> 0);
  // bottom-left three 2s; bottom-right three 0s and a 1.
  const gen::SegScenes s = HandScene({1, 1, 2, 0,  //
                                      1, 1, 2, 0,  //
                                      2, 2, 0, 0,  //
                                      2, 0, 1, 0});
  EXPECT_EQ(PatchMajorityLabels(s, 2), (std::vector<int>{1, 0, 2, 0}));
  EXPECT_EQ(PatchMajorityLabels(s, 4), (std::vector<int>{0}));  // 6 zeros, 5 ones, 5 twos
  EXPECT_THROW(PatchMajorityLabels(s, 3), std::invalid_argument);
}

TEST(Distill, ProbeMiouByHand) {
  const gen::SegScenes s = HandScene({1, 1, 2, 0,  //
                                      1, 1, 2, 0,  //
                                      2, 2, 0, 0,  //
                                      2, 0, 1, 0});
  // One-hot features of the patch labels: the ridge probe (small lambda)
  // predicts them back; painted over 2x2 patches the map is
  //   1 1 0 0 / 1 1 0 0 / 2 2 0 0 / 2 2 0 0.
  const std::vector<int> labels = PatchMajorityLabels(s, 2);
  std::vector<double> features;
  for (int k : labels)
    for (int c = 0; c < 3; ++c) features.push_back(c == k);
  const LinearProbe probe = FitRidgeProbe(features, labels, 3, 3, 1e-6);
  for (size_t p = 0; p < labels.size(); ++p) EXPECT_EQ(probe.Predict(&features[p * 3]), labels[p]);
  // Class 0: pred 8 px, label 6, intersect 5 ((3,1) is painted 2) -> 5/9. Class 1: pred 4, label
  // 5, intersect 4 -> 4/5. Class 2: pred 4 (rows 2-3, cols 0-1), label 5
  // ((0,2), (1,2), (2,0), (2,1), (3,0)), intersect 3 -> 3/6.
  EXPECT_NEAR(ProbeMiou(probe, features, s, 2), (5.0 / 9 + 4.0 / 5 + 3.0 / 6) / 3, 1e-12);
}

TEST(Distill, RidgeProbeSeparatesClusters) {
  // Three tight clusters at the corners of a triangle: one-vs-rest least
  // squares classifies every point.
  const double centre[3][2] = {{0, 0}, {4, 0}, {0, 4}};
  std::vector<double> features;
  std::vector<int> labels;
  for (int i = 0; i < 60; ++i) {
    const int k = i % 3;
    labels.push_back(k);
    features.push_back(centre[k][0] + 0.2 * std::sin(i));
    features.push_back(centre[k][1] + 0.2 * std::cos(3.0 * i));
  }
  const LinearProbe probe = FitRidgeProbe(features, labels, 2, 3, 1e-3);
  for (int i = 0; i < 60; ++i) EXPECT_EQ(probe.Predict(&features[i * 2]), labels[i]) << i;
}

TEST(Distill, BadInputIsOneLine) {
  EXPECT_THROW(FitRidgeProbe({1, 2, 3}, {0, 1}, 2, 2, 1e-3), std::invalid_argument);
  EXPECT_THROW(FitRidgeProbe({1, 2}, {0, 2}, 1, 2, 1e-3), std::invalid_argument);
  EXPECT_THROW(FitRidgeProbe({1, 2}, {0, 1}, 1, 2, 0), std::invalid_argument);
  const TeacherSpec spec{.dim = 8, .layers = 2, .heads = 2, .patch = 4, .seed = 3};
  lm_suite::CpuTransformer model = MakeTeacher(spec, 3, 8, 2);
  const std::vector<float> images(2 * 3 * 8 * 8, 0.5f);
  EXPECT_THROW(AttentionScores(model, images, 2), std::invalid_argument);
  EXPECT_THROW(AttentionScores(model, std::vector<float>(7), 0), std::invalid_argument);
  EXPECT_THROW(DistillAttention(model, images, std::vector<float>(3), 1, {}), std::invalid_argument);
}

// Distilling a model's own scores costs nothing; distilling another model's
// layer lowers the KL well below where it starts.
TEST(Distill, DistillationLowersTheAttentionKl) {
  const gen::SegScenes scenes = gen::MakeSegScenes(
      {.size = 16, .classes = 3, .min_objects = 1, .max_objects = 2, .count = 16, .seed = 5});
  const std::vector<float> images = SceneImages(scenes, false);
  const TeacherSpec tspec{.dim = 16, .layers = 2, .heads = 2, .patch = 4, .seed = 11};
  const lm_suite::CpuTransformer teacher = MakeTeacher(tspec, 3, 16, 3);
  // The teacher's random init at 0.05 attends almost uniformly; sharpen a
  // layer's target by scaling its scores.
  std::vector<float> target = AttentionScores(teacher, images, 1);
  for (float& x : target) x *= 40.0f;
  lm_suite::CpuTransformer self = MakeTeacher(tspec, 3, 16, 3);
  const std::vector<double> zero = DistillAttention(self, images, AttentionScores(self, images, 0), 0,
                                                    {.steps = 1, .batch = 4, .seed = 2});
  EXPECT_NEAR(zero[0], 0.0, 1e-9);
  lm_suite::CpuTransformer student = MakeTeacher({.dim = 8, .layers = 2, .heads = 2, .patch = 4, .seed = 4}, 3, 16, 3);
  const std::vector<double> losses = DistillAttention(student, images, target, 1,
                                                      {.steps = 150, .batch = 8, .lr = 1e-2, .seed = 6});
  const double first = std::accumulate(losses.begin(), losses.begin() + 10, 0.0) / 10;
  const double last = std::accumulate(losses.end() - 10, losses.end(), 0.0) / 10;
  EXPECT_LT(last, 0.7 * first) << "first " << first << " last " << last;
}

}  // namespace
}  // namespace cb::unip
