// File: suites/sgp/eval_sgp_command.cpp
// `claimbench eval sgp`: scores SGP-Bench answers and records them.
//   --predictions FILE.jsonl   rows with Answer, Subject, response (and
//                              optionally split, index): read and validated
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
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include "generators/sgp.h"
#include "harness/cli/commands.h"
#include "ledger/cli/common.h"
#include "harness/hash.h"
#include "harness/progress.h"
#include "reference/sgp/sgp.h"
#include "suites/sgp/sgp_eval.h"

namespace cb::cli {
namespace {

namespace gs = cb::gen::sgp;
namespace rs = cb::ref::sgp;

struct EvalSgpOptions {
  std::string predictions;
  std::string endpoint, model, system = "openai";
  int count = 50, variants = 0, cad = 0, concurrency = 4, max_tokens = 2048, retries = 5;
  double timeout_s = 120;
  uint64_t seed = 20250101;
  std::string ledger;
  bool json = false;
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

int Record(const EvalSgpOptions& o, const cb::sgp::ModeScores& strict, const cb::sgp::ModeScores& paper,
           const nlohmann::json& params, const std::string& input_hash, cb::ledger::Ledger& ledger, int64_t run_id,
           bool failed) {
  auto rows = cb::sgp::ScoreRows(strict, rs::Mode::kStrict, params, input_hash);
  const auto more = cb::sgp::ScoreRows(paper, rs::Mode::kPaperCompatible, params, input_hash);
  rows.insert(rows.end(), more.begin(), more.end());
  ledger.AddResults(run_id, rows);
  ledger.FinishRun(run_id, failed ? cb::ledger::RunStatus::kFailed : cb::ledger::RunStatus::kComplete);
  const auto summary = ledger.GetRun(run_id);
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

int RunFromPredictions(const EvalSgpOptions& o, const CommandLine& cmdline) {
  std::ifstream in(o.predictions, std::ios::binary);
  if (!in) throw UsageError("--predictions " + o.predictions + ": cannot read");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  std::vector<rs::Prediction> preds;
  try {
    preds = rs::ParsePredictions(text, o.predictions);
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  if (preds.empty()) throw UsageError(o.predictions + ": no predictions");
  const auto strict = cb::sgp::ScoreAll(preds, rs::Mode::kStrict);
  const auto paper = cb::sgp::ScoreAll(preds, rs::Mode::kPaperCompatible);
  const nlohmann::json params = {{"source", std::filesystem::path(o.predictions).filename().string()},
                                 {"rows", preds.size()}};
  auto ledger = cb::ledger::Ledger::Open(ResolveLedgerPath(o.ledger));
  const int64_t run_id = ledger.BeginRun(CollectRunMeta(JoinArgs(cmdline.argc, cmdline.argv), "eval", o.seed));
  return Record(o, strict, paper, params, cb::harness::Xxh3_128(text).Hex(), ledger, run_id, false);
}

int RunOnEndpoint(const EvalSgpOptions& o, const CommandLine& cmdline) {
  if (o.model.empty()) throw UsageError("--model is required with --endpoint");
  if (o.count < 1 || o.count > 100000) throw UsageError("--count must be in [1, 100000]");
  if (o.variants < 0 || o.variants > 5) throw UsageError("--variants must be in [0, 5]");
  if (o.cad < 0 || o.cad > 100000) throw UsageError("--cad must be in [0, 100000]");
  if (o.concurrency < 1 || o.concurrency > 256) throw UsageError("--concurrency must be in [1, 256]");
  if (o.max_tokens < 1) throw UsageError("--max-tokens must be >= 1");
  cb::sgp::EndpointEvalConfig c;
  c.client.endpoint = o.endpoint;
  c.client.concurrency = o.concurrency;
  c.client.max_retries = o.retries;
  c.client.timeout_s = o.timeout_s;
  c.model = o.model;
  c.max_tokens = o.max_tokens;
  c.request_seed = o.seed;
  if (o.system == "openai") {
    c.system_prompt = rs::kSystemOpenAi;
  } else if (o.system == "open") {
    c.system_prompt = rs::kSystemOpen;
  } else if (o.system == "none") {
    c.system_prompt.clear();
  } else {
    throw UsageError("--system must be openai, open or none, not '" + o.system + "'");
  }
  c.gen = {.seed = o.seed, .count = o.count, .variants = o.variants};
  c.invariance = o.variants > 0;
  c.cad_count = o.cad;
  try {
    cb::harness::ModelClient probe(c.client);  // checks the URL
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  auto ledger = cb::ledger::Ledger::Open(ResolveLedgerPath(o.ledger));
  LedgerResponseCache cache(ledger);
  const int64_t run_id = ledger.BeginRun(CollectRunMeta(JoinArgs(cmdline.argc, cmdline.argv), "eval", o.seed));
  cb::harness::ProgressBar bar(1);
  cb::sgp::EndpointEvalOutput out;
  try {
    out = cb::sgp::EvaluateEndpoint(c, &cache, [&](int d, int n) {
      bar.Update(0, static_cast<double>(d) / n, std::to_string(d) + "/" + std::to_string(n) + " requests");
    });
  } catch (...) {
    ledger.FinishRun(run_id, cb::ledger::RunStatus::kFailed);
    throw;
  }
  bar.Clear();
  const nlohmann::json params = {{"endpoint", o.endpoint},
                                 {"model", o.model},
                                 {"max_tokens", o.max_tokens},
                                 {"temperature", 0},
                                 {"request_seed", o.seed},
                                 {"system_prompt", o.system},
                                 {"generator", gs::kSgpName},
                                 {"generator_version", gs::kSgpVersion},
                                 {"generator_params", gs::CanonicalParams(c.gen)},
                                 {"cad_programs", o.cad}};
  std::fprintf(stderr, "%d rows, %lld requests sent, %lld answered from the cache\n", out.rows,
               static_cast<long long>(out.requests_sent), static_cast<long long>(out.cache_hits));
  if (out.rows_failed == out.rows) {
    ledger.FinishRun(run_id, cb::ledger::RunStatus::kFailed);
    throw std::runtime_error("endpoint " + o.endpoint + " gave no usable answer (" +
                             (out.errors.empty() ? std::string("?") : out.errors[0]) + ")");
  }
  const bool failed = out.rows_failed > 0;
  const int rc =
      Record(o, out.strict, out.paper, params, cb::harness::Xxh3_128(params.dump()).Hex(), ledger, run_id, failed);
  if (failed) {
    for (const auto& e : out.errors) std::fprintf(stderr, "claimbench: %s\n", e.c_str());
    throw std::runtime_error(std::to_string(out.rows_failed) + " of " + std::to_string(out.rows) +
                             " rows got no answer; answered requests are cached, rerun to resume");
  }
  return rc;
}

int RunEvalSgp(const EvalSgpOptions& o, const CommandLine& cmdline) {
  if (o.predictions.empty() == o.endpoint.empty())
    throw UsageError("give exactly one of --predictions FILE or --endpoint URL");
  return o.predictions.empty() ? RunOnEndpoint(o, cmdline) : RunFromPredictions(o, cmdline);
}

}  // namespace

void AddEvalSgpCommand(CLI::App& app, const CommandLine& cmdline, int* exit_code) {
  CLI::App* eval = CommandGroup(app, "eval", "Evaluate methods on statistics from real models");
  auto o = std::make_shared<EvalSgpOptions>();
  CLI::App* c = eval->add_subcommand("sgp", "SGP-Bench: score a prediction file, or query a model endpoint");
  c->add_option("--predictions", o->predictions, "JSONL rows with Answer, Subject, response (optional split, index)");
  c->add_option("--endpoint", o->endpoint, "OpenAI-compatible base URL (API key from $OPENAI_API_KEY)");
  c->add_option("--model", o->model, "Model name sent to the endpoint");
  c->add_option("--count", o->count, "Programs to generate")->capture_default_str();
  c->add_option("--variants", o->variants, "Invariance copies per program (0-5; >0 also measures consistency)")
      ->capture_default_str();
  c->add_option("--cad", o->cad, "Also ask the questions of this many CAD programs (split cad)")
      ->capture_default_str();
  c->add_option("--system", o->system, "System prompt: openai, open or none")->capture_default_str();
  c->add_option("--concurrency", o->concurrency, "Requests in flight")->capture_default_str();
  c->add_option("--max-tokens", o->max_tokens, "max_tokens per answer")->capture_default_str();
  c->add_option("--retries", o->retries, "Retries per request (429, 5xx, timeouts)")->capture_default_str();
  c->add_option("--timeout", o->timeout_s, "Seconds per request attempt")->capture_default_str();
  c->add_option("--seed", o->seed, "Generator and request seed")->capture_default_str();
  AddLedgerOption(c, &o->ledger);
  c->add_flag("--json", o->json, "Print the scores as JSON on stdout");
  c->callback([o, cmdline, exit_code] { *exit_code = RunEvalSgp(*o, cmdline); });
}

CB_REGISTER_COMMAND(eval_sgp, AddEvalSgpCommand);

}  // namespace cb::cli
