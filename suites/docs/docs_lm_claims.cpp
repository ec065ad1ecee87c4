// File: suites/docs/docs_lm_claims.cpp
// -----------------------------------------------------------------------------
// docs.D4-lm-<proj>: the paper's heatmap claim (Min & Wang, ICLR 2025, §4:
// adjacent layers are more similar) on the substrate's trained transformer,
// fixtures/lm/target (6 Llama layers, d 256, 8 heads, 2 KV heads, SwiGLU
// 704; trained 600 steps on the synthetic corpus, fixtures/lm/target/
// trainer.json), one claim per projection type (q, k, v, o, gate, up, down).
// Per type: the 6 x 6 DOCS matrix of the trained layers, the same for the
// untrained model (ref::lm::RandomInit of the same config with the
// trainer's init_seed: the exact starting point of that training), and the
// chance floor of independent Gaussian pairs of the same shape
// (docs_layers.h says how each number and interval is computed).
// Vectors: the columns of each tensor as stored (as `claimbench docs` reads
// them); the rows (a Hugging Face weight's output neurons) are measured too
// and recorded, not judged (docs_layers.h, Transposed()).
// Each claim is a check of docs.D4 (check_of: the paper's fields are D4's).
// Criterion (fixed before the first run), on the trained model, columns:
//   adjacent - non-adjacent mean DOCS, 95% CI >= 0, and
//   adjacent - chance floor, 95% CI >= 0;
// each interval's n is its smaller sample (5 adjacent pairs), below the
// percentile bootstrap's minimum, so the verdict is INCONCLUSIVE.
// The untrained model and the permutation p-value are recorded beside it,
// not judged. Without the shipped models (lm_fixtures.h) the claims are
// UNMEASURABLE. Every profile uses the target (the smoke model has one
// layer: no pair to compare); profiles differ in chance-floor draws only.
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/claim.h"
#include "harness/hash.h"
#include "harness/strings.h"
#include "reference/lm/hf_checkpoint.h"
#include "reference/lm/transformer.h"
#include "suites/docs/docs_checkpoint.h"
#include "suites/docs/docs_layer_rows.h"
#include "suites/docs/docs_layers.h"
#include "suites/lm/lm_fixtures.h"
#include "suites/lm/model_presets.h"

namespace cb::docs {
namespace {

namespace h = cb::harness;

CB_CLAIM_DEFAULTS({.paper = "DOCS (Min & Wang)"});

// The untrained target: every weight of RandomInit(config, init_seed),
// fp32 as the trained tensors are. Built once for all seven claims.
struct UntrainedModel {
  uint64_t init_seed = 0;
  std::map<std::string, NamedTensor> tensors;  // by HF name
};

// The trainer's own initialisation (suites/lm/train_command.cpp): the
// preset named in trainer.json at config.json's vocabulary, RandomInit with
// trainer.json's init_seed; its parameter count must match trainer.json's.
const UntrainedModel& Untrained(const std::string& dir) {
  static const UntrainedModel model = [&] {
    UntrainedModel m;
    const auto trainer = nlohmann::json::parse(std::ifstream(dir + "/trainer.json"));
    const auto config_json = nlohmann::json::parse(std::ifstream(dir + "/config.json"));
    m.init_seed = trainer.at("init_seed").get<uint64_t>();
    const auto config = cb::lm_suite::PresetConfig(trainer.at("preset").get<std::string>(),
                                                   config_json.at("vocab_size").get<int>());
    int64_t params = 0;
    for (const auto& [name, shape] : cb::ref::lm::ExpectedTensorShapes(config)) {
      int64_t size = 1;
      for (const int64_t d : shape) size *= d;
      params += size;
    }
    if (params != trainer.at("parameters").get<int64_t>()) {
      throw std::runtime_error(dir + "/trainer.json: " + std::to_string(trainer.at("parameters").get<int64_t>()) +
                               " parameters, but its preset has " + std::to_string(params));
    }
    for (auto& [name, t] : cb::ref::lm::RandomInit(config, m.init_seed).ToNamedTensors()) {
      if (t.shape.size() != 2) continue;
      NamedTensor& out = m.tensors[name];
      out.file = "RandomInit";
      out.name = name;
      out.rows = t.shape[0];
      out.cols = t.shape[1];
      out.data.assign(t.data.begin(), t.data.end());
      out.content_hash = h::HashDoubles(t.data).Hex();
    }
    return m;
  }();
  return model;
}

// The untrained model's tensors of the layers `trained` has.
ProjectionLayers UntrainedLike(const ProjectionLayers& trained, const UntrainedModel& init) {
  ProjectionLayers out;
  out.proj = trained.proj;
  out.layer = trained.layer;
  for (const auto& t : trained.tensors) {
    const auto it = init.tensors.find(t.name);
    if (it == init.tensors.end()) throw std::runtime_error("RandomInit has no tensor '" + t.name + "'");
    out.tensors.push_back(it->second);
  }
  return out;
}

h::Outcome TrainedLayers(size_t type_index, h::ClaimContext& ctx) {
  const std::string fixtures = cb::lm_suite::LmFixturesDir();
  if (fixtures.empty()) return h::Unmeasurable(cb::lm_suite::MissingLmFixtures());
  const std::string dir = fixtures + "/target";
  if (!std::filesystem::exists(dir + "/config.json")) {
    return h::Unmeasurable("no trained target model: " + dir + "/config.json is missing");
  }
  const ProjectionType& type = LlamaProjections().at(type_index);
  const int draws = ctx.ByProfile(3, 20, 50);
  const uint64_t chance_seed = ctx.seed() + 7919 * (type_index + 1);

  const ProjectionLayers trained = LoadProjection(CheckpointFiles(dir), type);
  const ProjectionLayers init = UntrainedLike(trained, Untrained(dir));
  const int64_t m = trained.tensors[0].rows, n = trained.tensors[0].cols;
  const ChanceFloor chance = ChanceFloorOf(h::Backend::kCpu, m, n, draws, chance_seed);
  ctx.Progress(0.2);
  const SimilarityMatrix sim = LayerSimilarity(h::Backend::kCpu, trained.tensors, nullptr);
  const Adjacency a = Summarise(trained.layer, sim, chance, ctx.seed());
  ctx.Progress(0.6);
  const SimilarityMatrix sim0 = LayerSimilarity(h::Backend::kCpu, init.tensors, nullptr);
  const Adjacency a0 = Summarise(init.layer, sim0, chance, ctx.seed());
  ctx.Progress(0.8);
  // The other reading of "neurons": the stored rows (output units), trained
  // model only, with its own chance floor; recorded, not judged.
  const ProjectionLayers trained_t = Transposed(trained);
  const ChanceFloor chance_t = ChanceFloorOf(h::Backend::kCpu, n, m, draws, chance_seed + 1);
  const SimilarityMatrix sim_t = LayerSimilarity(h::Backend::kCpu, trained_t.tensors, nullptr);
  const Adjacency a_t = Summarise(trained_t.layer, sim_t, chance_t, ctx.seed());

  struct Analysis {
    const char* model;
    const char* vectors;
    const ProjectionLayers* layers;
    const SimilarityMatrix* sim;
    const Adjacency* summary;
  };
  for (const Analysis& x : {Analysis{"target", "columns", &trained, &sim, &a},
                            Analysis{"target_init", "columns", &init, &sim0, &a0},
                            Analysis{"target", "rows", &trained_t, &sim_t, &a_t}}) {
    const nlohmann::json params = {{"model", x.model}, {"proj", type.name}, {"vectors", x.vectors}};
    const std::string title = std::string(x.model) + " " + type.name + " DOCS, " + x.vectors;
    for (const auto& row : LayerRows("lm_layers", params, title, *x.layers, *x.sim, *x.summary)) {
      ctx.Record(row, row.kind);
    }
  }
  for (const auto& row :
       ChanceRows("lm_chance_floor", {{"proj", type.name}, {"vectors", "columns"}}, chance, chance_seed)) {
    ctx.Record(row, row.kind);
  }
  for (const auto& row :
       ChanceRows("lm_chance_floor", {{"proj", type.name}, {"vectors", "rows"}}, chance_t, chance_seed + 1)) {
    ctx.Record(row, row.kind);
  }
  // Each gap is a two-sample bootstrap (docs_layers.cpp, TwoSampleGapCi); its
  // coverage is bounded by the smaller sample, so that is its n: the model's
  // adjacent pairs (5 for 6 layers), which a percentile interval cannot be
  // judged on (h::MinTrials): INCONCLUSIVE, "too few trials".
  const int64_t n_far = std::min<int64_t>(a.adjacent_pairs, a.non_adjacent_pairs);
  const int64_t n_chance = std::min<int64_t>(a.adjacent_pairs, int64_t(chance.scores.size()));
  return ctx.Judge(
      {h::Estimate::Ci(a.gap_far, a.gap_far_ci.low, a.gap_far_ci.high, h::IntervalMethod::kPercentileBootstrap,
                       n_far),
       h::Estimate::Ci(a.gap_chance, a.gap_chance_ci.low, a.gap_chance_ci.high,
                       h::IntervalMethod::kPercentileBootstrap, n_chance)},
      h::StrFormat("fixtures/lm/target %s, %zu layers of %lldx%lld, columns as vectors: adjacent %.4f, "
                   "non-adjacent %.4f, adjacent - chance %.4f [%.4f, %.4f], permutation p %.3f; untrained "
                   "(RandomInit seed %llu): adjacent %.4f, non-adjacent %.4f; chance floor %.4f (sd %.4f, %d "
                   "pairs); rows as vectors (not judged): adjacent - non-adjacent %.4f [%.4f, %.4f], "
                   "adjacent - chance %.4f [%.4f, %.4f], permutation p %.3f",
                   type.name, trained.tensors.size(), static_cast<long long>(m), static_cast<long long>(n),
                   a.adjacent_mean, a.non_adjacent_mean, a.gap_chance, a.gap_chance_ci.low,
                   a.gap_chance_ci.high, a.permutation_p,
                   static_cast<unsigned long long>(Untrained(dir).init_seed), a0.adjacent_mean,
                   a0.non_adjacent_mean, chance.mean, chance.sd, draws, a_t.gap_far, a_t.gap_far_ci.low,
                   a_t.gap_far_ci.high, a_t.gap_chance, a_t.gap_chance_ci.low, a_t.gap_chance_ci.high,
                   a_t.permutation_p));
}

template <size_t kType>
h::Outcome TrainedLayersOf(h::ClaimContext& ctx) {
  return TrainedLayers(kType, ctx);
}

// Each is a check of docs.D4 (the paper's statement, once) on one projection
// type of the trained transformer.
h::ClaimSpec Spec(const char* id, const char* proj) {
  return {.id = id,
          .check_of = "docs.D4",
          .metric = std::string("mean DOCS adjacent - non-adjacent layer pairs of the trained transformer's ") +
                    proj + " matrices [bootstrap over pairs]",
          .criterion = h::AllOf({h::AtLeast(0, "adjacent - non-adjacent, 95% CI"),
                                 h::AtLeast(0, "adjacent - chance floor, 95% CI")})};
}

CB_REGISTER_CLAIM(kLmQ, Spec("docs.D4-lm-q", "W_q"), TrainedLayersOf<0>);
CB_REGISTER_CLAIM(kLmK, Spec("docs.D4-lm-k", "W_k"), TrainedLayersOf<1>);
CB_REGISTER_CLAIM(kLmV, Spec("docs.D4-lm-v", "W_v"), TrainedLayersOf<2>);
CB_REGISTER_CLAIM(kLmO, Spec("docs.D4-lm-o", "W_o"), TrainedLayersOf<3>);
CB_REGISTER_CLAIM(kLmGate, Spec("docs.D4-lm-gate", "MLP gate"), TrainedLayersOf<4>);
CB_REGISTER_CLAIM(kLmUp, Spec("docs.D4-lm-up", "MLP up"), TrainedLayersOf<5>);
CB_REGISTER_CLAIM(kLmDown, Spec("docs.D4-lm-down", "MLP down"), TrainedLayersOf<6>);

}  // namespace
}  // namespace cb::docs
