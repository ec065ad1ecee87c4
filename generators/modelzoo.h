// File: generators/modelzoo.h
// -----------------------------------------------------------------------------
// A deterministic zoo of small classifiers for ProbeGen (issue 24): the
// substitute for the paper's CIFAR10-GS / CNN Wild Park zoos, trained here.
//
// ShapeImages: a 10-class procedural image task, (1, 32, 32) grey images in
//   [-1, 1]: disc, ring, square, hollow square, triangle, plus, cross (x),
//   horizontal bars, vertical bars, diagonal stripe; each with a random
//   centre, scale, rotation where it applies, contrast (shapes are always
//   brighter than the background) and background level, plus Gaussian pixel
//   noise; labels in shuffled blocks of ten (balanced to within one). Hard
//   enough that a small model's accuracy depends on its capacity and
//   training.
// TrainModelZoo: `models` classifiers, each with hyper-parameters drawn from
//   Rng(seed, 100 + i): family (MLP or CNN), widths and depth (MLP: 1-2
//   hidden layers of {8, 16, 32}; CNN: 2-3 convs of {4, 8, 16} channels),
//   learning rate (log-uniform in [1e-3, 0.3], CNNs [1e-2, 0.3]), epochs
//   (1 .. max_epochs), weight decay {0, 1e-4, 1e-3, 1e-2}, label noise
//   {0, 0.1, 0.3, 0.6} (that fraction of training labels, in expectation,
//   replaced by uniform ones) and an init seed; trained with SGD (momentum
//   0.9, batch 32, softmax cross-entropy, reshuffled each epoch from the same
//   Rng) on ShapeImages(seed, train) and measured on ShapeImages(seed + 1,
//   test). A step that would make any parameter non-finite or larger than
//   1e4 in magnitude is dropped and training stops there (a diverging run
//   keeps its last good, finite weights). The weights are rounded to
//   fp32 after training (what a zoo file stores), and the test accuracy is
//   measured on the rounded weights, so a zoo read back from disk is the
//   same zoo. Models train in parallel (one model per thread, each in a
//   fixed order), so the zoo does not depend on the thread count.
// Determinism (DESIGN §4): a pure function of (name, version, params); the
// hash covers every weight, accuracy and hyper-parameter.
#ifndef CB_GENERATORS_MODELZOO_H_
#define CB_GENERATORS_MODELZOO_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "harness/hash.h"
#include "reference/probegen/zoo_model.h"

namespace cb::gen {

inline constexpr int kShapeImagesVersion = 1;
inline constexpr int kModelZooVersion = 1;
inline constexpr int kShapeClasses = 10;

struct ImageSet {
  int n = 0, channels = 1, size = 32, classes = kShapeClasses;
  std::vector<double> x;  // (n, channels, size, size), values in [-1, 1]
  std::vector<int> y;     // (n), labels in [0, classes)
};

// n images from Rng(seed, 90). REQUIRES: n >= 1, size >= 8.
ImageSet ShapeImages(uint64_t seed, int n, int size = 32);
harness::Hash128 HashImageSet(const ImageSet& set);

struct ZooParams {
  int models = 500;
  int train_images = 1000;
  int test_images = 500;
  int max_epochs = 6;
  uint64_t seed = 1;
  std::string Canonical() const;  // "models=500;train=1000;..." for provenance
};

struct ZooMember {
  ref::probegen::ZooModel model;
  double test_accuracy = 0.0;
  // "family", "widths", "lr", "epochs", "weight_decay", "label_noise",
  // "init_seed": the draws, as text (what a zoo file's metadata holds);
  // "steps" (SGD steps taken) and "diverged" ("1" when training stopped at
  // a dropped step, else "0"): what happened.
  std::map<std::string, std::string> hparams;
};

struct ModelZoo {
  ZooParams params;
  std::vector<ZooMember> members;
  harness::Hash128 hash;
};

// progress(done, total) is called after each model (from any thread, one
// call at a time). REQUIRES (else std::invalid_argument): models >= 1,
// train_images, test_images >= 1, max_epochs >= 1.
ModelZoo TrainModelZoo(const ZooParams& params, int threads,
                       const std::function<void(int, int)>& progress = {});

// The zoo hash: XXH3-128 over the version, the params and each member's
// weights, accuracy and hyper-parameters in order.
harness::Hash128 HashModelZoo(const ModelZoo& zoo);

// dir/model_<i, 4 digits; more for 10000+ models>.safetensors
// (reference/probegen/zoo_io.h, the hyper-parameters in the metadata) and
// dir/manifest.json (generator, version, params, count, hash, files). Creates dir; files written atomically, the
// manifest last. Throws std::runtime_error, writing nothing, when dir holds a
// *.safetensors file this zoo would not write (ReadZooDir would mix it in);
// rewriting the same zoo, or a larger one, over itself is allowed.
void WriteModelZoo(const ModelZoo& zoo, const std::string& dir);

}  // namespace cb::gen

#endif  // CB_GENERATORS_MODELZOO_H_
