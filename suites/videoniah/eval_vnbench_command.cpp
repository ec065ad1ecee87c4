// File: suites/videoniah/eval_vnbench_command.cpp
// `claimbench eval vnbench`: scores VNBench predictions and records them.
//   --predictions FILE.jsonl   an eval.py input file (question_id, pred, gt, type;
//                              pred may be null, gpt_judge optional): read and
//                              validated whole before the ledger is opened
//   --endpoint URL --model M   generate items, query an OpenAI-compatible endpoint
//                              with K frames per try, score, record; responses are
//                              cached in the ledger's http_cache, so a rerun after an
//                              interruption or failure only asks what is missing;
//                              --haystack FILE ... edits the needles into your videos
// Both scorer modes are recorded (strict and paper-compatible), each row with
// its mode; the table shows 4-try and single-try accuracy per subtask.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>

#include "generators/videoniah.h"
#include "harness/cli/commands.h"
#include "ledger/cli/common.h"
#include "ledger/cli/eval_flow.h"
#include "reference/vnbench/vnbench.h"
#include "suites/videoniah/video_io.h"
#include "suites/videoniah/vnbench_eval.h"

namespace cb::cli {
namespace {

namespace gv = cb::gen::videoniah;
namespace vb = cb::ref::vnbench;

struct EvalVnbenchOptions {
  std::string predictions;
  EndpointOptions endpoint;
  std::string tasks = "all";
  int frames = 16, count = 10, max_tokens = 5;
  std::vector<std::string> haystacks;
  EvalRunOptions run{.seed = 20250101};
};

void PrintScores(const vb::Scores& strict, const vb::Scores& paper) {
  std::printf("%-12s %7s %18s %18s\n", "subtask", "items", "4-try strict/paper", "1-try strict/paper");
  for (const auto& [task, ts] : strict.tasks) {
    // Paper mode drops a subtask whose preds are all null (eval.py never sees it).
    const auto tp = paper.tasks.find(task);
    if (tp == paper.tasks.end()) {
      std::printf("%-12s %7d %8.1f / %-7s %8.1f / %-7s\n", task.c_str(), ts.items, ts.FourTry(), "-", ts.SingleTry(),
                  "-");
      continue;
    }
    std::printf("%-12s %7d %8.1f / %-7.1f %8.1f / %-7.1f\n", task.c_str(), ts.items, ts.FourTry(),
                tp->second.FourTry(), ts.SingleTry(), tp->second.SingleTry());
  }
  std::printf("%-12s %7s %8.1f / %-7.1f %8.1f / %-7.1f  (mean of subtasks, eval.py)\n", "overall", "",
              strict.overall_task_mean, paper.overall_task_mean, strict.overall_single_try, paper.overall_single_try);
  std::printf("%-12s %7s %8.1f / %-7.1f  (mean of ret/ord/cnt groups, evaluation_utils.py)\n", "overall", "",
              strict.overall_group_mean, paper.overall_group_mean);
  if (strict.null_tries > 0)
    std::printf("null preds: %d tries (strict: wrong; paper-compatible: skipped as eval.py does, %d items left out)\n",
                strict.null_tries, paper.items_left_out);
  std::printf("chance: 4-try %.2f%%, single-try %.0f%%\n", vb::kChanceFourTry, vb::kChanceSingleTry);
}

nlohmann::json ScoresJson(const vb::Scores& s) {
  nlohmann::json j = {{"overall_task_mean", s.overall_task_mean},
                      {"overall_group_mean", s.overall_group_mean},
                      {"overall_single_try", s.overall_single_try},
                      {"null_preds", s.null_tries},
                      {"items_left_out", s.items_left_out},
                      {"tasks", nlohmann::json::object()}};
  for (const auto& [task, ts] : s.tasks)
    j["tasks"][task] = {{"items", ts.items}, {"four_try", ts.FourTry()}, {"single_try", ts.SingleTry()},
                        {"unanswered", ts.unanswered}};
  return j;
}

EvalScores Scores(const vb::Scores& strict, const vb::Scores& paper, const nlohmann::json& params,
                  const std::string& input_hash) {
  EvalScores out{cb::videoniah::ScoreRows(strict, vb::Mode::kStrict, params, input_hash), ScoresJson(strict),
                 ScoresJson(paper), [&strict, &paper] { PrintScores(strict, paper); }};
  const auto more = cb::videoniah::ScoreRows(paper, vb::Mode::kPaperCompatible, params, input_hash);
  out.rows.insert(out.rows.end(), more.begin(), more.end());
  return out;
}

int RunFromPredictions(const EvalVnbenchOptions& o, const CommandLine& cmdline) {
  const std::string text = ReadPredictionsFile(o.predictions);
  std::vector<vb::Prediction> preds;
  vb::Scores strict, paper;
  try {
    preds = vb::ParsePredictions(text, o.predictions);
    if (preds.empty()) throw std::runtime_error(o.predictions + ": no predictions");
    strict = vb::Score(preds, vb::Mode::kStrict);
    paper = vb::Score(preds, vb::Mode::kPaperCompatible);
    if (paper.tasks.empty())  // eval.py would divide by zero
      throw std::runtime_error(o.predictions + ": every pred is null; there is nothing to score");
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  return RecordPredictionRun(o.run, cmdline, o.predictions, text, preds.size(),
                             [&](const nlohmann::json& params, const std::string& input_hash) {
                               return Scores(strict, paper, params, input_hash);
                             });
}

int RunOnEndpoint(const EvalVnbenchOptions& o, const CommandLine& cmdline) {
  cb::videoniah::EndpointEvalConfig c;
  c.client = EndpointClientOptions(o.endpoint);
  if (o.frames < 2 || o.frames > 256) throw UsageError("--frames must be in [2, 256]");
  if (o.count < 1 || o.count > 10000) throw UsageError("--count must be in [1, 10000]");
  c.model = o.endpoint.model;
  c.frames = o.frames;
  c.count = o.count;
  c.max_tokens = o.max_tokens;
  c.request_seed = o.run.seed;
  c.gen.seed = o.run.seed;
  c.gen.sample_frames = o.frames;
  if (o.tasks == "all") {
    c.tasks = gv::AllTasks();
  } else {
    std::stringstream ss(o.tasks);
    std::string key;
    while (std::getline(ss, key, ',')) {
      auto t = gv::ParseTask(key);
      if (!t) throw UsageError("--tasks: unknown task '" + key + "'");
      c.tasks.push_back(*t);
    }
  }
  try {
    for (gv::Task t : c.tasks) gv::MakeItem(t, 0, c.gen);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  // User haystacks: decoded and every item placed before the ledger opens.
  std::vector<std::unique_ptr<cb::videoniah::DecodedHaystack>> hay;
  nlohmann::json hay_json = nlohmann::json::array();
  for (const std::string& path : o.haystacks) {
    hay.push_back(std::make_unique<cb::videoniah::DecodedHaystack>(path, c.gen));  // one line naming the file
    c.haystacks.push_back(hay.back().get());
    hay_json.push_back({{"file", std::filesystem::path(path).filename().string()},
                        {"frames", hay.back()->frames()},
                        {"rgb_hash", hay.back()->ContentHash()}});
  }
  if (!hay.empty()) {
    size_t k = 0;
    for (gv::Task t : c.tasks)
      for (int i = 0; i < c.count; ++i, ++k) {
        const auto& h = hay[k % hay.size()];
        try {
          gv::MakeItem(t, i, c.gen, h->frames());
        } catch (const std::invalid_argument& e) {
          throw UsageError("--haystack " + h->path() + ": " + e.what());
        }
      }
  }
  cb::videoniah::EndpointEvalOutput out;
  EndpointEval e;
  e.unit = "items";
  e.evaluate = [&](cb::harness::ResponseCache* cache, const std::function<void(int, int)>& progress) {
    out = cb::videoniah::EvaluateEndpoint(c, cache, progress);
    return EndpointTally{out.items, out.items_failed, out.requests_sent, out.cache_hits,
                         out.errors, out.requests, out.requests_unanswered};
  };
  e.params = [&] {
    nlohmann::json params = {{"endpoint", o.endpoint.endpoint},
                             {"model", o.endpoint.model},
                             {"frames", o.frames},
                             {"max_tokens", o.max_tokens},
                             {"temperature", 0},
                             {"request_seed", o.run.seed},
                             {"generator", gv::kVideoNiahName},
                             {"generator_version", gv::kVideoNiahVersion},
                             {"generator_params", gv::CanonicalParams(c.gen)},
                             {"items_per_task", o.count}};
    if (!hay.empty()) params["haystacks"] = hay_json;
    return params;
  };
  e.score = [&](const nlohmann::json& params, const std::string& input_hash) {
    return Scores(out.strict, out.paper, params, input_hash);
  };
  return RunEndpointEval(o.run, cmdline, o.endpoint.endpoint, e);
}

int RunEvalVnbench(const EvalVnbenchOptions& o, const CommandLine& cmdline) {
  if (o.predictions.empty() == o.endpoint.endpoint.empty())
    throw UsageError("give exactly one of --predictions FILE or --endpoint URL");
  return o.predictions.empty() ? RunOnEndpoint(o, cmdline) : RunFromPredictions(o, cmdline);
}

}  // namespace

void AddEvalVnbenchCommand(CLI::App& app, const CommandLine& cmdline, int* exit_code) {
  CLI::App* eval = CommandGroup(app, "eval", "Evaluate methods on statistics from real models");
  auto o = std::make_shared<EvalVnbenchOptions>();
  CLI::App* c = eval->add_subcommand("vnbench", "VNBench: score a prediction file, or query a model endpoint");
  AddEvalInputOptions(c, &o->predictions, "eval.py input (JSONL: question_id, pred (a string or null), gt, type; optional gpt_judge)", &o->endpoint);
  c->add_option("--frames", o->frames, "K uniform frames per question")->capture_default_str();
  c->add_option("--tasks", o->tasks, "Subtasks (comma-separated) or all")->capture_default_str();
  c->add_option("--count", o->count, "Items per subtask")->capture_default_str();
  c->add_option("--max-tokens", o->max_tokens, "max_tokens per answer")->capture_default_str();
  c->add_option("--haystack", o->haystacks, "Your own videos as haystacks (item k uses file k mod count)")
      ->expected(1, -1);
  AddEvalRunOptions(c, &o->run);
  c->callback([o, cmdline, exit_code] { *exit_code = RunEvalVnbench(*o, cmdline); });
}

CB_REGISTER_COMMAND(eval_vnbench, AddEvalVnbenchCommand);

}  // namespace cb::cli
