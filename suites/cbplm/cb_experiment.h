// File: suites/cbplm/cb_experiment.h
// -----------------------------------------------------------------------------
// The experiment behind CB-pLM's model claims (cbplm_claims.cpp, P2-P4): for
// one seed, train the CB model, the pre_encoder baseline and the
// unconstrained masked LM (cb_mlm.h) on the same generated proteins
// (generators/proteins.h, data seed kCbDataSeed, every sequence `length`
// residues), then on held-out sequences measure
//   - masked-token NLL (15% of residue positions, masks from Rng(kCbDataSeed,
//     1 << 32 | i), the same for every model): CB with its predicted concepts
//     (inference) and with the true ones, pre_encoder with the true ones, the
//     unconstrained model;
//   - interventions: for each held-out sequence, each of the five additive
//     concepts and both directions, k edits by the CB model (lobster's
//     attribution), by the pre_encoder baseline (k random positions, concept
//     input set to 1 / 0), by the CB model at random positions (an ablation:
//     the bottleneck without the attribution) and by the unconstrained model
//     (random positions, no concept: the unguided refill). Δ is the true
//     Biopython concept of the edited sequence minus the original's; Δ* the
//     exact optimum of k substitutions (reference/protparam/edit_optimum.h);
//     a unit with Δ* = 0 is skipped.
//   - the concept-to-token map: logits with c_in[j] moved by δ minus logits
//     at c_in, against δ M[j] (cb_head.h ConceptTokenMap), over every
//     position and token; and the Spearman correlation over the 20 residues
//     between M[j] and the residue's own value of concept j.
// Runs are cached per (scale, seed) in the process: the three claims train once.
#ifndef CB_SUITES_CBPLM_CB_EXPERIMENT_H_
#define CB_SUITES_CBPLM_CB_EXPERIMENT_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "suites/cbplm/cb_mlm.h"

namespace cb::cbplm {

inline constexpr uint64_t kCbDataSeed = 20250125;
inline constexpr int kNumAdditive = 5;  // kCbConcepts[0..4] have an exact edit optimum

struct CbScale {
  int train_count = 128, test_count = 16, length = 32;
  CbShape shape{.hidden = 32, .layers = 2, .heads = 4, .intermediate = 64, .seq = 33};
  CbTrainOptions train{.steps = 150, .batch = 16, .lr = 3e-3};
  int edits = 3;  // k
  std::string Describe() const;
};

struct InterventionUnit {
  int sequence = 0, concept_index = 0;
  bool raise = true;
  double delta_star = 0;                       // exact optimum (signed)
  double delta_cb = 0, delta_pre = 0;          // attribution-guided CB, pre_encoder baseline
  double delta_cb_random = 0, delta_none = 0;  // ablations
  int changed_cb = 0, changed_pre = 0;         // residues actually changed
};

struct CbSeedRun {
  uint64_t seed = 0;
  double train_seconds = 0;
  double final_loss_cb = 0, final_loss_pre = 0, final_loss_none = 0;  // mean of the last 10% of steps
  // Per held-out sequence: summed masked NLL and the masked count.
  std::vector<double> nll_cb_pred, nll_cb_true, nll_pre, nll_none;
  std::vector<int> masked;
  double concept_mse = 0;  // CB's predicted vs true normalised concepts, held out
  std::vector<InterventionUnit> units;
  double map_max_abs_error = 0, map_scale = 0;  // the linear map check
  std::array<double, kNumAdditive> map_spearman{};
  size_t params_cb = 0, params_pre = 0, params_none = 0;
};

CbSeedRun RunCbSeed(const CbScale& scale, uint64_t seed);
const CbSeedRun& CachedCbSeed(const CbScale& scale, uint64_t seed);

// Spearman's rank correlation (average ranks for ties). REQUIRES: equal sizes >= 2.
double Spearman(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace cb::cbplm

#endif  // CB_SUITES_CBPLM_CB_EXPERIMENT_H_
