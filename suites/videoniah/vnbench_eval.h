// File: suites/videoniah/vnbench_eval.h
// -----------------------------------------------------------------------------
// VNBench on a model endpoint (brief §5): generate the items, send each try
// as K uniform frames (PNG data URLs, in time order) plus the release prompt
// through the model client (harness/model_client.h), score with both scorer
// modes (reference/vnbench), and turn everything into ledger rows carrying the
// endpoint, model, decoding settings, generator version and seed, K and the
// scorer mode. Shared by `claimbench eval vnbench --endpoint` and the
// model-dependent claims.
#ifndef CB_SUITES_VIDEONIAH_VNBENCH_EVAL_H_
#define CB_SUITES_VIDEONIAH_VNBENCH_EVAL_H_

#include <functional>
#include <string>
#include <vector>

#include "generators/videoniah.h"
#include "harness/model_client.h"
#include "harness/result.h"
#include "reference/vnbench/vnbench.h"

namespace cb::videoniah {

struct EndpointEvalConfig {
  cb::harness::ClientOptions client;
  std::string model;
  int frames = 16;        // K
  int max_tokens = 5;     // the reference inference's setting
  uint64_t request_seed = 0;
  cb::gen::videoniah::Params gen;
  std::vector<cb::gen::videoniah::Task> tasks;
  int count = 10;         // items per task
  // User haystacks (not owned; empty: procedural): item k, counted over all
  // tasks in order, uses haystacks[k % size], as `gen videoniah --haystack`.
  std::vector<const cb::gen::videoniah::HaystackSource*> haystacks;
};

struct EndpointEvalOutput {
  std::vector<cb::ref::vnbench::Prediction> predictions;  // items whose 4 tries all answered
  cb::ref::vnbench::Scores strict, paper;
  int items = 0, items_failed = 0;  // failed: a try got no answer after retries
  int64_t requests_sent = 0, cache_hits = 0;
  int64_t requests = 0, requests_unanswered = 0;  // 4 per item; those with no usable answer
  std::vector<std::string> errors;  // first few, for the user
};

// Runs the evaluation. `progress(done, total)` after each answered request.
EndpointEvalOutput EvaluateEndpoint(const EndpointEvalConfig& config, cb::harness::ResponseCache* cache,
                                    const std::function<void(int, int)>& progress = {});

// Ledger rows for scores: per subtask 4-try and single-try accuracy, both
// overall conventions, for one scorer mode; `params` (endpoint, model, ...)
// are merged into every row.
std::vector<cb::harness::Result> ScoreRows(const cb::ref::vnbench::Scores& s, cb::ref::vnbench::Mode mode,
                                           const nlohmann::json& params, const std::string& input_hash);

}  // namespace cb::videoniah

#endif  // CB_SUITES_VIDEONIAH_VNBENCH_EVAL_H_
