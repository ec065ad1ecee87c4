// File: suites/regenesis/synthesize_command.cpp
// `claimbench regenesis synthesize --endpoint URL --model NAME --out FILE`:
// ReGenesis self-synthesis (or --method star) on an items file or the
// procedural tasks, through the OpenAI-compatible client; writes the kept
// paths as SFT JSONL (all or nothing) and records the run's counts. Responses
// are cached in the ledger's http_cache: an interrupted run resumes, a
// repeated one sends nothing.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "harness/atomic_file.h"
#include "harness/cli/commands.h"
#include "harness/hash.h"
#include "ledger/cli/common.h"
#include "ledger/cli/eval_flow.h"
#include "suites/regenesis/synthesize.h"

namespace cb::cli {
namespace {

namespace rg = cb::regenesis;
namespace h = cb::harness;

struct SynthesizeOptions {
  EndpointOptions endpoint;
  std::string out, items, method = "regenesis";
  int generate = 10, samples = 4, max_tokens = 512;
  double temperature = 0.7;
  bool gt_hint = false, no_gold = false;
  EvalRunOptions run{.seed = 20250101};
};

int RunSynthesize(const SynthesizeOptions& o, const CommandLine& cmdline) {
  if (o.endpoint.endpoint.empty()) throw UsageError("--endpoint URL is required");
  if (o.out.empty()) throw UsageError("--out FILE is required");
  if (std::filesystem::exists(o.out)) throw UsageError("--out " + o.out + ": already exists");
  rg::SynthConfig c;
  c.client = EndpointClientOptions(o.endpoint);
  c.model = o.endpoint.model;
  if (o.method == "regenesis") c.method = rg::Method::kRegenesis;
  else if (o.method == "star") c.method = rg::Method::kStar;
  else throw UsageError("--method: use regenesis or star, not '" + o.method + "'");
  if (o.samples < 1 || o.samples > 256) throw UsageError("--samples must be in [1, 256]");
  if (!(o.temperature > 0) || o.temperature > 2) throw UsageError("--temperature must be in (0, 2]");
  if (o.max_tokens < 1) throw UsageError("--max-tokens must be >= 1");
  if (o.method == "star" && o.no_gold) throw UsageError("--no-gold: STaR needs the gold answers");
  c.samples = o.samples;
  c.temperature = o.temperature;
  c.max_tokens = o.max_tokens;
  c.seed = o.run.seed;
  c.gt_hint = o.gt_hint;
  c.use_gold = !o.no_gold;
  std::vector<rg::SynthItem> items;
  std::string items_hash;
  try {
    if (!o.items.empty()) {
      std::ifstream in(o.items, std::ios::binary);
      if (!in) throw std::runtime_error("--items " + o.items + ": cannot read");
      std::stringstream ss;
      ss << in.rdbuf();
      items = rg::ParseItems(ss.str(), o.items);
      items_hash = h::Xxh3_128(ss.str()).Hex();
    } else {
      if (o.generate < 1 || o.generate > 10000) throw std::runtime_error("--generate must be in [1, 10000]");
      items = rg::GeneratedItems(o.run.seed, o.generate);
    }
    if (c.use_gold)
      for (const auto& it : items)
        if (!it.gold)
          throw std::runtime_error((o.items.empty() ? "" : o.items + ": ") + "item " + it.id +
                                   " has no gold answer (or use --no-gold)");
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  rg::SynthOutput out;
  EndpointEval e;
  e.unit = "requests";
  e.evaluate = [&](h::ResponseCache* cache, const std::function<void(int, int)>& progress) {
    out = rg::Synthesize(c, items, cache, progress);
    return EndpointTally{static_cast<int>(out.requests), out.failed, out.requests_sent, out.cache_hits, out.errors};
  };
  e.params = [&] {
    nlohmann::json p = {{"endpoint", o.endpoint.endpoint}, {"model", c.model},        {"method", o.method},
                        {"samples", o.samples},            {"temperature", o.temperature}, {"max_tokens", o.max_tokens},
                        {"request_seed", o.run.seed},      {"gt_hint", o.gt_hint},      {"filter", o.no_gold ? "majority" : "gold"},
                        {"items", static_cast<int64_t>(items.size())}};
    if (!o.items.empty()) {
      p["items_file"] = std::filesystem::path(o.items).filename().string();
      p["items_hash"] = items_hash;
    } else {
      p["generator"] = "reasoning";
      p["generate_per_task"] = o.generate;
    }
    return p;
  };
  e.score = [&](const nlohmann::json& params, const std::string& input_hash) {
    std::string text;
    for (const auto& row : out.sft) text += row.dump() + "\n";
    h::WriteFileAtomically(o.out, text);
    std::vector<h::Result> rows;
    auto row = [&](const std::string& metric, double v) {
      h::Result r;
      r.suite = "regenesis";
      r.case_name = "synthesize";
      r.backend = "cpu";
      r.params = params;
      r.metric = metric;
      r.unit = "count";
      r.value = v;
      r.n = out.items;
      r.input_hash = input_hash;
      r.output_hash = h::Xxh3_128(text).Hex();
      rows.push_back(r);
    };
    row("paths", out.paths);
    row("kept", out.kept);
    row("duplicates", out.duplicates);
    row("wrong", out.wrong);
    row("no_answer", out.no_answer);
    row("items_with_kept", out.items_with_kept);
    row("rationalised", out.rationalised);
    const nlohmann::json j = {{"items", out.items},       {"paths", out.paths},         {"kept", out.kept},
                              {"duplicates", out.duplicates}, {"wrong", out.wrong},     {"no_answer", out.no_answer},
                              {"items_with_kept", out.items_with_kept}, {"rationalised", out.rationalised},
                              {"out", o.out}};
    return EvalScores{rows, j, j, [j] {
                        std::printf("%d items: %d paths, %d duplicates, %d wrong, %d without an answer; %d kept "
                                    "(%d items with a kept path, %d by rationalisation) -> %s\n",
                                    j["items"].get<int>(), j["paths"].get<int>(), j["duplicates"].get<int>(),
                                    j["wrong"].get<int>(), j["no_answer"].get<int>(), j["kept"].get<int>(),
                                    j["items_with_kept"].get<int>(), j["rationalised"].get<int>(),
                                    j["out"].get<std::string>().c_str());
                      }};
  };
  return RunEndpointEval(o.run, cmdline, o.endpoint.endpoint, e);
}

}  // namespace

void AddRegenesisCommand(CLI::App& app, const CommandLine& cmdline, int* exit_code) {
  CLI::App* group = CommandGroup(app, "regenesis", "ReGenesis: self-synthesised reasoning data (CPU only; the model is an endpoint)");
  auto o = std::make_shared<SynthesizeOptions>();
  CLI::App* c = group->add_subcommand("synthesize", "Synthesise and filter reasoning paths through an endpoint; write SFT JSONL");
  c->add_option("--endpoint", o->endpoint.endpoint, "OpenAI-compatible base URL (API key from $OPENAI_API_KEY)")->required();
  c->add_option("--model", o->endpoint.model, "Model name sent to the endpoint")->required();
  c->add_option("--out", o->out, "SFT JSONL to write (must not exist)")->required();
  c->add_option("--method", o->method, "regenesis or star")->capture_default_str();
  c->add_option("--items", o->items, "Items (JSONL: id, task, question, gold, optional family); default: procedural tasks");
  c->add_option("--generate", o->generate, "Without --items: procedural items per task (arith, order, compare)")->capture_default_str();
  c->add_option("--samples", o->samples, "Paths sampled per item")->capture_default_str();
  c->add_option("--temperature", o->temperature, "Sampling temperature (> 0)")->capture_default_str();
  c->add_option("--max-tokens", o->max_tokens, "max_tokens per request")->capture_default_str();
  c->add_flag("--gt-hint", o->gt_hint, "ReGenesis: name the gold answer in the path prompt");
  c->add_flag("--no-gold", o->no_gold, "Filter by the self-consistency majority instead of the gold answer");
  c->add_option("--concurrency", o->endpoint.concurrency, "Requests in flight")->capture_default_str();
  c->add_option("--retries", o->endpoint.retries, "Retries per request (429, 5xx, timeouts)")->capture_default_str();
  c->add_option("--timeout", o->endpoint.timeout_s, "Seconds per request attempt")->capture_default_str();
  AddEvalRunOptions(c, &o->run);
  c->callback([o, cmdline, exit_code] { *exit_code = RunSynthesize(*o, cmdline); });
}

CB_REGISTER_COMMAND(regenesis_synthesize, AddRegenesisCommand);

}  // namespace cb::cli
