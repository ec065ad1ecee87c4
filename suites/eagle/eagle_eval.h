// File: suites/eagle/eagle_eval.h
// -----------------------------------------------------------------------------
// Eagle's scorers on a model endpoint: generate documents and charts
// (generators/docvqa), send each question with its image as a PNG data URL
// through the model client (harness/model_client.h: cache, retries,
// concurrency), score in both modes (reference/eagle/bench.h), and turn
// scores into ledger rows (suite "eagle", one per task metric and part, each
// with its scorer mode). Shared by `claimbench eval eagle` and the claims.
#ifndef CB_SUITES_EAGLE_EAGLE_EVAL_H_
#define CB_SUITES_EAGLE_EAGLE_EVAL_H_

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "generators/docvqa.h"
#include "harness/model_client.h"
#include "harness/result.h"
#include "reference/eagle/bench.h"

namespace cb::eagle {

struct EndpointEvalConfig {
  cb::harness::ClientOptions client;
  std::string model;
  int max_tokens = 32;  // DocVQA's max_new_tokens in lmms-eval
  uint64_t request_seed = 0;
  cb::gen::docvqa::Params gen;
};

struct EndpointEvalOutput {
  std::vector<cb::ref::eagle::Prediction> predictions;  // questions that got an answer
  cb::ref::eagle::Scores strict, paper;
  int questions = 0, questions_failed = 0;
  int64_t requests_sent = 0, cache_hits = 0;
  std::vector<std::string> errors;  // the first few
};

EndpointEvalOutput EvaluateEndpoint(const EndpointEvalConfig& config, cb::harness::ResponseCache* cache,
                                    const std::function<void(int, int)>& progress = {});

// The generator's questions as predictions with the given replies (the
// answer key when `replies` is empty), for the claims and tests.
std::vector<cb::ref::eagle::Prediction> AsPredictions(const std::vector<cb::gen::docvqa::Item>& items,
                                                      const std::vector<std::string>& replies = {});

std::vector<cb::harness::Result> ScoreRows(const cb::ref::eagle::Scores& s, cb::ref::eagle::Mode mode,
                                           const nlohmann::json& params, const std::string& input_hash);

}  // namespace cb::eagle

#endif  // CB_SUITES_EAGLE_EAGLE_EVAL_H_
