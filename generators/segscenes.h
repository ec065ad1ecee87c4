// File: generators/segscenes.h
// -----------------------------------------------------------------------------
// Procedural segmentation scenes for UNIP (issue 22, brief other-papers.md
// §4): small images with exact per-pixel class labels, rendered in two
// domains so that the paper's RGB -> infrared domain gap and texture bias
// exist by construction.
//
// Scene (size x size): class 0 is background; objects of classes 1..C
// (C = `classes` <= 5) are drawn in order, a later one covering an earlier
// one. Class k's shape is a disc, a rectangle or a triangle ((k - 1) mod 3),
// its size and position random per object.
//
// RGB domain, (size, size, 3) in [0, 1]: pixel = colour[label] · m, where
// the modulation m in [kTextureLow, 1] is the class's texture: oriented
// stripes of a class-specific frequency and angle (random phase per object)
// for objects, a checkerboard of random period for the background. So the
// chromaticity of a pixel names its class, and its brightness carries texture.
//
// Infrared-like domain, (size, size), one channel in [0, 1]: intensity is the
// class's temperature (a fixed table plus a per-image jitter of each class,
// the scene's "weather"), NO texture, then a separable 5-tap binomial blur
// [1 4 6 4 1] / 16 (clamp-to-edge; the sensor's optics) and Gaussian noise of
// sd kIrNoise. Within one class and image the only variation is the noise
// and the blur at edges, so its within-class variance is far below RGB's.
//
// Deterministic: scene i is a pure function of (params, i); SegScenes::hash
// (XXH3-128) covers name, version, params, every pixel of both domains and
// every label.
#ifndef CB_GENERATORS_SEGSCENES_H_
#define CB_GENERATORS_SEGSCENES_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "harness/hash.h"

namespace cb::gen {

inline constexpr const char* kSegScenesName = "segscenes";
inline constexpr int kSegScenesVersion = 1;
inline constexpr int kSegMaxClasses = 5;      // object classes; + background
inline constexpr double kTextureLow = 0.45;   // RGB modulation m in [kTextureLow, 1]
inline constexpr double kIrNoise = 0.015;     // sd of the infrared noise
inline constexpr double kIrJitter = 0.04;     // |per-image temperature jitter| <= this

struct SegScenesParams {
  int size = 32;         // H = W
  int classes = 4;       // C object classes, 1 .. kSegMaxClasses
  int min_objects = 2;   // per scene, uniform in [min_objects, max_objects]
  int max_objects = 4;
  int count = 16;        // scenes
  uint64_t seed = 1;
  std::string Canonical() const;
};

struct SegScene {
  int size = 0;
  std::vector<double> rgb;          // (size, size, 3) in [0, 1]
  std::vector<double> ir;           // (size, size) in [0, 1]
  std::vector<uint8_t> label;       // (size, size): 0 background, 1..C
  std::vector<double> temperature;  // (C + 1): this image's class temperatures, before blur and noise
};

struct SegScenes {
  SegScenesParams params;
  std::vector<SegScene> scenes;
  harness::Hash128 hash;
};

// The fixed RGB colour of class k in [0, kSegMaxClasses].
std::array<double, 3> SegClassColour(int k);
// The base temperature of class k (before the per-image jitter).
double SegClassTemperature(int k);

// REQUIRES (else std::invalid_argument, one line): 16 <= size <= 128,
// 1 <= classes <= kSegMaxClasses, 0 <= min_objects <= max_objects <= 12,
// count >= 1 (MakeSegScenes), 0 <= index.
SegScene MakeSegScene(const SegScenesParams& params, int index);
SegScenes MakeSegScenes(const SegScenesParams& params);

// The infrared optics: img (h, w) blurred by [1 4 6 4 1] / 16 along rows then
// columns, clamp-to-edge.
std::vector<double> BlurBinomial5(const std::vector<double>& img, int h, int w);

}  // namespace cb::gen

#endif  // CB_GENERATORS_SEGSCENES_H_
