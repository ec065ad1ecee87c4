// File: generators/feature_scenes.h
// -----------------------------------------------------------------------------
// Procedural scenes for M3 (issue 26, brief other-papers.md §5): a square
// canvas of textured background with objects of a few classes, seen through
// many square views (windows at different offsets, the 2-D stand-in for
// camera poses), and "foundation-model" feature maps of each view from fixed
// random feature extractors of the paper's widths.
//
// Scene: canvas (S, S); class 0 is background (three materials, grass /
// sand / stone colours, in low-frequency regions), classes 1..C each have a
// shape (disc, square, triangle, ring, diamond, cross, repeating), an RGB
// colour and a stripe texture; objects are drawn in order (a later one
// covers an earlier one), so the per-pixel label map is exact.
//
// Extractor (a ViT stand-in): the view is cut into p x p patches; a patch's
// token is
//     t = s · Σ_k frac_k E_k  +  (1 - s) · B tanh(A (x - 0.45))
// with frac_k the share of the patch's pixels of class k, E_k a fixed random
// class embedding (entries N(0, 1/D)), x the patch's p·p·3 pixel values
// (a random-feature "patch embedding" of 64 tanh units) and A, B fixed
// random weights; s is the extractor's semantic
// share (CLIP-like high, DINOv2-like low). The per-pixel map is the token
// grid upsampled bilinearly (align_corners = True, as the authors resize
// features). A view therefore sees the scene through its own patch grid, so
// the features of one canvas point differ between views, as real crops do.
// TextEmbedding(k) = E_k + noise (entries N(0, (0.3)²/D)): the aligned text
// tower of a CLIP/SigLIP-like model.
//
// Deterministic: everything is a pure function of the params and seed;
// SceneHash covers the version, params, pixels and labels.
#ifndef CB_GENERATORS_FEATURE_SCENES_H_
#define CB_GENERATORS_FEATURE_SCENES_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "harness/hash.h"
#include "reference/m3/splat.h"

namespace cb::gen {

inline constexpr const char* kFeatureScenesName = "feature_scenes";
inline constexpr int kFeatureScenesVersion = 1;

struct FeatureSceneParams {
  int canvas = 96;       // S
  int classes = 6;       // C (object classes; class 0 is background)
  int objects = 8;
  int view = 48;         // each view is view x view pixels
  int train_views = 16;
  int test_views = 16;
  uint64_t seed = 1;
  std::string Canonical() const;
};

struct FeatureScene {
  FeatureSceneParams params;
  std::vector<double> rgb;      // (S, S, 3) in [0, 1]
  std::vector<uint8_t> label;   // (S, S): 0 background, 1..C
  std::vector<ref::m3::View> train_views, test_views;
  harness::Hash128 hash;
};

// REQUIRES (else std::invalid_argument): canvas >= 8, 1 <= classes <= 7,
// objects >= 0, 4 <= view <= canvas, train_views >= 1, test_views >= 1.
FeatureScene MakeFeatureScene(const FeatureSceneParams& params);

struct Extractor {
  std::string name;   // "clip", "siglip", "dinov2"
  int dim = 0;        // D
  int patch = 8;      // p
  double semantic = 0.5;
  int classes = 6;    // C, for the class embeddings
  uint64_t seed = 0;
};

// The three stand-ins with the paper's widths times width_scale (rounded,
// at least 8): CLIP 768 (s 0.6), SigLIP 1152 (s 0.65), DINOv2 1536 (s 0.3).
std::vector<Extractor> StandInExtractors(double width_scale, int classes, uint64_t seed);

// The patch tokens of a view: (ceil(h / p) * ceil(w / p), D).
// REQUIRES (else std::invalid_argument): the view inside the canvas, the
// extractor made for the scene's class count.
std::vector<double> ExtractTokens(const Extractor& e, const FeatureScene& scene, const ref::m3::View& view);
// The per-pixel features of the view's pixels `pixels` (row-major indices)
// from its tokens: out (pixels.size(), D).
void FeaturesAt(const Extractor& e, const ref::m3::View& view, const std::vector<double>& tokens,
                std::span<const int64_t> pixels, double* out);
// Every pixel: (view.height, view.width, D) row-major.
std::vector<double> ExtractFeatures(const Extractor& e, const FeatureScene& scene, const ref::m3::View& view);
// (D) for class k in [0, C].
std::vector<double> TextEmbedding(const Extractor& e, int k);
// The class labels of a view (view.height * view.width).
std::vector<uint8_t> ViewLabels(const FeatureScene& scene, const ref::m3::View& view);

}  // namespace cb::gen

#endif  // CB_GENERATORS_FEATURE_SCENES_H_
