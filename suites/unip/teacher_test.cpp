// File: suites/unip/teacher_test.cpp
// -----------------------------------------------------------------------------
// The tiny supervised ViT teacher (teacher.h): scene images in the
// substrate's layout, dominant-class labels by hand, training that learns
// the RGB task far above the majority-class rate, and the attention NMI
// profile: exactly 0 in every layer when attention is uniform (zero query
// weights), independent of how many images share the forward pass, in
// [0, 1], and moved by training.
#include "suites/unip/teacher.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

#include <gtest/gtest.h>

#include "reference/unip/nmi.h"

namespace cb::unip {
namespace {

const gen::SegScenesParams kScenes{.size = 32, .classes = 4, .min_objects = 1, .max_objects = 3, .count = 96,
                                   .seed = 3};

TEST(Teacher, SceneImagesAndLabels) {
  const gen::SegScenes s = gen::MakeSegScenes({.size = 16, .classes = 3, .min_objects = 1, .max_objects = 3, .count = 4});
  const std::vector<float> rgb = SceneImages(s, false), ir = SceneImages(s, true);
  ASSERT_EQ(rgb.size(), size_t(4 * 3 * 16 * 16));
  ASSERT_EQ(ir.size(), size_t(4 * 16 * 16));
  // Image 2, channel 1 (green), pixel (5, 7).
  EXPECT_EQ(rgb[((2 * 3 + 1) * 16 + 5) * 16 + 7], float(s.scenes[2].rgb[(5 * 16 + 7) * 3 + 1]));
  EXPECT_EQ(ir[(3 * 16 + 9) * 16 + 2], float(s.scenes[3].ir[9 * 16 + 2]));
  const std::vector<int> labels = DominantClassLabels(s);
  for (size_t i = 0; i < labels.size(); ++i) {
    std::map<int, int> count;
    for (uint8_t k : s.scenes[i].label) ++count[k];
    for (int k = 1; k <= 3; ++k) EXPECT_LE(count[k], count[labels[i] + 1]) << "scene " << i;
  }
  EXPECT_THROW(DominantClassLabels(gen::MakeSegScenes({.min_objects = 0, .max_objects = 0, .count = 1})),
               std::invalid_argument);
  EXPECT_THROW(MakeTeacher({.patch = 5}, 3, 32, 4), std::invalid_argument);
}

TEST(Teacher, NmiProfileOfUniformAttentionIsZeroAndBatchFree) {
  const TeacherSpec spec{.dim = 16, .layers = 3, .heads = 2, .patch = 8};
  lm_suite::CpuTransformer model = MakeTeacher(spec, 3, 32, 4);
  const std::vector<float> images = SceneImages(gen::MakeSegScenes(kScenes), false);
  const std::vector<float> four(images.begin(), images.begin() + 4 * 3 * 32 * 32);
  const std::vector<double> profile = AttentionNmiProfile(model, four);
  ASSERT_EQ(profile.size(), 3u);
  for (double v : profile) {
    EXPECT_GT(v, 0.0);
    EXPECT_LT(v, 1.0);
  }
  // Image by image: the mean of the single-image profiles.
  std::vector<double> mean(3, 0.0);
  for (int i = 0; i < 4; ++i) {
    const std::vector<float> one(four.begin() + i * 3 * 32 * 32, four.begin() + (i + 1) * 3 * 32 * 32);
    const std::vector<double> p = AttentionNmiProfile(model, one);
    for (int l = 0; l < 3; ++l) mean[l] += p[l] / 4;
  }
  for (int l = 0; l < 3; ++l) EXPECT_NEAR(profile[l], mean[l], 1e-6) << "layer " << l;
  // Zero query weights: every score 0, every row uniform, NMI 0.
  for (int l = 0; l < 3; ++l) {
    const auto& slot = model.slot("model.layers." + std::to_string(l) + ".self_attn.q_proj.weight");
    std::fill_n(model.params().begin() + slot.offset, slot.size, 0.0f);
  }
  for (double v : AttentionNmiProfile(model, four)) EXPECT_NEAR(v, 0.0, 1e-9);
}

TEST(Teacher, SupervisedTrainingLearnsTheRgbTask) {
  const gen::SegScenes scenes = gen::MakeSegScenes(kScenes);
  const std::vector<float> images = SceneImages(scenes, false);
  const std::vector<int> labels = DominantClassLabels(scenes);
  std::map<int, int> per_class;
  for (int l : labels) ++per_class[l];
  int majority = 0;
  for (const auto& [k, n] : per_class) majority = std::max(majority, n);
  const double majority_rate = double(majority) / labels.size();

  const TeacherSpec spec{.dim = 32, .layers = 3, .heads = 4, .patch = 8, .steps = 150, .batch = 16};
  lm_suite::CpuTransformer model = MakeTeacher(spec, 3, 32, 4);
  const std::vector<double> before = AttentionNmiProfile(model, images);
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<double> losses = TrainSupervised(model, images, labels, spec);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double accuracy = Accuracy(model, images, labels);
  const std::vector<double> after = AttentionNmiProfile(model, images);
  RecordProperty("train_seconds", std::to_string(seconds));
  RecordProperty("train_accuracy", std::to_string(accuracy));
  RecordProperty("majority_rate", std::to_string(majority_rate));
  std::string profile;
  for (size_t l = 0; l < after.size(); ++l)
    profile += std::to_string(before[l]) + "->" + std::to_string(after[l]) + " ";
  RecordProperty("nmi_profile", profile);
  EXPECT_GT(accuracy, majority_rate + 0.25) << "accuracy " << accuracy << " majority " << majority_rate;
  EXPECT_LT(losses.back(), losses.front());
  double moved = 0;
  for (size_t l = 0; l < after.size(); ++l) moved = std::max(moved, std::abs(after[l] - before[l]));
  EXPECT_GT(moved, 1e-3) << profile;
}

}  // namespace
}  // namespace cb::unip
