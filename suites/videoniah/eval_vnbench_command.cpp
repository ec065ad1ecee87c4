// File: suites/videoniah/eval_vnbench_command.cpp
// `claimbench eval vnbench`: scores VNBench predictions and records them.
//   --predictions FILE.jsonl   an eval.py input file (question_id, pred, gt, type):
//                              read and validated whole before the ledger is opened
//   --endpoint URL --model M   generate items, query an OpenAI-compatible endpoint
//                              with K frames per try, score, record; responses are
//                              cached in the ledger's http_cache, so a rerun after an
//                              interruption or failure only asks what is missing;
//                              --haystack FILE ... edits the needles into your videos
// Both scorer modes are recorded (strict and paper-compatible), each row with
// its mode; the table shows 4-try and single-try accuracy per subtask.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "generators/videoniah.h"
#include "harness/cli/commands.h"
#include "ledger/cli/common.h"
#include "harness/hash.h"
#include "harness/progress.h"
#include "reference/vnbench/vnbench.h"
#include "suites/videoniah/video_io.h"
#include "suites/videoniah/vnbench_eval.h"

namespace cb::cli {
namespace {

namespace gv = cb::gen::videoniah;
namespace vb = cb::ref::vnbench;

struct EvalVnbenchOptions {
  std::string predictions;
  std::string endpoint, model, tasks = "all";
  int frames = 16, count = 10, concurrency = 4, max_tokens = 5, retries = 5;
  double timeout_s = 120;
  uint64_t seed = 20250101;
  std::vector<std::string> haystacks;
  std::string ledger;
  bool json = false;
};

void PrintScores(const vb::Scores& strict, const vb::Scores& paper) {
  std::printf("%-12s %7s %18s %18s\n", "subtask", "items", "4-try strict/paper", "1-try strict/paper");
  for (const auto& [task, ts] : strict.tasks) {
    const auto& tp = paper.tasks.at(task);
    std::printf("%-12s %7d %8.1f / %-7.1f %8.1f / %-7.1f\n", task.c_str(), ts.items, ts.FourTry(), tp.FourTry(),
                ts.SingleTry(), tp.SingleTry());
  }
  std::printf("%-12s %7s %8.1f / %-7.1f %8.1f / %-7.1f  (mean of subtasks, eval.py)\n", "overall", "",
              strict.overall_task_mean, paper.overall_task_mean, strict.overall_single_try, paper.overall_single_try);
  std::printf("%-12s %7s %8.1f / %-7.1f  (mean of ret/ord/cnt groups, evaluation_utils.py)\n", "overall", "",
              strict.overall_group_mean, paper.overall_group_mean);
  std::printf("chance: 4-try %.2f%%, single-try %.0f%%\n", vb::kChanceFourTry, vb::kChanceSingleTry);
}

nlohmann::json ScoresJson(const vb::Scores& s) {
  nlohmann::json j = {{"overall_task_mean", s.overall_task_mean},
                      {"overall_group_mean", s.overall_group_mean},
                      {"overall_single_try", s.overall_single_try},
                      {"tasks", nlohmann::json::object()}};
  for (const auto& [task, ts] : s.tasks)
    j["tasks"][task] = {{"items", ts.items}, {"four_try", ts.FourTry()}, {"single_try", ts.SingleTry()},
                        {"unanswered", ts.unanswered}};
  return j;
}

int Record(const EvalVnbenchOptions& o, const CommandLine& cmdline, const vb::Scores& strict,
           const vb::Scores& paper, const nlohmann::json& params, const std::string& input_hash,
           cb::ledger::Ledger& ledger, int64_t run_id, bool failed) {
  std::vector<cb::harness::Result> rows = cb::videoniah::ScoreRows(strict, vb::Mode::kStrict, params, input_hash);
  const auto more = cb::videoniah::ScoreRows(paper, vb::Mode::kPaperCompatible, params, input_hash);
  rows.insert(rows.end(), more.begin(), more.end());
  ledger.AddResults(run_id, rows);
  ledger.FinishRun(run_id, failed ? cb::ledger::RunStatus::kFailed : cb::ledger::RunStatus::kComplete);
  const auto summary = ledger.GetRun(run_id);
  (void)cmdline;
  if (o.json) {
    std::cout << nlohmann::json({{"run_id", run_id}, {"run_hash", summary.run_hash}, {"params", params},
                                 {"strict", ScoresJson(strict)}, {"paper_compatible", ScoresJson(paper)}})
                     .dump(2)
              << "\n";
  } else {
    PrintScores(strict, paper);
    std::printf("\nrun %lld %s, run_hash %s\n", static_cast<long long>(run_id), failed ? "failed" : "complete",
                summary.run_hash.c_str());
  }
  return kExitOk;
}

int RunFromPredictions(const EvalVnbenchOptions& o, const CommandLine& cmdline) {
  std::ifstream in(o.predictions, std::ios::binary);
  if (!in) throw UsageError("--predictions " + o.predictions + ": cannot read");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  std::vector<vb::Prediction> preds;
  vb::Scores strict, paper;
  try {
    preds = vb::ParsePredictions(text, o.predictions);
    if (preds.empty()) throw std::runtime_error(o.predictions + ": no predictions");
    strict = vb::Score(preds, vb::Mode::kStrict);
    paper = vb::Score(preds, vb::Mode::kPaperCompatible);
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  const nlohmann::json params = {{"source", std::filesystem::path(o.predictions).filename().string()},
                                 {"rows", preds.size()}};
  auto ledger = cb::ledger::Ledger::Open(ResolveLedgerPath(o.ledger));
  const int64_t run_id = ledger.BeginRun(CollectRunMeta(JoinArgs(cmdline.argc, cmdline.argv), "eval", o.seed));
  return Record(o, cmdline, strict, paper, params, cb::harness::Xxh3_128(text).Hex(), ledger, run_id, false);
}

int RunOnEndpoint(const EvalVnbenchOptions& o, const CommandLine& cmdline) {
  if (o.model.empty()) throw UsageError("--model is required with --endpoint");
  if (o.frames < 2 || o.frames > 256) throw UsageError("--frames must be in [2, 256]");
  if (o.count < 1 || o.count > 10000) throw UsageError("--count must be in [1, 10000]");
  if (o.concurrency < 1 || o.concurrency > 256) throw UsageError("--concurrency must be in [1, 256]");
  cb::videoniah::EndpointEvalConfig c;
  c.client.endpoint = o.endpoint;
  c.client.concurrency = o.concurrency;
  c.client.max_retries = o.retries;
  c.client.timeout_s = o.timeout_s;
  c.model = o.model;
  c.frames = o.frames;
  c.count = o.count;
  c.max_tokens = o.max_tokens;
  c.request_seed = o.seed;
  c.gen.seed = o.seed;
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
    cb::harness::ModelClient probe(c.client);  // checks the URL
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
  auto ledger = cb::ledger::Ledger::Open(ResolveLedgerPath(o.ledger));
  LedgerResponseCache cache(ledger);
  const int64_t run_id = ledger.BeginRun(CollectRunMeta(JoinArgs(cmdline.argc, cmdline.argv), "eval", o.seed));
  cb::harness::ProgressBar bar(1);
  cb::videoniah::EndpointEvalOutput out;
  try {
    out = cb::videoniah::EvaluateEndpoint(c, &cache, [&](int d, int n) {
      bar.Update(0, static_cast<double>(d) / n, std::to_string(d) + "/" + std::to_string(n) + " requests");
    });
  } catch (...) {
    ledger.FinishRun(run_id, cb::ledger::RunStatus::kFailed);
    throw;
  }
  bar.Clear();
  nlohmann::json params = {{"endpoint", o.endpoint},       {"model", o.model},
                                 {"frames", o.frames},           {"max_tokens", o.max_tokens},
                                 {"temperature", 0},             {"request_seed", o.seed},
                                 {"generator", gv::kVideoNiahName}, {"generator_version", gv::kVideoNiahVersion},
                                 {"generator_params", gv::CanonicalParams(c.gen)}, {"items_per_task", o.count}};
  if (!hay.empty()) params["haystacks"] = hay_json;
  std::fprintf(stderr, "%d items, %lld requests sent, %lld answered from the cache\n", out.items,
               static_cast<long long>(out.requests_sent), static_cast<long long>(out.cache_hits));
  if (out.items_failed == out.items) {
    ledger.FinishRun(run_id, cb::ledger::RunStatus::kFailed);
    throw std::runtime_error("endpoint " + o.endpoint + " gave no usable answer (" +
                             (out.errors.empty() ? std::string("?") : out.errors[0]) + ")");
  }
  const bool failed = out.items_failed > 0;
  const int rc = Record(o, cmdline, out.strict, out.paper, params, cb::harness::Xxh3_128(params.dump()).Hex(), ledger,
                        run_id, failed);
  if (failed) {
    for (const auto& e : out.errors) std::fprintf(stderr, "claimbench: %s\n", e.c_str());
    throw std::runtime_error(std::to_string(out.items_failed) + " of " + std::to_string(out.items) +
                             " items got no answer; answered requests are cached, rerun to resume");
  }
  return rc;
}

int RunEvalVnbench(const EvalVnbenchOptions& o, const CommandLine& cmdline) {
  if (o.predictions.empty() == o.endpoint.empty())
    throw UsageError("give exactly one of --predictions FILE or --endpoint URL");
  return o.predictions.empty() ? RunOnEndpoint(o, cmdline) : RunFromPredictions(o, cmdline);
}

}  // namespace

void AddEvalVnbenchCommand(CLI::App& app, const CommandLine& cmdline, int* exit_code) {
  CLI::App* eval = CommandGroup(app, "eval", "Evaluate methods on statistics from real models");
  auto o = std::make_shared<EvalVnbenchOptions>();
  CLI::App* c = eval->add_subcommand("vnbench", "VNBench: score a prediction file, or query a model endpoint");
  c->add_option("--predictions", o->predictions, "eval.py input (JSONL: question_id, pred, gt, type)");
  c->add_option("--endpoint", o->endpoint, "OpenAI-compatible base URL (API key from $OPENAI_API_KEY)");
  c->add_option("--model", o->model, "Model name sent to the endpoint");
  c->add_option("--frames", o->frames, "K uniform frames per question")->capture_default_str();
  c->add_option("--tasks", o->tasks, "Subtasks (comma-separated) or all")->capture_default_str();
  c->add_option("--count", o->count, "Items per subtask")->capture_default_str();
  c->add_option("--concurrency", o->concurrency, "Requests in flight")->capture_default_str();
  c->add_option("--max-tokens", o->max_tokens, "max_tokens per answer")->capture_default_str();
  c->add_option("--retries", o->retries, "Retries per request (429, 5xx, timeouts)")->capture_default_str();
  c->add_option("--timeout", o->timeout_s, "Seconds per request attempt")->capture_default_str();
  c->add_option("--seed", o->seed, "Generator and request seed")->capture_default_str();
  c->add_option("--haystack", o->haystacks, "Your own videos as haystacks (item k uses file k mod count)")
      ->expected(1, -1);
  AddLedgerOption(c, &o->ledger);
  c->add_flag("--json", o->json, "Print the scores as JSON on stdout");
  c->callback([o, cmdline, exit_code] { *exit_code = RunEvalVnbench(*o, cmdline); });
}

CB_REGISTER_COMMAND(eval_vnbench, AddEvalVnbenchCommand);

}  // namespace cb::cli
