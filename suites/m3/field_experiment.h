// File: suites/m3/field_experiment.h
// -----------------------------------------------------------------------------
// M3 against a full-feature baseline on one procedural scene
// (generators/feature_scenes.h), the experiment of claims m3.M3-M5:
//
//   Gaussians   a jittered lattice over the canvas (spacing `lattice` px),
//               random scales, rotations and depth order, opacity 0.7;
//               geometry fixed (both methods learn values only)
//   M3          per extractor e: PSC memory of every training-view token at
//               the code's θ (CLIP .80, SigLIP .85, DINOv2 .75: the mem80 /
//               mem85 / mem75 files of arguments/__init__.py), a query slice
//               per Gaussian of the code's width (16 / 32 / 32 channels),
//               W_m (c_e, D_e) ~ N(0, 1) (nn.Embedding's init), queries
//               ~ N(0, 1); rendered queries -> GMA (code form, τ 0.05)
//   F-3DGS      a D_e-dimensional feature per Gaussian, zero-initialised,
//               composited directly (no low-dimensional decoder)
//   training    equal budget: `iterations` steps, each on one training view
//               (in turn) and `sample_pixels` pixels drawn uniformly with
//               replacement (coords_sample); loss = cos term + MSE, masked
//               where the target sums to 0 (reference/m3/loss.h); Adam
//               (torch defaults), constant learning rates lr_query, lr_proj,
//               lr_feature
//   evaluation  every pixel of the held-out views: cos distance and MSE per
//               extractor (render_metrics.py's unmasked form, fp64 GMA);
//               SigLIP-stand-in retrieval (image = mean feature, caption =
//               the view's class shares times the text embeddings, I2T over
//               the test captions plus 3x as many random-share negatives,
//               T2I over the test images) and CLIP-stand-in grounding (per
//               view and class with >= 2% of the pixels: cos to the text
//               embedding, Otsu, IoU), each on the raw features, M3 and
//               F-3DGS, and a mask of every pixel (the trivial baseline)
// Parameters counted: 6 geometry numbers per Gaussian for both; M3 adds its
// queries, every W_m and the memory banks; F-3DGS its features.
#ifndef CB_SUITES_M3_FIELD_EXPERIMENT_H_
#define CB_SUITES_M3_FIELD_EXPERIMENT_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "generators/feature_scenes.h"
#include "reference/m3/loss.h"

namespace cb::m3 {

struct FieldSetting {
  gen::FeatureSceneParams scene;
  double width_scale = 0.25;  // extractor widths: 768 / 1152 / 1536 times this
  int lattice = 3;
  int iterations = 300;
  int sample_pixels = 512;
  double lr_query = 0.01, lr_proj = 0.01, lr_feature = 0.005;
  int threads = 0;             // 0: every hardware thread; results do not depend on it
  uint64_t seed = 1;           // Gaussians and initial values (the scene has its own)
  std::string Describe() const;
};

struct ExtractorOutcome {
  std::string name;
  int dim = 0, query_channels = 0;
  double theta = 0;
  int tokens = 0, memory_rows = 0, dropped = 0, unrepresented = 0;
  ref::m3::FeatureDistance m3, f3dgs;  // held-out views
};

struct RetrievalScores {
  double i2t1 = 0, t2i1 = 0;  // ×100
};
struct GroundingScores {
  double miou = 0, ciou = 0, ap50 = 0;  // ×100
  int64_t queries = 0;
};

struct FieldOutcome {
  std::vector<ExtractorOutcome> extractors;
  int64_t gaussians = 0, params_m3 = 0, params_f3dgs = 0;
  RetrievalScores retrieval_raw, retrieval_m3, retrieval_f3dgs;
  GroundingScores grounding_raw, grounding_m3, grounding_f3dgs;
  // The trivial baseline of M5's absolute leaf: every pixel predicted as
  // the queried class (IoU = the class's share of the view).
  GroundingScores grounding_all;
  double final_loss_m3 = 0, final_loss_f3dgs = 0;  // summed over extractors, last step
};

// progress(fraction) between 0 and 1; may throw to abandon the run.
// REQUIRES (else std::invalid_argument): lattice >= 1, iterations >= 1,
// sample_pixels >= 1, learning rates > 0, a valid scene.
FieldOutcome RunField(const FieldSetting& setting, const std::function<void(double)>& progress = {});

// RunField for seeds k = 0..seeds-1 (scene seed and setting seed both
// offset by k), computed once per process per (setting, seeds): claims
// M3-M5 share them.
const std::vector<FieldOutcome>& SharedFieldRuns(const FieldSetting& setting, int seeds,
                                                 const std::function<void(double)>& progress = {});

// The code's θ and query width of a stand-in extractor ("clip", "siglip",
// "dinov2").
double PscThetaOf(const std::string& extractor);
int QueryChannelsOf(const std::string& extractor);

}  // namespace cb::m3

#endif  // CB_SUITES_M3_FIELD_EXPERIMENT_H_
