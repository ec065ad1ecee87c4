// File: suites/docs/docs_layer_rows.h
// -----------------------------------------------------------------------------
// The ledger rows (suite docs) of one projection type's layer analysis
// (docs_layers.h), shared by the claims docs.D4-lm-* and `claimbench docs
// --checkpoint`, so both record the same shape of result:
//   every pair i < j: metric docs_score, params + {layer_i, layer_j} and the
//     heatmap keys the report renders as one heatmap per (case, heatmap):
//     "heatmap" (its title), "heatmap_row" = layer_i, "heatmap_col" = layer_j
//     (ledger/analysis/heatmap.h);
//   adjacent_mean, non_adjacent_mean (exact), adjacent_minus_non_adjacent and
//     adjacent_minus_chance (estimates with their 95% CI), permutation_p;
//     the non-adjacent rows only when there are non-adjacent pairs;
//   the chance floor: chance_mean (estimate, CI), chance_sd, chance_max.
// Every row carries an input hash (the tensors' content hashes, or the
// chance floor's generator parameters) and an output hash of its values.
#ifndef CB_SUITES_DOCS_DOCS_LAYER_ROWS_H_
#define CB_SUITES_DOCS_DOCS_LAYER_ROWS_H_

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/result.h"
#include "suites/docs/docs_layers.h"

namespace cb::docs {

// `params` is merged into every row's params (e.g. {"model": "target",
// "proj": "q_proj"}); `heatmap` titles the pair rows' heatmap.
std::vector<cb::harness::Result> LayerRows(const std::string& case_name, const nlohmann::json& params,
                                           const std::string& heatmap, const ProjectionLayers& layers,
                                           const SimilarityMatrix& sim, const Adjacency& summary);

// `seed` is the one ChanceFloorOf() was given (part of the input hash).
std::vector<cb::harness::Result> ChanceRows(const std::string& case_name, const nlohmann::json& params,
                                            const ChanceFloor& chance, uint64_t seed);

}  // namespace cb::docs

#endif  // CB_SUITES_DOCS_DOCS_LAYER_ROWS_H_
