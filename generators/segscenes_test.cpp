// File: generators/segscenes_test.cpp
// The segscenes generator: golden hash (fixtures/generators/
// segscenes_golden.txt), determinism and seed sensitivity, every RGB pixel
// the colour of its label times a texture modulation, infrared pixels at
// their class temperature, the infrared domain without texture (within-class
// variance measured against RGB's, also after the same blur), every class
// drawn, bad params refused in one line.
#include "generators/segscenes.h"

#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "fixtures/golden.h"

namespace cb::gen {
namespace {

const SegScenesParams kSmall{.size = 32, .classes = 4, .min_objects = 2, .max_objects = 4, .count = 24, .seed = 5};

// Whether every pixel within `r` of (x, y) has the label of (x, y).
bool Interior(const SegScene& s, int x, int y, int r) {
  const int n = s.size;
  const uint8_t k = s.label[size_t(y) * n + x];
  for (int dy = -r; dy <= r; ++dy)
    for (int dx = -r; dx <= r; ++dx) {
      const int xx = x + dx, yy = y + dy;
      if (xx < 0 || yy < 0 || xx >= n || yy >= n || s.label[size_t(yy) * n + xx] != k) return false;
    }
  return true;
}

TEST(SegScenes, DeterministicAndSeeded) {
  const SegScenes a = MakeSegScenes(kSmall), b = MakeSegScenes(kSmall);
  EXPECT_EQ(a.hash, b.hash);
  EXPECT_EQ(a.scenes[3].rgb, b.scenes[3].rgb);
  EXPECT_EQ(a.scenes[3].ir, b.scenes[3].ir);
  SegScenesParams q = kSmall;
  q.seed = 6;
  EXPECT_NE(MakeSegScenes(q).hash, a.hash);
  // Scene i does not depend on the count.
  q = kSmall;
  q.count = 5;
  EXPECT_EQ(MakeSegScenes(q).scenes[4].label, a.scenes[4].label);
}

TEST(SegScenes, RgbIsTheLabelsColourTimesTexture) {
  const SegScenes d = MakeSegScenes(kSmall);
  std::map<int, int> pixels_of_class;
  for (const SegScene& s : d.scenes) {
    ASSERT_EQ(s.rgb.size(), size_t(32 * 32 * 3));
    for (size_t i = 0; i < s.label.size(); ++i) {
      const int k = s.label[i];
      ASSERT_LE(k, kSmall.classes);
      ++pixels_of_class[k];
      const auto colour = SegClassColour(k);
      const double m = s.rgb[i * 3] / colour[0];
      ASSERT_GE(m, kTextureLow - 1e-12);
      ASSERT_LE(m, 1 + 1e-12);
      for (int c = 1; c < 3; ++c) ASSERT_NEAR(s.rgb[i * 3 + c], colour[c] * m, 1e-12) << "pixel " << i;
      // The chromaticity names the class: no other class's colour fits.
      for (int j = 0; j <= kSegMaxClasses; ++j) {
        if (j == k) continue;
        const auto other = SegClassColour(j);
        const double mj = s.rgb[i * 3] / other[0];
        double off = 0;
        for (int c = 0; c < 3; ++c) off = std::max(off, std::abs(s.rgb[i * 3 + c] - other[c] * mj));
        ASSERT_GT(off, 0.05) << "pixel " << i << " of class " << k << " also fits class " << j;
      }
    }
  }
  for (int k = 0; k <= kSmall.classes; ++k) EXPECT_GT(pixels_of_class[k], 100) << "class " << k;
}

TEST(SegScenes, InfraredIsTheClassTemperatureAwayFromEdges) {
  const SegScenes d = MakeSegScenes(kSmall);
  int checked = 0;
  for (const SegScene& s : d.scenes) {
    ASSERT_EQ(s.ir.size(), size_t(32 * 32));
    for (int k = 0; k <= kSmall.classes; ++k)
      EXPECT_LE(std::abs(s.temperature[k] - SegClassTemperature(k)), kIrJitter);
    for (int y = 0; y < s.size; ++y)
      for (int x = 0; x < s.size; ++x) {
        if (!Interior(s, x, y, 2)) continue;  // the blur reaches 2 pixels
        const size_t i = size_t(y) * s.size + x;
        ASSERT_NEAR(s.ir[i], s.temperature[s.label[i]], 6 * kIrNoise) << "pixel " << i;
        ++checked;
      }
  }
  EXPECT_GT(checked, 5000);
}

// Mean over (scene, class) of the variance of interior pixels' values.
double WithinClassVariance(const SegScenes& d, bool infrared, bool blur_rgb) {
  double total = 0;
  int groups = 0;
  for (const SegScene& s : d.scenes) {
    std::vector<double> v(s.label.size());
    for (size_t i = 0; i < v.size(); ++i)
      v[i] = infrared ? s.ir[i] : (s.rgb[i * 3] + s.rgb[i * 3 + 1] + s.rgb[i * 3 + 2]) / 3;
    if (!infrared && blur_rgb) v = BlurBinomial5(v, s.size, s.size);
    for (int k = 0; k <= d.params.classes; ++k) {
      double sum = 0, sum2 = 0;
      int count = 0;
      for (int y = 0; y < s.size; ++y)
        for (int x = 0; x < s.size; ++x) {
          const size_t i = size_t(y) * s.size + x;
          if (s.label[i] != k || !Interior(s, x, y, 2)) continue;
          sum += v[i], sum2 += v[i] * v[i], ++count;
        }
      if (count < 8) continue;
      total += sum2 / count - (sum / count) * (sum / count);
      ++groups;
    }
  }
  return total / groups;
}

TEST(SegScenes, InfraredHasNoTexture) {
  const SegScenes d = MakeSegScenes(kSmall);
  const double ir = WithinClassVariance(d, true, false);
  const double rgb = WithinClassVariance(d, false, false);
  const double rgb_blurred = WithinClassVariance(d, false, true);
  RecordProperty("ir_within_class_variance", std::to_string(ir));
  RecordProperty("rgb_within_class_variance", std::to_string(rgb));
  RecordProperty("rgb_blurred_within_class_variance", std::to_string(rgb_blurred));
  // The infrared's is the noise's alone (kIrNoise^2 = 2.25e-4, up to 20%).
  EXPECT_NEAR(ir, kIrNoise * kIrNoise, 0.2 * kIrNoise * kIrNoise);
  EXPECT_GT(rgb, 10 * ir) << "rgb " << rgb << " ir " << ir;
  EXPECT_GT(rgb_blurred, 5 * ir) << "blurred rgb " << rgb_blurred << " ir " << ir;
}

TEST(SegScenes, BlurKeepsConstantsAndSpreadsAnImpulse) {
  std::vector<double> flat(7 * 9, 0.3);
  for (double v : BlurBinomial5(flat, 7, 9)) EXPECT_NEAR(v, 0.3, 1e-15);
  std::vector<double> impulse(9 * 9, 0.0);
  impulse[4 * 9 + 4] = 1;
  const auto b = BlurBinomial5(impulse, 9, 9);
  EXPECT_DOUBLE_EQ(b[4 * 9 + 4], 36.0 / 256);
  EXPECT_DOUBLE_EQ(b[2 * 9 + 3], 4.0 / 256);
  EXPECT_DOUBLE_EQ(b[1 * 9 + 4], 0.0);
}

TEST(SegScenes, BadParamsAreOneLine) {
  for (const SegScenesParams& p :
       {SegScenesParams{.size = 8}, SegScenesParams{.size = 200}, SegScenesParams{.classes = 0},
        SegScenesParams{.classes = 6}, SegScenesParams{.min_objects = 3, .max_objects = 2},
        SegScenesParams{.min_objects = -1}, SegScenesParams{.max_objects = 13}, SegScenesParams{.count = 0}}) {
    try {
      MakeSegScenes(p);
      ADD_FAILURE() << "accepted " << p.Canonical();
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
      EXPECT_NE(std::string(e.what()).find("segscenes"), std::string::npos);
    }
  }
  EXPECT_THROW(MakeSegScene(SegScenesParams{}, -1), std::invalid_argument);
  EXPECT_THROW(BlurBinomial5({1.0, 2.0}, 3, 1), std::invalid_argument);
}

TEST(Golden, SegScenesHashesMatchFixture) {
  cb::testing::ExpectMatchesGolden(
      "generators/segscenes_golden.txt",
      {{"segscenes_s32_c4_o2-4_n24_seed5", MakeSegScenes(kSmall).hash.Hex()},
       {"segscenes_s48_c5_o0-6_n3_seed11",
        MakeSegScenes({.size = 48, .classes = 5, .min_objects = 0, .max_objects = 6, .count = 3, .seed = 11})
            .hash.Hex()}});
}

}  // namespace
}  // namespace cb::gen
