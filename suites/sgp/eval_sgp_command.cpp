// File: suites/sgp/eval_sgp_command.cpp
// `claimbench eval sgp`: scores SGP-Bench answers and records them.
//   --predictions FILE.jsonl   rows with Answer, Subject, response (or
//                              responses: the re-query attempts in order) and
//                              optionally split, index: read and validated
//                              whole before the ledger is opened
//   --endpoint URL --model M   generate programs, query an OpenAI-compatible
//                              endpoint with simple-evals' prompt, score, record;
//                              responses are cached in the ledger's http_cache,
//                              so a rerun only asks what is missing
// Both extraction modes are recorded (strict and paper-compatible), each row
// with its mode; the table shows accuracy overall, per subject and, with
// invariance splits, the translation and SE(2) consistency.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "generators/sgp.h"
#include "harness/cli/commands.h"
#include "ledger/cli/common.h"
#include "ledger/cli/eval_flow.h"
#include "reference/sgp/sgp.h"
#include "suites/sgp/sgp_eval.h"

namespace cb::cli {
namespace {

namespace gs = cb::gen::sgp;
namespace rs = cb::ref::sgp;

struct EvalSgpOptions {
  std::string predictions;
  EndpointOptions endpoint;
  std::string system = "openai";
  int count = 50, variants = 0, cad = 0, max_tokens = 2048;
  EvalRunOptions run{.seed = 20250101};
};

void PrintScores(const cb::sgp::ModeScores& strict, const cb::sgp::ModeScores& paper) {
  std::printf("%-12s %7s %24s\n", "subject", "rows", "accuracy strict/paper, %");
  for (const auto& [subject, t] : strict.scores.subjects)
    std::printf("%-12s %7d %11.1f / %-7.1f\n", subject.c_str(), t.n, t.Accuracy(),
                paper.scores.subjects.at(subject).Accuracy());
  std::printf("%-12s %7d %11.1f / %-7.1f  (chance %.0f%%)\n", "overall", strict.scores.overall.n,
              strict.scores.overall.Accuracy(), paper.scores.overall.Accuracy(), rs::kChance);
  if (strict.scores.overall.unanswered > 0)
    std::printf("no extractable answer (strict): %d rows\n", strict.scores.overall.unanswered);
  if (strict.consistency_t)
    std::printf("consistency, translation: %.3f / %.3f over %d questions\n", strict.consistency_t->value,
                paper.consistency_t ? paper.consistency_t->value : 0.0, strict.consistency_t->questions);
  if (strict.consistency_r)
    std::printf("consistency, SE(2):       %.3f / %.3f over %d questions\n", strict.consistency_r->value,
                paper.consistency_r ? paper.consistency_r->value : 0.0, strict.consistency_r->questions);
}

nlohmann::json ScoresJson(const cb::sgp::ModeScores& s) {
  nlohmann::json j = {{"overall", s.scores.overall.Accuracy()},
                      {"rows", s.scores.overall.n},
                      {"unanswered", s.scores.overall.unanswered},
                      {"subjects", nlohmann::json::object()}};
  for (const auto& [subject, t] : s.scores.subjects) j["subjects"][subject] = {{"rows", t.n}, {"accuracy", t.Accuracy()}};
  if (s.consistency_t) j["consistency_translation"] = s.consistency_t->value;
  if (s.consistency_r) j["consistency_se2"] = s.consistency_r->value;
  return j;
}

EvalScores Scores(const cb::sgp::ModeScores& strict, const cb::sgp::ModeScores& paper, const nlohmann::json& params,
                  const std::string& input_hash) {
  EvalScores out{cb::sgp::ScoreRows(strict, rs::Mode::kStrict, params, input_hash), ScoresJson(strict),
                 ScoresJson(paper), [&strict, &paper] { PrintScores(strict, paper); }};
  const auto more = cb::sgp::ScoreRows(paper, rs::Mode::kPaperCompatible, params, input_hash);
  out.rows.insert(out.rows.end(), more.begin(), more.end());
  return out;
}

int RunFromPredictions(const EvalSgpOptions& o, const CommandLine& cmdline) {
  const std::string text = ReadPredictionsFile(o.predictions);
  std::vector<rs::Prediction> preds;
  try {
    preds = rs::ParsePredictions(text, o.predictions);
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  if (preds.empty()) throw UsageError(o.predictions + ": no predictions");
  const auto strict = cb::sgp::ScoreAll(preds, rs::Mode::kStrict);
  const auto paper = cb::sgp::ScoreAll(preds, rs::Mode::kPaperCompatible);
  return RecordPredictionRun(o.run, cmdline, o.predictions, text, preds.size(),
                             [&](const nlohmann::json& params, const std::string& input_hash) {
                               return Scores(strict, paper, params, input_hash);
                             });
}

int RunOnEndpoint(const EvalSgpOptions& o, const CommandLine& cmdline) {
  cb::sgp::EndpointEvalConfig c;
  c.client = EndpointClientOptions(o.endpoint);
  if (o.count < 1 || o.count > 100000) throw UsageError("--count must be in [1, 100000]");
  if (o.variants < 0 || o.variants > 5) throw UsageError("--variants must be in [0, 5]");
  if (o.cad < 0 || o.cad > 100000) throw UsageError("--cad must be in [0, 100000]");
  if (o.max_tokens < 1) throw UsageError("--max-tokens must be >= 1");
  c.model = o.endpoint.model;
  c.max_tokens = o.max_tokens;
  c.request_seed = o.run.seed;
  if (o.system == "openai") {
    c.system_prompt = rs::kSystemOpenAi;
  } else if (o.system == "open") {
    c.system_prompt = rs::kSystemOpen;
  } else if (o.system == "none") {
    c.system_prompt.clear();
  } else {
    throw UsageError("--system must be openai, open or none, not '" + o.system + "'");
  }
  c.gen = {.seed = o.run.seed, .count = o.count, .variants = o.variants};
  c.invariance = o.variants > 0;
  c.cad_count = o.cad;
  cb::sgp::EndpointEvalOutput out;
  EndpointEval e;
  e.unit = "rows";
  e.evaluate = [&](cb::harness::ResponseCache* cache, const std::function<void(int, int)>& progress) {
    out = cb::sgp::EvaluateEndpoint(c, cache, progress);
    return EndpointTally{out.rows, out.rows_failed, out.requests_sent, out.cache_hits, out.errors};
  };
  e.params = [&] {
    return nlohmann::json{{"endpoint", o.endpoint.endpoint},
                          {"model", o.endpoint.model},
                          {"max_tokens", o.max_tokens},
                          {"temperature", 0},
                          {"request_seed", o.run.seed},
                          {"system_prompt", o.system},
                          {"generator", gs::kSgpName},
                          {"generator_version", gs::kSgpVersion},
                          {"generator_params", gs::CanonicalParams(c.gen)},
                          {"cad_programs", o.cad}};
  };
  e.score = [&](const nlohmann::json& params, const std::string& input_hash) {
    return Scores(out.strict, out.paper, params, input_hash);
  };
  return RunEndpointEval(o.run, cmdline, o.endpoint.endpoint, e);
}

int RunEvalSgp(const EvalSgpOptions& o, const CommandLine& cmdline) {
  if (o.predictions.empty() == o.endpoint.endpoint.empty())
    throw UsageError("give exactly one of --predictions FILE or --endpoint URL");
  return o.predictions.empty() ? RunOnEndpoint(o, cmdline) : RunFromPredictions(o, cmdline);
}

}  // namespace

void AddEvalSgpCommand(CLI::App& app, const CommandLine& cmdline, int* exit_code) {
  CLI::App* eval = CommandGroup(app, "eval", "Evaluate methods on statistics from real models");
  auto o = std::make_shared<EvalSgpOptions>();
  CLI::App* c = eval->add_subcommand("sgp", "SGP-Bench: score a prediction file, or query a model endpoint");
  AddEvalInputOptions(c, &o->predictions, "JSONL rows with Answer, Subject, response or responses (the re-query attempts, in order); optional split, index",
                      &o->endpoint);
  c->add_option("--count", o->count, "Programs to generate")->capture_default_str();
  c->add_option("--variants", o->variants, "Invariance copies per program (0-5; >0 also measures consistency)")
      ->capture_default_str();
  c->add_option("--cad", o->cad, "Also ask the questions of this many CAD programs (split cad)")
      ->capture_default_str();
  c->add_option("--system", o->system, "System prompt: openai, open or none")->capture_default_str();
  c->add_option("--max-tokens", o->max_tokens, "max_tokens per answer")->capture_default_str();
  AddEvalRunOptions(c, &o->run);
  c->callback([o, cmdline, exit_code] { *exit_code = RunEvalSgp(*o, cmdline); });
}

CB_REGISTER_COMMAND(eval_sgp, AddEvalSgpCommand);

}  // namespace cb::cli
