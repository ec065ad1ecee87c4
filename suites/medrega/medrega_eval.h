// File: suites/medrega/medrega_eval.h
// -----------------------------------------------------------------------------
// MedRegA evaluation shared by `claimbench eval medrega` and the claims:
//
// Predictions file (JSONL, one object a line; the fields of the authors'
// answer files, json.load lists, plus the task):
//   {"task": "ss"|"sm"|"ms"|"mm", "answer": str|null, "gt": str, "hw": [H, W]}
//   {"task": "r2t"|"rg"|"rg_zh", "pred_answer": str, "gt_answer": str}
// `task` may be left out when the command gives --task. A JSON array (an
// authors' answer file as is) is read too, with --task. A bad line is a
// std::runtime_error "FILE:LINE: ...".
//
// Scoring: every task present, in both modes (reference/medrega); where the
// authors' code would raise (paper mode), the task's paper result is that
// error, reported and not recorded as a number.
//
// Endpoint: the regions generator's scans (PNG data URLs, greyscale) with each
// task's prompt, answers scored as predictions.
#ifndef CB_SUITES_MEDREGA_MEDREGA_EVAL_H_
#define CB_SUITES_MEDREGA_MEDREGA_EVAL_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "generators/regions.h"
#include "harness/model_client.h"
#include "harness/result.h"
#include "reference/medrega/grounding.h"
#include "reference/medrega/text_metrics.h"

namespace cb::medrega {

namespace mr = cb::ref::medrega;

struct Predictions {
  std::map<mr::Task, std::vector<mr::GroundingItem>> grounding;
  std::map<mr::Task, std::vector<mr::TextItem>> text;
  size_t rows = 0;
};

// `default_task`: for lines (or an array) without "task".
Predictions ParsePredictions(const std::string& text, const std::string& source,
                             std::optional<mr::Task> default_task = std::nullopt);

struct TaskResult {
  mr::TaskScores scores;
  std::string error;  // paper mode: what the authors' code raises; scores empty then
};

struct AllScores {
  std::map<mr::Task, TaskResult> tasks;
};

AllScores ScoreAll(const Predictions& p, mr::Mode mode);

// One row per task metric, suite "medrega", params + scorer_mode + task.
std::vector<cb::harness::Result> ScoreRows(const AllScores& s, mr::Mode mode, const nlohmann::json& params,
                                           const std::string& input_hash);

nlohmann::json ScoresJson(const AllScores& s);
void PrintScores(const AllScores& strict, const AllScores& paper);

// The generator's tasks as the reference's.
mr::Task ToRefTask(cb::gen::regions::Task t);

struct EndpointEvalConfig {
  cb::harness::ClientOptions client;
  std::string model;
  int max_tokens = 256;
  uint64_t request_seed = 0;
  cb::gen::regions::Params gen;
  std::vector<cb::gen::regions::Task> tasks;  // empty: all
};

struct EndpointEvalOutput {
  Predictions predictions;
  AllScores strict, paper;
  int items = 0, items_failed = 0;
  int64_t requests_sent = 0, cache_hits = 0;
  std::vector<std::string> errors;
};

EndpointEvalOutput EvaluateEndpoint(const EndpointEvalConfig& c, cb::harness::ResponseCache* cache,
                                    const std::function<void(int, int)>& progress = {});

// The questions of the scans as predictions answered by `answer(scan, question)`.
Predictions AnswerScans(const std::vector<cb::gen::regions::Scan>& scans,
                        const std::vector<cb::gen::regions::Task>& tasks,
                        const std::function<std::optional<std::string>(const cb::gen::regions::Scan&,
                                                                       const cb::gen::regions::Question&)>& answer);

}  // namespace cb::medrega

#endif  // CB_SUITES_MEDREGA_MEDREGA_EVAL_H_
