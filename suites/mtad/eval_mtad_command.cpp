// File: suites/mtad/eval_mtad_command.cpp
// `claimbench eval mtad --target DIR --draft DIR --prompts FILE`: ancestral
// sampling, speculative decoding and MTAD on a user's pair of Llama-family
// checkpoints (Hugging Face layout, one claimbench BPE tokenizer, one
// vocabulary), through the cached transformer (suites/mtad/lm_model.h) on
// --backend cpu|cuda (decoding; the perplexity is scored on the CPU):
// per decoder the perplexity of its output under the target, tokens per
// target call, wall seconds and tokens/s, with the two models' measured
// decode-time ratio; recorded in one ledger run.
//
// FILE: one prompt per line, plain text (encoded with the target's
// tokenizer) or a JSON object {"text": "..."} or {"ids": [..]}; blank lines
// are skipped. Everything is read and checked before the ledger is opened, so
// bad input records nothing. Wall times are one run each (not paired, no CI):
// the paired measurement is the claim mtad.M3b-lm.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/backend.h"
#include "harness/cli/commands.h"
#include "harness/hash.h"
#include "harness/result.h"
#include "harness/stats.h"
#include "ledger/cli/common.h"
#include "ledger/run_guard.h"
#include "reference/mtad.h"
#include "suites/mtad/lm_pair.h"

namespace cb::cli {
namespace {

namespace mt = cb::mtad;

struct EvalMtadOptions {
  std::string target, draft, prompts, ledger;
  std::string backend = "cpu";
  int tokens = 32;
  int gamma = 4;
  int beams = 4;
  double tau = 0.5;
  int top_k = 10;
  double top_p = 0.9;
  uint64_t seed = 20250101;
  bool json = false;
};

std::vector<std::vector<int>> ReadPrompts(const std::string& path, const cb::ref::lm::BpeTokenizer& tok) {
  std::ifstream in(path);
  if (!in) throw UsageError("eval mtad --prompts " + path + ": cannot read");
  std::vector<std::vector<int>> out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = path + ":" + std::to_string(n) + ": ";
    std::vector<int> ids;
    if (line[line.find_first_not_of(" \t")] == '{') {
      nlohmann::json j;
      try {
        j = nlohmann::json::parse(line);
      } catch (const std::exception&) {
        throw UsageError(where + "not valid JSON");
      }
      if (j.contains("ids")) {
        if (!j["ids"].is_array()) throw UsageError(where + "\"ids\" is not an array");
        for (const auto& v : j["ids"]) {
          if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() >= tok.vocab_size())
            throw UsageError(where + "an id is not an integer in [0, " + std::to_string(tok.vocab_size()) + ")");
          ids.push_back(v.get<int>());
        }
      } else if (j.contains("text") && j["text"].is_string()) {
        ids = tok.Encode(j["text"].get<std::string>());
      } else {
        throw UsageError(where + "expected {\"text\": string} or {\"ids\": [...]}");
      }
    } else {
      ids = tok.Encode(line);
    }
    if (ids.empty()) throw UsageError(where + "the prompt has no tokens");
    out.push_back(std::move(ids));
  }
  if (out.empty()) throw UsageError("eval mtad --prompts " + path + ": no prompts");
  return out;
}

int RunEvalMtad(const EvalMtadOptions& o, const CommandLine& cmdline) {
  if (o.target.empty() || o.draft.empty() || o.prompts.empty())
    throw UsageError("eval mtad needs --target DIR, --draft DIR and --prompts FILE");
  if (o.tokens < 1) throw UsageError("eval mtad --tokens must be >= 1");
  const std::optional<cb::harness::Backend> backend = cb::harness::ParseBackend(o.backend);
  if (!backend) throw UsageError("eval mtad --backend " + o.backend + ": expected cpu or cuda");
  if (const auto st = cb::harness::Availability(*backend); !st.ok)
    throw UsageError("eval mtad --backend " + o.backend + ": " + st.reason);
  const cb::ref::mtad::MtadParams params{.gamma = o.gamma, .beams = o.beams, .tau = o.tau,
                                         .filter = {o.top_k, o.top_p}};
  std::unique_ptr<mt::LmPair> pair;
  std::vector<std::vector<int>> prompts;
  try {
    pair = mt::LoadPair(o.target, o.draft, 256, *backend);
    cb::ref::mtad::CheckMtadParams(params, pair->target->vocab_size());
  } catch (const std::exception& e) {
    throw UsageError(std::string("eval mtad: ") + e.what());
  }
  prompts = ReadPrompts(o.prompts, *pair->tokenizer);
  const int max_pos = pair->target_tf->config().max_position_embeddings;
  for (size_t i = 0; i < prompts.size(); ++i) {
    if (static_cast<int>(prompts[i].size()) + o.tokens + o.gamma + 1 > max_pos)
      throw UsageError("eval mtad: prompt " + std::to_string(i + 1) + " + --tokens exceeds the target's " +
                       std::to_string(max_pos) + " positions");
  }
  const int n = static_cast<int>(prompts.size());

  // The measured cost ratio: one decode step of each model after the first
  // prompt, on the decoding backend (the fork is outside the timed region).
  auto step_seconds = [&](const cb::lm_suite::IncrementalLm& m) {
    std::vector<float> logits;
    const auto cache = m.Prefill(prompts[0], logits);
    const int last[1] = {prompts[0].back()};
    std::vector<double> t;
    for (int r = 0; r < 9; ++r) {
      const auto c = cache->Truncated(cache->length());
      const auto a = std::chrono::steady_clock::now();
      m.Extend(last, *c);
      t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count());
    }
    return cb::harness::Median(t);
  };
  const double cost_ratio = step_seconds(*pair->target_lm) / step_seconds(*pair->draft_lm);

  struct Row {
    mt::Decoder d;
    mt::DecodeRuns r;
    double seconds = 0;
  };
  std::vector<Row> rows;
  for (mt::Decoder d : {mt::Decoder::kAncestral, mt::Decoder::kSpeculative, mt::Decoder::kMtad}) {
    Row row{d, {}, 0};
    const auto a = std::chrono::steady_clock::now();
    row.r = mt::RunDecoder(*pair, d, prompts, n, o.tokens, params, o.seed, false);
    row.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count();
    for (int i = 0; i < n; ++i)  // scored after the timing
      row.r.nll.push_back(cb::ref::mtad::MeanNll(*pair->target, prompts[i], row.r.tokens[i]));
    rows.push_back(std::move(row));
  }

  std::string pin;
  for (const auto& p : prompts)
    for (int t : p) pin += std::to_string(t) + ",";
  const std::string input = cb::harness::Xxh3_128(pair->content_hash + pin).Hex();
  const nlohmann::json base = {{"target", o.target}, {"draft", o.draft}, {"prompts", n}, {"tokens", o.tokens},
                               {"gamma", o.gamma}, {"beams", o.beams}, {"tau", o.tau}, {"top_k", o.top_k},
                               {"top_p", o.top_p}, {"seed", o.seed}};
  std::vector<cb::harness::Result> results;
  for (const Row& row : rows) {
    nlohmann::json p = base;
    p["decoder"] = mt::DecoderName(row.d);
    auto add = [&](const char* metric, const char* unit, const char* dir, double v, bool exact) {
      cb::harness::Result r{.suite = "mtad", .case_name = "eval_mtad", .backend = o.backend, .params = p,
                            .metric = metric, .unit = unit, .direction = dir, .value = v, .n = n};
      if (exact) {
        r.input_hash = input;
      } else {
        r.kind = cb::harness::ResultKind::kTiming;
      }
      results.push_back(std::move(r));
    };
    add("target_ppl", "ppl", "lower", std::exp(cb::harness::Mean(row.r.nll)), true);
    add("tokens_per_target_call", "tokens/call", "higher", row.r.costs.TokensPerTargetCall(), true);
    add("seconds", "s", "lower", row.seconds, false);
    add("tokens_per_second", "tokens/s", "higher", double(n) * o.tokens / row.seconds, false);
  }
  {
    cb::harness::Result r{.suite = "mtad", .case_name = "eval_mtad", .backend = o.backend, .params = base,
                          .metric = "target_over_draft_decode_time_ratio", .unit = "ratio", .value = cost_ratio};
    r.kind = cb::harness::ResultKind::kTiming;
    results.push_back(std::move(r));
  }

  auto ledger = cb::ledger::Ledger::Open(ResolveLedgerPath(o.ledger));
  const auto meta = CollectRunMeta(JoinArgs(cmdline.argc, cmdline.argv), "eval", o.seed);
  const int64_t run_id = ledger.BeginRun(meta);
  cb::ledger::RunGuard run(ledger, run_id);
  ledger.AddResults(run_id, results);
  run.Finish(cb::ledger::RunStatus::kComplete);
  const auto summary = ledger.GetRun(run_id);

  const double speedup = rows[1].seconds / rows[2].seconds;
  if (o.json) {
    nlohmann::json out = {{"run_id", run_id}, {"run_hash", summary.run_hash}, {"input_hash", input},
                          {"prompts", n}, {"tokens", o.tokens}, {"target_over_draft_decode_time_ratio", cost_ratio},
                          {"mtad_speedup_over_speculative", speedup}, {"decoders", nlohmann::json::array()}};
    for (const Row& row : rows)
      out["decoders"].push_back({{"decoder", mt::DecoderName(row.d)},
                                 {"target_ppl", std::exp(cb::harness::Mean(row.r.nll))},
                                 {"tokens_per_target_call", row.r.costs.TokensPerTargetCall()},
                                 {"seconds", row.seconds},
                                 {"tokens_per_second", double(n) * o.tokens / row.seconds}});
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  std::printf("target %s (%zu params), draft %s (%zu params): %d prompts x %d tokens, g=%d B=%d tau=%g, "
              "top-k %d top-p %g\n",
              o.target.c_str(), pair->target_tf->num_params(), o.draft.c_str(), pair->draft_tf->num_params(), n,
              o.tokens, o.gamma, o.beams, o.tau, o.top_k, o.top_p);
  std::printf("measured target/draft decode-time ratio: %.2f\n\n", cost_ratio);
  std::printf("%s %s %s %s %s\n", Fit("decoder", 12).c_str(), Fit("target PPL", 11).c_str(),
              Fit("tokens/call", 12).c_str(), Fit("seconds", 9).c_str(), "tokens/s");
  for (const Row& row : rows)
    std::printf("%s %-11.3f %-12.3f %-9.3f %.1f\n", Fit(mt::DecoderName(row.d), 12).c_str(),
                std::exp(cb::harness::Mean(row.r.nll)), row.r.costs.TokensPerTargetCall(), row.seconds,
                double(n) * o.tokens / row.seconds);
  std::printf("\nMTAD wall-time speedup over speculative decoding: %.3fx (one run each; paired: claim mtad.M3b-lm)\n",
              speedup);
  std::printf("run %lld complete, run_hash %s\n", static_cast<long long>(run_id), summary.run_hash.c_str());
  return kExitOk;
}

}  // namespace

void AddEvalMtadCommand(CLI::App& app, const CommandLine& cmdline, int* exit_code) {
  CLI::App* eval = CommandGroup(app, "eval", "Evaluate methods on statistics from real models");
  auto o = std::make_shared<EvalMtadOptions>();
  CLI::App* c = eval->add_subcommand(
      "mtad", "MTAD vs speculative decoding vs ancestral sampling on a target/draft checkpoint pair");
  c->add_option("--target", o->target, "Target checkpoint folder (HF layout, claimbench BPE)");
  c->add_option("--draft", o->draft, "Draft checkpoint folder (same tokenizer and vocabulary)");
  c->add_option("--prompts", o->prompts, "One prompt per line: text, {\"text\": ...} or {\"ids\": [...]}");
  c->add_option("--tokens", o->tokens, "New tokens per prompt")->capture_default_str();
  c->add_option("--gamma", o->gamma, "Block length g (MTAD and speculative)")->capture_default_str();
  c->add_option("--beams", o->beams, "MTAD draft beams B")->capture_default_str();
  c->add_option("--tau", o->tau, "MTAD acceptance threshold")->capture_default_str();
  c->add_option("--top-k", o->top_k, "Top-k filter (0: off)")->capture_default_str();
  c->add_option("--top-p", o->top_p, "Top-p filter (1: off)")->capture_default_str();
  c->add_option("--seed", o->seed, "Seed (prompt i uses Rng(seed, i))")->capture_default_str();
  c->add_option("--backend", o->backend, "Decoding backend: cpu (fp32, OpenBLAS) or cuda (fp32, cuBLAS)")
      ->capture_default_str();
  AddLedgerOption(c, &o->ledger);
  c->add_flag("--json", o->json, "Print the results as JSON on stdout");
  c->callback([o, cmdline, exit_code] { *exit_code = RunEvalMtad(*o, cmdline); });
}

CB_REGISTER_COMMAND(eval_mtad, AddEvalMtadCommand);

}  // namespace cb::cli
