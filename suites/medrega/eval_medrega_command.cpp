// File: suites/medrega/eval_medrega_command.cpp
// `claimbench eval medrega`: scores MedRegA predictions and records them.
//   --predictions FILE        JSONL (task, answer|null, gt, hw; or task,
//                             pred_answer, gt_answer), or an authors' answer
//                             file (a JSON array) with --task; read and checked
//                             whole before the ledger is opened (FILE:LINE)
//   --endpoint URL --model M  generate synthetic scans (generators/regions),
//                             ask an OpenAI-compatible vision endpoint each
//                             task's question with the scan as a PNG data URL,
//                             score, record; answers are cached in the ledger
// Both scorer modes are recorded, each row with its mode and task; a task the
// authors' code would fail on (paper mode) is printed as that error and gets
// no paper-compatible rows.
#include <memory>
#include <sstream>
#include <string>

#include "generators/regions.h"
#include "harness/cli/commands.h"
#include "ledger/cli/common.h"
#include "ledger/cli/eval_flow.h"
#include "suites/medrega/medrega_eval.h"

namespace cb::cli {
namespace {

namespace gr = cb::gen::regions;
namespace md = cb::medrega;
namespace mr = cb::ref::medrega;

struct EvalMedregaOptions {
  std::string predictions, task;
  EndpointOptions endpoint;
  std::string tasks = "all";
  int count = 20, size = 256, max_tokens = 256;
  EvalRunOptions run{.seed = 20250127};
};

EvalScores Scores(const md::AllScores& strict, const md::AllScores& paper, const nlohmann::json& params,
                  const std::string& input_hash) {
  EvalScores out{md::ScoreRows(strict, mr::Mode::kStrict, params, input_hash), md::ScoresJson(strict),
                 md::ScoresJson(paper), [&strict, &paper] { md::PrintScores(strict, paper); }};
  const auto more = md::ScoreRows(paper, mr::Mode::kPaperCompatible, params, input_hash);
  out.rows.insert(out.rows.end(), more.begin(), more.end());
  return out;
}

int RunFromPredictions(const EvalMedregaOptions& o, const CommandLine& cmdline) {
  const std::string text = ReadPredictionsFile(o.predictions);
  std::optional<mr::Task> def;
  if (!o.task.empty()) {
    def = mr::ParseTask(o.task);
    if (!def) throw UsageError("--task: unknown task '" + o.task + "' (ss, sm, ms, mm, r2t, rg, rg_zh)");
  }
  md::Predictions preds;
  md::AllScores strict, paper;
  try {
    preds = md::ParsePredictions(text, o.predictions, def);
    if (preds.rows == 0) throw std::runtime_error(o.predictions + ": no predictions");
    strict = md::ScoreAll(preds, mr::Mode::kStrict);
    paper = md::ScoreAll(preds, mr::Mode::kPaperCompatible);
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  return RecordPredictionRun(o.run, cmdline, o.predictions, text, preds.rows,
                             [&](const nlohmann::json& params, const std::string& input_hash) {
                               return Scores(strict, paper, params, input_hash);
                             });
}

int RunOnEndpoint(const EvalMedregaOptions& o, const CommandLine& cmdline) {
  md::EndpointEvalConfig c;
  c.client = EndpointClientOptions(o.endpoint);
  if (o.count < 1 || o.count > 10000) throw UsageError("--count must be in [1, 10000]");
  if (o.size < 96 || o.size > 1024) throw UsageError("--size must be in [96, 1024]");
  if (o.max_tokens < 1 || o.max_tokens > 8192) throw UsageError("--max-tokens must be in [1, 8192]");
  c.model = o.endpoint.model;
  c.max_tokens = o.max_tokens;
  c.request_seed = o.run.seed;
  c.gen = {.seed = o.run.seed, .count = o.count, .size = o.size};
  if (o.tasks != "all") {
    std::stringstream ss(o.tasks);
    std::string key;
    while (std::getline(ss, key, ',')) {
      bool found = false;
      for (gr::Task t : gr::AllTasks())
        if (key == gr::TaskKey(t)) {
          c.tasks.push_back(t);
          found = true;
        }
      if (!found) throw UsageError("--tasks: unknown task '" + key + "' (ss, sm, ms, mm, r2t, rg)");
    }
  }
  md::EndpointEvalOutput out;
  EndpointEval e;
  e.unit = "questions";
  e.evaluate = [&](cb::harness::ResponseCache* cache, const std::function<void(int, int)>& progress) {
    out = md::EvaluateEndpoint(c, cache, progress);
    return EndpointTally{out.items, out.items_failed, out.requests_sent, out.cache_hits, out.errors};
  };
  e.params = [&] {
    nlohmann::json tasks = nlohmann::json::array();
    for (gr::Task t : c.tasks.empty() ? gr::AllTasks() : c.tasks) tasks.push_back(gr::TaskKey(t));
    return nlohmann::json{{"endpoint", o.endpoint.endpoint},
                          {"model", o.endpoint.model},
                          {"max_tokens", o.max_tokens},
                          {"temperature", 0},
                          {"request_seed", o.run.seed},
                          {"generator", gr::kRegionsName},
                          {"generator_version", gr::kRegionsVersion},
                          {"generator_params", gr::CanonicalParams(c.gen)},
                          {"tasks", tasks}};
  };
  e.score = [&](const nlohmann::json& params, const std::string& input_hash) {
    return Scores(out.strict, out.paper, params, input_hash);
  };
  return RunEndpointEval(o.run, cmdline, o.endpoint.endpoint, e);
}

int RunEvalMedrega(const EvalMedregaOptions& o, const CommandLine& cmdline) {
  if (o.predictions.empty() == o.endpoint.endpoint.empty())
    throw UsageError("give exactly one of --predictions FILE or --endpoint URL");
  return o.predictions.empty() ? RunOnEndpoint(o, cmdline) : RunFromPredictions(o, cmdline);
}

}  // namespace

void AddEvalMedregaCommand(CLI::App& app, const CommandLine& cmdline, int* exit_code) {
  CLI::App* eval = CommandGroup(app, "eval", "Evaluate methods on statistics from real models");
  auto o = std::make_shared<EvalMedregaOptions>();
  CLI::App* c = eval->add_subcommand(
      "medrega", "MedRegA region-centric tasks (CPU scorers): score a prediction file, or query a vision endpoint");
  AddEvalInputOptions(c,
                      &o->predictions,
                      "JSONL: {task, answer (string or null), gt, hw} or {task, pred_answer, gt_answer}; "
                      "or an authors' answer file (JSON array) with --task",
                      &o->endpoint);
  c->add_option("--task", o->task, "Task of lines without one: ss, sm, ms, mm, r2t, rg, rg_zh");
  c->add_option("--tasks", o->tasks, "Endpoint: tasks (comma-separated: ss,sm,ms,mm,r2t,rg) or all")
      ->capture_default_str();
  c->add_option("--count", o->count, "Endpoint: synthetic scans")->capture_default_str();
  c->add_option("--size", o->size, "Endpoint: scan width = height, pixels")->capture_default_str();
  c->add_option("--max-tokens", o->max_tokens, "max_tokens per answer")->capture_default_str();
  AddEvalRunOptions(c, &o->run);
  c->callback([o, cmdline, exit_code] { *exit_code = RunEvalMedrega(*o, cmdline); });
}

CB_REGISTER_COMMAND(eval_medrega, AddEvalMedregaCommand);

}  // namespace cb::cli
