// File: ledger/cli/eval_flow.h
// -----------------------------------------------------------------------------
// The flow every `claimbench eval <benchmark>` command shares, from its
// options to a sealed ledger run; a command supplies only what is its own
// (parsing predictions, the endpoint evaluation, the score table).
//
//   --predictions FILE   ReadPredictionsFile → score → RecordPredictionRun
//   --endpoint URL       EndpointClientOptions → build the config →
//                        RunEndpointEval(evaluate, params, score)
//
// Either way the run is begun only after every input has been checked, both
// scorer modes' rows are recorded in it, and it is sealed "complete", or
// "failed" when some rows got no answer or anything throws (RunGuard). An
// endpoint run also records which answers it scored (one "endpoint_answers"
// row, LedgerResponseCache::AnswersRow), so they are under its run_hash.
//
// SIGINT/SIGTERM (harness/interrupt.h; `claimbench` prints the one line and
// exits 3): before the run is begun nothing is recorded; during an endpoint
// evaluation the client stops sending and aborts what is in flight
// (ModelClient::CompleteAll), the answers received stay in the ledger's
// http_cache (a rerun asks only the rest), no score is recorded (it would be
// of a part of the items) and the run is sealed "interrupted"; once the rows
// are recorded, the run is sealed "interrupted" with them (RunGuard::Finish).
// Output: the command's table and "run N complete|failed, run_hash H", or
// with --json {run_id, run_hash, params, strict, paper_compatible}.
//
// Header-only: the eval commands live in their suites' libraries; nothing
// here needs a translation unit of its own.
#ifndef CB_LEDGER_CLI_EVAL_FLOW_H_
#define CB_LEDGER_CLI_EVAL_FLOW_H_

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/cli/commands.h"
#include "harness/hash.h"
#include "harness/interrupt.h"
#include "harness/model_client.h"
#include "harness/progress.h"
#include "harness/result.h"
#include "ledger/cli/common.h"
#include "ledger/ledger.h"
#include "ledger/run_guard.h"

namespace cb::cli {

// What one eval run scored: the ledger rows of both modes (strict first,
// then paper-compatible), their JSON for --json, and the human table.
struct EvalScores {
  std::vector<cb::harness::Result> rows;
  nlohmann::json strict, paper;
  std::function<void()> print_table;
};

// The options every eval command takes the same way.
struct EvalRunOptions {
  std::string ledger;  // --ledger
  uint64_t seed = 0;   // --seed, recorded with the run
  bool json = false;   // --json
};

// The whole of --predictions FILE; UsageError when it cannot be read.
inline std::string ReadPredictionsFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("--predictions " + path + ": cannot read");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Records `scores` in the run, seals it and prints the outcome.
inline int RecordEvalRun(cb::ledger::Ledger& ledger, cb::ledger::RunGuard& run, const nlohmann::json& params,
                         const EvalScores& scores, bool json, bool failed) {
  const int64_t run_id = run.run_id();
  ledger.AddResults(run_id, scores.rows);
  run.Finish(failed ? cb::ledger::RunStatus::kFailed : cb::ledger::RunStatus::kComplete);
  const auto summary = ledger.GetRun(run_id);
  if (json) {
    std::cout << nlohmann::json({{"run_id", run_id},
                                 {"run_hash", summary.run_hash},
                                 {"params", params},
                                 {"strict", scores.strict},
                                 {"paper_compatible", scores.paper}})
                     .dump(2)
              << "\n";
  } else {
    scores.print_table();
    std::printf("\nrun %lld %s, run_hash %s\n", static_cast<long long>(run_id), failed ? "failed" : "complete",
                summary.run_hash.c_str());
  }
  return kExitOk;
}

// --predictions: `text` (the file, already parsed and scored by the caller,
// so bad input never opens the ledger) is the run's input; its hash goes
// into every row through score(params, input_hash).
inline int RecordPredictionRun(const EvalRunOptions& o, const CommandLine& cmdline, const std::string& path,
                               const std::string& text, size_t rows,
                               const std::function<EvalScores(const nlohmann::json& params,
                                                              const std::string& input_hash)>& score) {
  const nlohmann::json params = {{"source", std::filesystem::path(path).filename().string()}, {"rows", rows}};
  const EvalScores scores = score(params, cb::harness::Xxh3_128(text).Hex());
  cb::harness::ThrowIfInterrupted("before the run started");
  auto ledger = cb::ledger::Ledger::Open(ResolveLedgerPath(o.ledger));
  cb::ledger::RunGuard run(ledger, ledger.BeginRun(CollectRunMeta(JoinArgs(cmdline.argc, cmdline.argv), "eval", o.seed)));
  return RecordEvalRun(ledger, run, params, scores, o.json, /*failed=*/false);
}

// The endpoint options every eval command takes the same way.
struct EndpointOptions {
  std::string endpoint, model;
  int concurrency = 4, retries = 5;
  double timeout_s = 120;
};

// --predictions (help: what the file holds), --endpoint, --model,
// --concurrency, --retries and --timeout, the same on every eval command.
inline void AddEvalInputOptions(CLI::App* c, std::string* predictions, const std::string& predictions_help,
                                EndpointOptions* e) {
  c->add_option("--predictions", *predictions, predictions_help);
  c->add_option("--endpoint", e->endpoint, "OpenAI-compatible base URL (API key from $OPENAI_API_KEY)");
  c->add_option("--model", e->model, "Model name sent to the endpoint");
  c->add_option("--concurrency", e->concurrency, "Requests in flight")->capture_default_str();
  c->add_option("--retries", e->retries, "Retries per request (429, 5xx, timeouts)")->capture_default_str();
  c->add_option("--timeout", e->timeout_s, "Seconds per request attempt")->capture_default_str();
}

// --seed, --ledger and --json.
inline void AddEvalRunOptions(CLI::App* c, EvalRunOptions* r) {
  c->add_option("--seed", r->seed, "Generator and request seed")->capture_default_str();
  AddLedgerOption(c, &r->ledger);
  c->add_flag("--json", r->json, "Print the scores as JSON on stdout");
}

// Checks them (UsageError) and returns the client's options; the URL is
// checked by constructing a client.
inline cb::harness::ClientOptions EndpointClientOptions(const EndpointOptions& e) {
  if (e.model.empty()) throw UsageError("--model is required with --endpoint");
  if (e.concurrency < 1 || e.concurrency > 256) throw UsageError("--concurrency must be in [1, 256]");
  cb::harness::ClientOptions client;
  client.endpoint = e.endpoint;
  client.concurrency = e.concurrency;
  client.max_retries = e.retries;
  client.timeout_s = e.timeout_s;
  try {
    cb::harness::ModelClient probe(client);  // checks the URL
  } catch (const std::invalid_argument& ex) {
    throw UsageError(ex.what());
  }
  return client;
}

// How an endpoint evaluation went, in the command's own unit (rows, items).
struct EndpointTally {
  int units = 0, units_failed = 0;
  int64_t requests_sent = 0, cache_hits = 0;
  std::vector<std::string> errors;  // the first few
  // Every request the units needed (sent or cached) and those left without a
  // usable answer, so a failed unit says how much of it is missing; 0 when
  // the command does not count them.
  int64_t requests = 0, requests_unanswered = 0;
};

// " (R of N requests unanswered)" when the tally counts requests, else "".
inline std::string UnansweredNote(const EndpointTally& t) {
  if (t.requests == 0) return "";
  return " (" + std::to_string(t.requests_unanswered) + " of " + std::to_string(t.requests) +
         " requests unanswered)";
}

struct EndpointEval {
  std::string unit;  // "rows", "items": in the messages
  // Runs the evaluation against `cache` (the ledger's http_cache, so a rerun
  // only asks what is missing), reporting progress(done, total requests).
  std::function<EndpointTally(cb::harness::ResponseCache* cache, const std::function<void(int, int)>& progress)>
      evaluate;
  // After evaluate: the run's parameters, and the scores (input_hash =
  // the parameters' hash).
  std::function<nlohmann::json()> params;
  std::function<EvalScores(const nlohmann::json& params, const std::string& input_hash)> score;
};

// --endpoint: begins the run, evaluates with a progress bar, records. Throws
// (run sealed "failed") when no unit got an answer; records and then throws
// when some did not (answered requests are cached: a rerun resumes). After
// SIGINT/SIGTERM throws harness::Interrupted, the run sealed "interrupted".
inline int RunEndpointEval(const EvalRunOptions& o, const CommandLine& cmdline, const std::string& endpoint,
                           const EndpointEval& e) {
  cb::harness::ThrowIfInterrupted("before the run started");
  auto ledger = cb::ledger::Ledger::Open(ResolveLedgerPath(o.ledger));
  LedgerResponseCache cache(ledger);
  cb::ledger::RunGuard run(ledger, ledger.BeginRun(CollectRunMeta(JoinArgs(cmdline.argc, cmdline.argv), "eval", o.seed)));
  cb::harness::ProgressBar bar(1);
  int done = 0, total = 0;
  EndpointTally tally;
  try {
    tally = e.evaluate(&cache, [&](int d, int n) {
      done = d, total = n;
      bar.Update(0, static_cast<double>(d) / n, std::to_string(d) + "/" + std::to_string(n) + " requests");
    });
  } catch (cb::harness::Interrupted& interrupted) {
    // The run guard seals the run "interrupted" on the way out; no score.
    bar.Clear();
    if (total > 0) interrupted.where = "after " + std::to_string(done) + " of " + std::to_string(total) + " requests";
    cb::harness::NoteInterruptKept(std::to_string(cache.stored()) +
                                   " answers received in this run kept in the ledger's http_cache (a rerun asks "
                                   "only the rest)");
    throw;
  }
  bar.Clear();
  const nlohmann::json params = e.params();
  std::fprintf(stderr, "%d %s, %lld requests sent, %lld answered from the cache\n", tally.units, e.unit.c_str(),
               static_cast<long long>(tally.requests_sent), static_cast<long long>(tally.cache_hits));
  if (tally.units_failed == tally.units) {
    throw std::runtime_error("endpoint " + endpoint + " gave no usable answer for any of the " +
                             std::to_string(tally.units) + " " + e.unit + UnansweredNote(tally) + ": " +
                             (tally.errors.empty() ? std::string("?") : tally.errors[0]));
  }
  const bool failed = tally.units_failed > 0;
  const std::string input_hash = cb::harness::Xxh3_128(params.dump()).Hex();
  EvalScores scores = e.score(params, input_hash);
  scores.rows.push_back(cache.AnswersRow(scores.rows.empty() ? "eval" : scores.rows.front().suite, input_hash));
  const int rc = RecordEvalRun(ledger, run, params, scores, o.json, failed);
  if (failed) {
    for (const auto& err : tally.errors) std::fprintf(stderr, "claimbench: %s\n", err.c_str());
    throw std::runtime_error(std::to_string(tally.units_failed) + " of " + std::to_string(tally.units) + " " +
                             e.unit + " got no answer" + UnansweredNote(tally) +
                             "; answered requests are cached, rerun to resume");
  }
  return rc;
}

}  // namespace cb::cli

#endif  // CB_LEDGER_CLI_EVAL_FLOW_H_
