// File: suites/sgp/sgp_eval.h
// -----------------------------------------------------------------------------
// SGP-Bench on a model endpoint (brief §5): generate the programs, send each
// row of the chosen splits as simple-evals' multiple-choice prompt (text only,
// temperature 0, max_tokens 2048, the OpenAI system prompt unless told
// otherwise) through the model client (harness/model_client.h), score both
// extraction modes (reference/sgp) and turn the scores into ledger rows that
// carry the endpoint, model, decoding settings, generator version and seed and
// the scorer mode. Shared by `claimbench eval sgp` and the model claims.
#ifndef CB_SUITES_SGP_SGP_EVAL_H_
#define CB_SUITES_SGP_SGP_EVAL_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "generators/sgp.h"
#include "generators/sgp_cad.h"
#include "harness/model_client.h"
#include "harness/result.h"
#include "reference/sgp/sgp.h"

namespace cb::sgp {

struct EndpointEvalConfig {
  cb::harness::ClientOptions client;
  std::string model;
  int max_tokens = 2048;
  uint64_t request_seed = 0;
  std::string system_prompt = cb::ref::sgp::kSystemOpenAi;  // empty: none
  cb::gen::sgp::Params gen;
  bool invariance = false;  // also inv, inv_t*, inv_r* (consistency)
  bool svg = true;          // the svg split
  int cad_count = 0;        // CAD programs (split "cad", generators/sgp_cad.h)
};

struct ModeScores {
  cb::ref::sgp::Scores scores;
  std::optional<cb::ref::sgp::Consistency> consistency_t, consistency_r;
};

struct EndpointEvalOutput {
  std::vector<cb::ref::sgp::Prediction> predictions;  // rows that got an answer
  ModeScores strict, paper;
  int rows = 0, rows_failed = 0;
  int64_t requests_sent = 0, cache_hits = 0;
  std::vector<std::string> errors;  // the first few
};

EndpointEvalOutput EvaluateEndpoint(const EndpointEvalConfig& config, cb::harness::ResponseCache* cache,
                                    const std::function<void(int, int)>& progress = {});

// Both modes' scores and consistencies for a set of predictions.
ModeScores ScoreAll(const std::vector<cb::ref::sgp::Prediction>& preds, cb::ref::sgp::Mode mode);

// Ledger rows: overall and per-subject accuracy (%), per split, and the T and
// SE(2) consistency when present, for one mode; `params` merged into each row.
std::vector<cb::harness::Result> ScoreRows(const ModeScores& s, cb::ref::sgp::Mode mode, const nlohmann::json& params,
                                           const std::string& input_hash);

}  // namespace cb::sgp

#endif  // CB_SUITES_SGP_SGP_EVAL_H_
