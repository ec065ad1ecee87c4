// File: suites/docs/docs_layer_rows.cpp
// The ledger rows of a layer analysis (see docs_layer_rows.h).
#include "suites/docs/docs_layer_rows.h"

#include <string>
#include <vector>

#include "harness/hash.h"

namespace cb::docs {
namespace {

namespace h = cb::harness;

h::Result Row(const std::string& case_name, nlohmann::json params, const char* metric, double value,
              int64_t n, const std::string& input_hash) {
  h::Result r;
  r.suite = "docs";
  r.case_name = case_name;
  r.backend = "cpu";
  r.params = std::move(params);
  r.metric = metric;
  r.unit = metric == std::string("permutation_p") ? "p" : "similarity";
  r.value = value;
  r.n = n;
  r.input_hash = input_hash;
  r.output_hash = h::HashDoubles({value}).Hex();
  r.kind = h::ResultKind::kExact;
  return r;
}

h::Result WithCi(h::Result r, const h::Interval& ci) {
  r.ci_low = ci.low;
  r.ci_high = ci.high;
  r.kind = h::ResultKind::kEstimate;
  return r;
}

}  // namespace

std::vector<h::Result> LayerRows(const std::string& case_name, const nlohmann::json& params,
                                 const std::string& heatmap, const ProjectionLayers& layers,
                                 const SimilarityMatrix& sim, const Adjacency& a) {
  std::vector<h::Result> rows;
  const auto& t = layers.tensors;
  nlohmann::json base = params;
  base["m"] = t.at(0).rows;
  base["n"] = t.at(0).cols;
  std::string all_content;
  for (size_t i = 0; i < t.size(); ++i) {
    all_content += t[i].content_hash;
    for (size_t j = i + 1; j < t.size(); ++j) {
      nlohmann::json p = base;
      p["layer_i"] = layers.layer[i];
      p["layer_j"] = layers.layer[j];
      p["heatmap"] = heatmap;
      p["heatmap_row"] = layers.layer[i];
      p["heatmap_col"] = layers.layer[j];
      rows.push_back(Row(case_name, p, "docs_score", sim.at(i, j), 1,
                         h::Xxh3_128(t[i].content_hash + t[j].content_hash).Hex()));
    }
  }
  const std::string input = h::Xxh3_128(all_content).Hex();
  base["layers"] = static_cast<int64_t>(t.size());
  rows.push_back(Row(case_name, base, "adjacent_mean", a.adjacent_mean, a.adjacent_pairs, input));
  rows.push_back(WithCi(Row(case_name, base, "adjacent_minus_chance", a.gap_chance, a.adjacent_pairs, input),
                        a.gap_chance_ci));
  if (a.non_adjacent_pairs > 0) {
    rows.push_back(Row(case_name, base, "non_adjacent_mean", a.non_adjacent_mean, a.non_adjacent_pairs, input));
    rows.push_back(WithCi(Row(case_name, base, "adjacent_minus_non_adjacent", a.gap_far,
                              a.adjacent_pairs + a.non_adjacent_pairs, input),
                          a.gap_far_ci));
    if (a.permutations > 0) {
      rows.push_back(Row(case_name, base, "permutation_p", a.permutation_p, a.permutations, input));
    }
  }
  return rows;
}

std::vector<h::Result> ChanceRows(const std::string& case_name, const nlohmann::json& params,
                                  const ChanceFloor& c, uint64_t seed) {
  nlohmann::json p = params;
  p["m"] = c.rows;
  p["n"] = c.cols;
  p["draws"] = static_cast<int64_t>(c.scores.size());
  const std::string input =
      h::Xxh3_128("gaussian pairs " + p.dump() + " seed=" + std::to_string(seed)).Hex();
  const auto n = static_cast<int64_t>(c.scores.size());
  std::vector<h::Result> rows = {WithCi(Row(case_name, p, "chance_mean", c.mean, n, input), c.ci),
                                 Row(case_name, p, "chance_sd", c.sd, n, input),
                                 Row(case_name, p, "chance_max", c.max, n, input)};
  rows[0].output_hash = h::HashDoubles(c.scores).Hex();
  return rows;
}

}  // namespace cb::docs
