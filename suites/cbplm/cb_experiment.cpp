// File: suites/cbplm/cb_experiment.cpp
// -----------------------------------------------------------------------------
// One seed of the CB-pLM experiment (cb_experiment.h).
#include "suites/cbplm/cb_experiment.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <tuple>

#include "generators/proteins.h"
#include "harness/random.h"
#include "reference/protparam/edit_optimum.h"
#include "reference/protparam/protparam.h"
#include "reference/protparam/tables.h"

namespace cb::cbplm {
namespace {

namespace pp = cb::ref::protparam;

double RawConcept(const std::string& s, int j) {
  const auto& names = pp::ConceptNames();
  const size_t i = std::find(names.begin(), names.end(), kCbConcepts[j]) - names.begin();
  return pp::ComputeConcepts(s).value[i];
}

int Changed(const std::string& a, const std::string& b) {
  int n = 0;
  for (size_t i = 0; i < a.size(); ++i) n += a[i] != b[i];
  return n;
}

// Masked NLL summed over the masked positions of one sequence.
double MaskedNll(const std::vector<double>& logits, const std::vector<int>& original, const std::vector<int>& masked) {
  double s = 0;
  for (size_t t = 0; t < original.size(); ++t) {
    if (masked[t] != kMaskToken) continue;
    const double* row = &logits[t * kCbVocab];
    const double mx = *std::max_element(row, row + kCbVocab);
    double z = 0;
    for (int v = 0; v < kCbVocab; ++v) z += std::exp(row[v] - mx);
    s += mx + std::log(z) - row[original[t]];
  }
  return s;
}

std::vector<double> Ranks(const std::vector<double>& x) {
  std::vector<int> idx(x.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(), [&](int a, int b) { return x[a] < x[b]; });
  std::vector<double> r(x.size());
  for (size_t i = 0; i < idx.size();) {
    size_t j = i;
    while (j + 1 < idx.size() && x[idx[j + 1]] == x[idx[i]]) ++j;
    for (size_t k = i; k <= j; ++k) r[idx[k]] = 0.5 * double(i + j);
    i = j + 1;
  }
  return r;
}

}  // namespace

std::string CbScale::Describe() const {
  return std::to_string(train_count) + " train / " + std::to_string(test_count) + " held-out generated proteins of " +
         std::to_string(length) + " residues; encoder D=" + std::to_string(shape.hidden) + " L=" +
         std::to_string(shape.layers) + " H=" + std::to_string(shape.heads) + " I=" + std::to_string(shape.intermediate) +
         "; " + std::to_string(train.steps) + " Adam steps of " + std::to_string(train.batch) + " at lr " +
         std::to_string(train.lr).substr(0, 6) + "; k=" + std::to_string(edits) + " edits";
}

double Spearman(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || a.size() < 2) throw std::invalid_argument("spearman: needs two equal samples of >= 2");
  const std::vector<double> ra = Ranks(a), rb = Ranks(b);
  const double ma = std::accumulate(ra.begin(), ra.end(), 0.0) / ra.size();
  const double mb = std::accumulate(rb.begin(), rb.end(), 0.0) / rb.size();
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < ra.size(); ++i)
    sab += (ra[i] - ma) * (rb[i] - mb), saa += (ra[i] - ma) * (ra[i] - ma), sbb += (rb[i] - mb) * (rb[i] - mb);
  return (saa == 0 || sbb == 0) ? 0.0 : sab / std::sqrt(saa * sbb);
}

CbSeedRun RunCbSeed(const CbScale& sc, uint64_t seed) {
  if (sc.shape.seq != sc.length + 1) throw std::invalid_argument("cb experiment: shape.seq must be length + 1");
  const gen::ProteinSet set = gen::MakeProteins({.seed = kCbDataSeed, .count = sc.train_count + sc.test_count,
                                                  .min_length = sc.length, .max_length = sc.length,
                                                  .median_length = sc.length});
  std::vector<CbExample> train, test;
  for (int i = 0; i < int(set.proteins.size()); ++i)
    (i < sc.train_count ? train : test).push_back(MakeExample(set.proteins[i].sequence));

  CbSeedRun run;
  run.seed = seed;
  const auto t0 = std::chrono::steady_clock::now();
  CbMlm cb(Conditioning::kCbm, sc.shape, seed), pre(Conditioning::kPreEncoder, sc.shape, seed),
      none(Conditioning::kNone, sc.shape, seed);
  CbTrainOptions opt = sc.train;
  opt.seed = seed;
  auto tail = [](const std::vector<double>& l) {
    const size_t from = l.size() - std::max<size_t>(1, l.size() / 10);
    return std::accumulate(l.begin() + from, l.end(), 0.0) / double(l.size() - from);
  };
  run.final_loss_cb = tail(cb.Train(train, opt));
  run.final_loss_pre = tail(pre.Train(train, opt));
  run.final_loss_none = tail(none.Train(train, opt));
  run.train_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  run.params_cb = cb.num_params(), run.params_pre = pre.num_params(), run.params_none = none.num_params();

  // Held-out masked NLL and concept prediction.
  for (int i = 0; i < int(test.size()); ++i) {
    const CbExample& ex = test[i];
    harness::Rng rng(kCbDataSeed, (uint64_t(1) << 32) | uint64_t(i));
    std::vector<int> masked = ex.tokens;
    int n = 0;
    for (size_t t = 1; t < masked.size(); ++t)
      if (rng.Uniform() < 0.15) masked[t] = kMaskToken, ++n;
    if (n == 0) masked[1] = kMaskToken, n = 1;
    const std::vector<double> truth(ex.concepts.begin(), ex.concepts.end());
    run.nll_cb_pred.push_back(MaskedNll(cb.Logits(masked, 1, {}), ex.tokens, masked));
    run.nll_cb_true.push_back(MaskedNll(cb.Logits(masked, 1, truth), ex.tokens, masked));
    run.nll_pre.push_back(MaskedNll(pre.Logits(masked, 1, truth), ex.tokens, masked));
    run.nll_none.push_back(MaskedNll(none.Logits(masked, 1, {}), ex.tokens, masked));
    run.masked.push_back(n);
    const std::vector<double> pred = cb.PredictConcepts(ex.tokens, 1);
    for (int c = 0; c < kNumCbConcepts; ++c) run.concept_mse += (pred[c] - truth[c]) * (pred[c] - truth[c]);
  }
  run.concept_mse /= double(test.size()) * kNumCbConcepts;

  // Interventions.
  for (int i = 0; i < int(test.size()); ++i) {
    const CbExample& ex = test[i];
    for (int j = 0; j < kNumAdditive; ++j) {
      const double base = RawConcept(ex.residues, j);
      for (bool raise : {true, false}) {
        InterventionUnit u{.sequence = i, .concept_index = j, .raise = raise};
        u.delta_star = pp::OptimalEdit(ex.residues, kCbConcepts[j], sc.edits,
                                       raise ? pp::EditDirection::kRaise : pp::EditDirection::kLower)
                           .delta;
        if (std::abs(u.delta_star) < 1e-12) continue;
        const uint64_t pos_seed = seed * 1000003 + uint64_t(i) * 16 + uint64_t(j) * 2 + (raise ? 1 : 0);
        const Intervention a = cb.Intervene(ex, j, raise, sc.edits, pos_seed);
        const Intervention b = pre.Intervene(ex, j, raise, sc.edits, pos_seed);
        const Intervention n = none.Intervene(ex, j, raise, sc.edits, pos_seed);
        // The CB model at the baseline's random positions: mask them, set the neuron, argmax.
        std::vector<int> masked = ex.tokens;
        for (int p : b.positions) masked[p + 1] = kMaskToken;
        std::vector<double> c_in = cb.PredictConcepts(masked, 1);
        c_in[j] = raise ? 1.0 : 0.0;
        const std::vector<double> logits = cb.Logits(masked, 1, c_in);
        std::string random_cb = ex.residues;
        for (int p : b.positions) {
          const double* row = &logits[size_t(p + 1) * kCbVocab];
          random_cb[p] = pp::kStandardResidues[std::max_element(row, row + 20) - row];
        }
        u.delta_cb = RawConcept(a.edited, j) - base;
        u.delta_pre = RawConcept(b.edited, j) - base;
        u.delta_none = RawConcept(n.edited, j) - base;
        u.delta_cb_random = RawConcept(random_cb, j) - base;
        u.changed_cb = Changed(a.edited, ex.residues);
        u.changed_pre = Changed(b.edited, ex.residues);
        run.units.push_back(u);
      }
    }
  }

  // The concept-to-token map: logits(c + δ e_j) - logits(c) = δ M[j].
  const std::vector<double> map = cb.head()->ConceptTokenMap();  // [C, V]
  for (int i = 0; i < int(test.size()); ++i) {
    const std::vector<double> c = cb.PredictConcepts(test[i].tokens, 1);
    const std::vector<double> l0 = cb.Logits(test[i].tokens, 1, c);
    for (int j = 0; j < kNumCbConcepts; ++j) {
      std::vector<double> moved = c;
      const double delta = 1.0 - c[j];  // what a raising intervention does
      moved[j] = 1.0;
      const std::vector<double> l1 = cb.Logits(test[i].tokens, 1, moved);
      for (size_t r = 0; r < l0.size(); ++r) {
        const double want = delta * map[size_t(j) * kCbVocab + r % kCbVocab];
        run.map_max_abs_error = std::max(run.map_max_abs_error, std::abs((l1[r] - l0[r]) - want));
        run.map_scale = std::max(run.map_scale, std::abs(want));
      }
    }
  }
  for (int j = 0; j < kNumAdditive; ++j) {
    std::vector<double> weight, value;
    for (int a = 0; a < 20; ++a) {
      weight.push_back(map[size_t(j) * kCbVocab + a]);
      value.push_back(RawConcept(std::string(1, pp::kStandardResidues[a]), j));
    }
    run.map_spearman[j] = Spearman(weight, value);
  }
  return run;
}

const CbSeedRun& CachedCbSeed(const CbScale& sc, uint64_t seed) {
  static std::mutex mu;
  static std::map<std::string, CbSeedRun> cache;
  const std::string key = sc.Describe() + " seed " + std::to_string(seed);
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, RunCbSeed(sc, seed)).first;
  return it->second;
}

}  // namespace cb::cbplm
