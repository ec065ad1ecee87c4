// File: suites/vlmbias/eval_vlmbias_command.cpp
// `claimbench eval vlmbias`: the Western-bias ratio of a VLM, with both
// absolute scores, per task, model and prompt language; per split.
//   --predictions FILE.jsonl   generation rows (README "File format"): read and
//                              checked whole before the ledger is opened
//   --endpoint URL --model M --items FILE.jsonl
//                              the VLM asked with each item's image and prompt
//                              (--mapper-model N: the authors' mapper step),
//                              answers cached in the ledger (a rerun resumes)
// One scorer (the authors' parse_selection, random fallback seeded by
// --seed); its rows go in the "strict" slot of the shared eval flow and the
// "paper_compatible" JSON repeats them (there is no second mode).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "harness/cli/commands.h"
#include "ledger/cli/common.h"
#include "ledger/cli/eval_flow.h"
#include "suites/vlmbias/vlmbias_endpoint.h"
#include "suites/vlmbias/vlmbias_eval.h"

namespace cb::cli {
namespace {

namespace vb = cb::vlmbias;

struct EvalVlmbiasOptions {
  std::string predictions, items, mapper_model, prompt_langs = "en,zh";
  EndpointOptions endpoint;
  int resamples = 2000, max_tokens = 200;
  EvalRunOptions run{.seed = 20250101};
};

EvalScores Scores(const vb::Report& rep, const nlohmann::json& params, const std::string& input_hash) {
  const nlohmann::json j = vb::ReportJson(rep);
  return EvalScores{vb::ReportRows(rep, params, input_hash), j, j, [rep] { vb::PrintReport(rep); }};
}

void CheckResamples(int r) {
  if (r < 100 || r > 100000) throw UsageError("--resamples must be in [100, 100000]");
}

int RunFromPredictions(const EvalVlmbiasOptions& o, const CommandLine& cmdline) {
  CheckResamples(o.resamples);
  const std::string text = ReadPredictionsFile(o.predictions);
  std::vector<vb::Row> rows;
  vb::Report rep;
  try {
    rows = vb::ParseRows(text, o.predictions);
    if (rows.empty()) throw std::runtime_error(o.predictions + ": no rows");
    rep = vb::Evaluate(rows, o.run.seed, o.resamples);
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  return RecordPredictionRun(o.run, cmdline, o.predictions, text, rows.size(),
                             [&](const nlohmann::json& params, const std::string& input_hash) {
                               nlohmann::json p = params;
                               p["resamples"] = o.resamples;
                               return Scores(rep, p, input_hash);
                             });
}

int RunOnEndpoint(const EvalVlmbiasOptions& o, const CommandLine& cmdline) {
  CheckResamples(o.resamples);
  vb::EndpointConfig c;
  c.client = EndpointClientOptions(o.endpoint);
  c.model = o.endpoint.model;
  c.mapper_model = o.mapper_model;
  c.max_tokens = o.max_tokens;
  c.seed = o.run.seed;
  c.prompt_langs.clear();
  std::stringstream ss(o.prompt_langs);
  for (std::string l; std::getline(ss, l, ',');) {
    if (l != "en" && l != "zh") throw UsageError("--prompt-langs: '" + l + "' is not en or zh");
    c.prompt_langs.push_back(l);
  }
  if (c.prompt_langs.empty()) throw UsageError("--prompt-langs: none given");
  if (o.items.empty()) throw UsageError("--items FILE.jsonl is required with --endpoint");
  std::ifstream in(o.items, std::ios::binary);
  if (!in) throw UsageError("--items " + o.items + ": cannot read");
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string items_text = buf.str();
  std::vector<vb::Item> items;
  try {
    items = vb::ParseItems(items_text, o.items, std::filesystem::path(o.items).parent_path().string());
    if (!c.mapper_model.empty())
      for (const auto& it : items) vb::MapperPrompt(it, "");  // 4 options, checked before any request
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  vb::EndpointOutput out;
  vb::Report rep;
  EndpointEval e;
  e.unit = "answers";
  e.evaluate = [&](cb::harness::ResponseCache* cache, const std::function<void(int, int)>& progress) {
    out = vb::EvaluateEndpoint(c, items, cache, progress);
    return EndpointTally{out.asked, out.failed, out.requests_sent, out.cache_hits, out.errors};
  };
  e.params = [&] {
    return nlohmann::json{{"endpoint", o.endpoint.endpoint},
                          {"model", o.endpoint.model},
                          {"mapper_model", o.mapper_model},
                          {"items", std::filesystem::path(o.items).filename().string()},
                          {"items_hash", cb::harness::Xxh3_128(items_text).Hex()},
                          {"prompt_langs", o.prompt_langs},
                          {"max_tokens", o.max_tokens},
                          {"temperature", 0},
                          {"request_seed", o.run.seed},
                          {"resamples", o.resamples}};
  };
  e.score = [&](const nlohmann::json& params, const std::string& input_hash) {
    rep = vb::Evaluate(out.rows, o.run.seed, o.resamples);
    return Scores(rep, params, input_hash);
  };
  return RunEndpointEval(o.run, cmdline, o.endpoint.endpoint, e);
}

int RunEvalVlmbias(const EvalVlmbiasOptions& o, const CommandLine& cmdline) {
  if (o.predictions.empty() == o.endpoint.endpoint.empty())
    throw UsageError("give exactly one of --predictions FILE or --endpoint URL");
  return o.predictions.empty() ? RunOnEndpoint(o, cmdline) : RunFromPredictions(o, cmdline);
}

}  // namespace

void AddEvalVlmbiasCommand(CLI::App& app, const CommandLine& cmdline, int* exit_code) {
  CLI::App* eval = CommandGroup(app, "eval", "Evaluate methods on statistics from real models");
  auto o = std::make_shared<EvalVlmbiasOptions>();
  CLI::App* c = eval->add_subcommand(
      "vlmbias", "VLM cultural bias (See It from My Perspective): bias ratio West/EastAsia from a generation file or an endpoint (CPU only)");
  AddEvalInputOptions(c, &o->predictions,
                      "generation rows (JSONL: task, id, region or language, prompt_lang, and score, selection or "
                      "generation with options and label)",
                      &o->endpoint);
  c->add_option("--items", o->items, "With --endpoint: items (JSONL: task, id, region, image, prompt, options, label)");
  c->add_option("--mapper-model", o->mapper_model, "With --endpoint: text model that maps answers to options (the paper: Mistral-7B-Instruct-v0.2)");
  c->add_option("--prompt-langs", o->prompt_langs, "With --endpoint: prompt languages to ask in")->capture_default_str();
  c->add_option("--max-tokens", o->max_tokens, "With --endpoint: max_tokens per VLM answer")->capture_default_str();
  c->add_option("--resamples", o->resamples, "Bootstrap resamples")->capture_default_str();
  AddEvalRunOptions(c, &o->run);
  c->callback([o, cmdline, exit_code] { *exit_code = RunEvalVlmbias(*o, cmdline); });
}

CB_REGISTER_COMMAND(eval_vlmbias, AddEvalVlmbiasCommand);

}  // namespace cb::cli
