// File: suites/docs/docs_layers.h
// -----------------------------------------------------------------------------
// The paper's layer-structure analysis (Min & Wang, ICLR 2025, §4 heatmaps)
// on a Llama-family checkpoint in Hugging Face layout: for each projection
// type (q, k, v, o, gate, up, down) the layer x layer DOCS matrix, the mean
// over adjacent layer pairs (|l_i - l_j| = 1) and over the other pairs, and
// the chance floor those are read against. Shared by the claims
// docs.D4-lm-* (docs_lm_claims.cpp) and `claimbench docs --checkpoint DIR`
// (docs_command.cpp).
//
// Chance floor: DOCS of two independent matrices of the same shape with iid
// N(0, 1) entries (DOCS is scale invariant, so any variance gives the same
// distribution), `draws` independent pairs; reported as the mean, its
// percentile-bootstrap 95% CI, the standard deviation and the maximum.
//
// Gaps and their intervals (percentile bootstrap, 2000 resamples):
//   adjacent - non-adjacent: adjacent pairs and non-adjacent pairs resampled
//     separately (stratified). Pairs share layers, so they are not
//     independent and the interval is optimistic; the layer-order
//     permutation p-value below does not assume independence.
//   adjacent - chance: adjacent pairs and chance draws resampled separately.
// Permutation p-value: the fraction of relabellings of the L layers (all L!
// when L <= 8, else 20000 random ones, identity included) whose
// adjacent - non-adjacent gap is >= the observed one. Under "layer order
// does not matter" it is uniform; its floor is 2 / L! (an order and its
// reverse have the same adjacent pairs).
#ifndef CB_SUITES_DOCS_DOCS_LAYERS_H_
#define CB_SUITES_DOCS_DOCS_LAYERS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "harness/backend.h"
#include "harness/stats.h"
#include "suites/docs/docs_checkpoint.h"

namespace cb::docs {

// One projection type of a Llama layer, by its Hugging Face tensor name.
struct ProjectionType {
  const char* name;   // "q_proj"
  const char* regex;  // matches model.layers.N.<module>.<name>.weight; group 1 is N
};

// q, k, v, o (self_attn) then gate, up, down (mlp).
const std::vector<ProjectionType>& LlamaProjections();

// The checkpoint's safetensors files: DIR/model.safetensors, or the shards
// that DIR/model.safetensors.index.json's weight_map names (sorted, each
// once). Throws std::runtime_error with one line naming DIR or the index when
// DIR is not a folder, holds neither file or both, or the index is malformed.
std::vector<std::string> CheckpointFiles(const std::string& dir);

// ScanProjection()
//
// From the headers only: the layer numbers (ascending) of the 2-D tensors of
// one projection type in `files`. Throws std::runtime_error with one line
// naming the type when a file's header is malformed (harness/safetensors.h),
// fewer than two layers are found, two layers' matrices differ in shape, or
// a layer appears twice.
std::vector<int> ScanProjection(const std::vector<std::string>& files, const ProjectionType& type);

// LoadProjection()
//
// ScanProjection(), then the tensors in layer order, in fp32. Throws as
// ScanProjection() and LoadMatchingTensors() (dtype, NaN/Inf, zero column).
struct ProjectionLayers {
  std::string proj;
  std::vector<int> layer;            // (L) layer number of each tensor
  std::vector<NamedTensor> tensors;  // (L)
};
ProjectionLayers LoadProjection(const std::vector<std::string>& files, const ProjectionType& type);

// The same layers with every matrix transposed: (rows, cols) -> (cols, rows),
// so DOCS compares the stored rows instead of the columns. For a Hugging
// Face nn.Linear weight (out_features, in_features) the columns are the
// input axis and the rows the output neurons; which of the two the paper's
// "columns are the neurons" means is not settled (no public code), so both
// can be measured. Content hashes are of the transposed data.
ProjectionLayers Transposed(const ProjectionLayers& layers);

struct ChanceFloor {
  int64_t rows = 0, cols = 0;
  std::vector<double> scores;  // (draws)
  double mean = 0, sd = 0, max = 0;
  cb::harness::Interval ci;  // of the mean
};

// `draws` >= 1 independent Gaussian pairs of shape (rows, cols), seeded by
// (seed, stream 2d and 2d + 1) for draw d. REQUIRES: draws >= 1.
ChanceFloor ChanceFloorOf(cb::harness::Backend backend, int64_t rows, int64_t cols, int draws,
                          uint64_t seed);

struct Adjacency {
  int adjacent_pairs = 0, non_adjacent_pairs = 0;
  double adjacent_mean = 0;
  double non_adjacent_mean = 0;        // NaN when there are no non-adjacent pairs
  double gap_far = 0;                  // adjacent - non-adjacent (NaN as above)
  cb::harness::Interval gap_far_ci;    // NaN bounds as above
  double gap_chance = 0;               // adjacent - chance mean
  cb::harness::Interval gap_chance_ci;
  double permutation_p = 0;            // NaN when there are no non-adjacent pairs
  int permutations = 0;
};

// The summary of one layer x layer matrix. `layer[i]` is tensor i's layer
// number. REQUIRES: at least one adjacent pair; sim is (L, L) with L =
// layer.size().
Adjacency Summarise(const std::vector<int>& layer, const SimilarityMatrix& sim,
                    const ChanceFloor& chance, uint64_t seed);

}  // namespace cb::docs

#endif  // CB_SUITES_DOCS_DOCS_LAYERS_H_
