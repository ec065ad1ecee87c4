// File: suites/eagle/eval_eagle_command.cpp
// `claimbench eval eagle`: scores Eagle-benchmark predictions and records them.
//   --predictions FILE.jsonl   one question a line (reference/eagle/bench.h:
//                              lmms-eval's doc fields plus "pred"), read and
//                              validated whole before the ledger is opened
//   --endpoint URL --model M   generate documents and charts (generators/docvqa),
//                              ask an OpenAI-compatible endpoint with the image
//                              as a PNG data URL, score, record; responses are
//                              cached in the ledger's http_cache, so a rerun
//                              only asks what is missing
// Both scorer modes are recorded (strict and paper-compatible), each row with
// its mode and task.
#include <cstdio>
#include <memory>
#include <string>

#include "generators/docvqa.h"
#include "harness/cli/commands.h"
#include "ledger/cli/common.h"
#include "ledger/cli/eval_flow.h"
#include "reference/eagle/bench.h"
#include "suites/eagle/eagle_eval.h"

namespace cb::cli {
namespace {

namespace gd = cb::gen::docvqa;
namespace re = cb::ref::eagle;

struct EvalEagleOptions {
  std::string predictions;
  EndpointOptions endpoint;
  int count = 10, max_tokens = 32;
  EvalRunOptions run{.seed = 20250101};
};

void PrintScores(const re::Scores& strict, const re::Scores& paper) {
  std::printf("%-9s %6s %-18s %12s %12s\n", "task", "n", "metric", "strict", "paper");
  for (const auto& task : re::Tasks()) {
    const auto s = strict.tasks.find(task), p = paper.tasks.find(task);
    if (s == strict.tasks.end()) continue;
    std::printf("%-9s %6d %-18s %12.2f %12.2f\n", task.c_str(), s->second.n, s->second.metric.c_str(), s->second.value,
                p->second.value);
    for (const auto& [part, v] : s->second.parts)
      std::printf("%-9s %6s %-18s %12.2f %12.2f\n", "", "", ("  " + part).substr(0, 18).c_str(), v,
                  p->second.parts.count(part) ? p->second.parts.at(part) : 0.0);
  }
}

nlohmann::json ScoresJson(const re::Scores& s) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [task, t] : s.tasks)
    j[task] = {{"n", t.n}, {"metric", t.metric}, {"unit", t.unit}, {"value", t.value}, {"parts", t.parts}};
  return j;
}

EvalScores Scores(const re::Scores& strict, const re::Scores& paper, const nlohmann::json& params,
                  const std::string& input_hash) {
  EvalScores out{cb::eagle::ScoreRows(strict, re::Mode::kStrict, params, input_hash), ScoresJson(strict),
                 ScoresJson(paper), [&strict, &paper] { PrintScores(strict, paper); }};
  const auto more = cb::eagle::ScoreRows(paper, re::Mode::kPaperCompatible, params, input_hash);
  out.rows.insert(out.rows.end(), more.begin(), more.end());
  return out;
}

int RunFromPredictions(const EvalEagleOptions& o, const CommandLine& cmdline) {
  const std::string text = ReadPredictionsFile(o.predictions);
  std::vector<re::Prediction> preds;
  re::Scores strict, paper;
  try {
    preds = re::ParsePredictions(text, o.predictions);
    if (preds.empty()) throw std::runtime_error(o.predictions + ": no predictions");
    strict = re::Score(preds, re::Mode::kStrict, o.predictions);
    paper = re::Score(preds, re::Mode::kPaperCompatible, o.predictions);
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  return RecordPredictionRun(o.run, cmdline, o.predictions, text, preds.size(),
                             [&](const nlohmann::json& params, const std::string& input_hash) {
                               return Scores(strict, paper, params, input_hash);
                             });
}

int RunOnEndpoint(const EvalEagleOptions& o, const CommandLine& cmdline) {
  cb::eagle::EndpointEvalConfig c;
  c.client = EndpointClientOptions(o.endpoint);
  if (o.count < 1 || o.count > 10000) throw UsageError("--count must be in [1, 10000]");
  if (o.max_tokens < 1 || o.max_tokens > 4096) throw UsageError("--max-tokens must be in [1, 4096]");
  c.model = o.endpoint.model;
  c.max_tokens = o.max_tokens;
  c.request_seed = o.run.seed;
  c.gen = {.seed = o.run.seed, .count = o.count};
  gd::Generator probe(c.gen);  // the font opens (one line naming it otherwise) before the ledger does
  cb::eagle::EndpointEvalOutput out;
  EndpointEval e;
  e.unit = "questions";
  e.evaluate = [&](cb::harness::ResponseCache* cache, const std::function<void(int, int)>& progress) {
    out = cb::eagle::EvaluateEndpoint(c, cache, progress);
    return EndpointTally{out.questions, out.questions_failed, out.requests_sent, out.cache_hits, out.errors};
  };
  e.params = [&] {
    return nlohmann::json{{"endpoint", o.endpoint.endpoint},
                          {"model", o.endpoint.model},
                          {"max_tokens", o.max_tokens},
                          {"temperature", 0},
                          {"request_seed", o.run.seed},
                          {"generator", gd::kDocVqaName},
                          {"generator_version", gd::kDocVqaVersion},
                          {"generator_params", gd::CanonicalParams(c.gen)},
                          {"items_per_kind", o.count}};
  };
  e.score = [&](const nlohmann::json& params, const std::string& input_hash) {
    return Scores(out.strict, out.paper, params, input_hash);
  };
  return RunEndpointEval(o.run, cmdline, o.endpoint.endpoint, e);
}

int RunEvalEagle(const EvalEagleOptions& o, const CommandLine& cmdline) {
  if (o.predictions.empty() == o.endpoint.endpoint.empty())
    throw UsageError("give exactly one of --predictions FILE or --endpoint URL");
  return o.predictions.empty() ? RunOnEndpoint(o, cmdline) : RunFromPredictions(o, cmdline);
}

}  // namespace

void AddEvalEagleCommand(CLI::App& app, const CommandLine& cmdline, int* exit_code) {
  CLI::App* eval = CommandGroup(app, "eval", "Evaluate methods on statistics from real models");
  auto o = std::make_shared<EvalEagleOptions>();
  CLI::App* c = eval->add_subcommand(
      "eagle", "Eagle (TextVQA, VQAv2, DocVQA, ChartQA, OCRBench, MME scorers): score a prediction file, or query a "
               "vision endpoint on generated documents and charts");
  AddEvalInputOptions(c, &o->predictions,
                      "JSONL: question_id, task (textvqa|vqav2|docvqa|chartqa|ocrbench|mme|mcq), pred, and the "
                      "task's lmms-eval doc fields (answers / answer, type, dataset, question_type, category)",
                      &o->endpoint);
  c->add_option("--count", o->count, "Generated items per kind (document, bar chart, line chart)")
      ->capture_default_str();
  c->add_option("--max-tokens", o->max_tokens, "max_tokens per answer")->capture_default_str();
  AddEvalRunOptions(c, &o->run);
  c->callback([o, cmdline, exit_code] { *exit_code = RunEvalEagle(*o, cmdline); });
}

CB_REGISTER_COMMAND(eval_eagle, AddEvalEagleCommand);

}  // namespace cb::cli
