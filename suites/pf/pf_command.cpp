// File: suites/pf/pf_command.cpp
// -----------------------------------------------------------------------------
// `claimbench gen text` and `claimbench detect` (PF suite, reference/pf/pf.h):
//
//   gen text --decoder pf|softmax|greedy --watermark none|pf|gumbel|kgw
//            --key K --m 4 --count 20 --length 64 --temperature 1 --top-p 1
//            --seed S --out FILE.jsonl
//     Trains a Kneser-Ney LM (order 3, reference/lm) on a synthetic corpus
//     (generators/corpora.h, seed S), then writes `count` continuations of
//     `length` tokens after 4-token prompts, one JSON object a line:
//     {"prompt": [...], "tokens": [...], "text": "..."} (tokens include the
//     prompt). Written to a temporary file, then renamed (harness/atomic_file.h).
//     The watermark fixes the decoder: pf -> pf, gumbel -> softmax,
//     kgw -> softmax with KGW's bias (gamma 0.5, delta 2).
//   gen text --checkpoint DIR (--prompt-ids IDS | --prompts FILE.jsonl) ...
//     The same decoders and watermarks on a Llama checkpoint in HF layout,
//     token ids in and out (pf_lm_command.cpp).
//   detect --watermark pf|gumbel|kgw --key K --m 4 --dedup context|context-token|none
//          --in FILE.jsonl [--json] [--alpha 0.01]
//     Scores each line's "tokens" and prints n', score, z (KGW) and p-value;
//     exit 0. Lines without a non-empty "tokens" array are an error.
// Keys are unsigned 64-bit integers, decimal or 0x-hex; anything else is a
// usage error (exit 3). Nothing touches the ledger.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "generators/corpora.h"
#include "harness/atomic_file.h"
#include "harness/interrupt.h"
#include "harness/cli/commands.h"
#include "reference/lm/kn_lm.h"
#include "reference/pf/pf.h"
#include "suites/pf/pf.h"
#include "suites/pf/pf_command_util.h"

namespace cb::cli {
namespace {

namespace fs = std::filesystem;
namespace ref = cb::ref::pf;

}  // namespace

uint64_t PfParseKey(const std::string& s) {
  if (s.empty()) throw UsageError("--key: empty (expected an unsigned 64-bit integer)");
  size_t used = 0;
  unsigned long long v = 0;
  try {
    const bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    if (s[0] == '-' || s[0] == '+') throw std::invalid_argument("sign");
    v = std::stoull(s, &used, hex ? 16 : 10);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != s.size() || used == 0)
    throw UsageError("--key '" + s + "': expected an unsigned 64-bit integer (decimal or 0x-hex)");
  return v;
}

ref::Watermark PfParseWatermark(const std::string& s, bool allow_none) {
  if (s == "pf") return ref::Watermark::kPf;
  if (s == "gumbel") return ref::Watermark::kGumbel;
  if (s == "kgw") return ref::Watermark::kKgw;
  if (s == "none" && allow_none) return ref::Watermark::kNone;
  throw UsageError("--watermark '" + s + "': expected " + (allow_none ? "none, " : "") + "pf, gumbel or kgw");
}

namespace {

struct GenTextOptions {
  std::string decoder = "pf", watermark = "none", key = "0", out;
  std::string checkpoint, prompt_ids, prompts, backend = "cpu";  // the transformer path (pf_lm_command.cpp)
  int m = 4, count = 20, length = 64;
  double temperature = 1.0, top_p = 1.0;
  uint64_t seed = 1;
};

int RunGenText(const GenTextOptions& o) {
  if (!o.checkpoint.empty()) {
    return RunGenTextCheckpoint({.checkpoint = o.checkpoint, .prompt_ids = o.prompt_ids,
                                 .prompts = o.prompts, .backend = o.backend, .decoder = o.decoder, .watermark = o.watermark,
                                 .key = o.key, .out = o.out, .m = o.m, .count = o.count,
                                 .length = o.length, .temperature = o.temperature, .top_p = o.top_p,
                                 .seed = o.seed});
  }
  if (!o.prompt_ids.empty() || !o.prompts.empty() || o.backend != "cpu")
    throw UsageError("--prompt-ids, --prompts and --backend need --checkpoint");
  const ref::Watermark w = PfParseWatermark(o.watermark, true);
  if (o.decoder != "pf" && o.decoder != "softmax" && o.decoder != "greedy")
    throw UsageError("--decoder '" + o.decoder + "': expected pf, softmax or greedy");
  if ((w == ref::Watermark::kPf && o.decoder != "pf") ||
      ((w == ref::Watermark::kGumbel || w == ref::Watermark::kKgw) && o.decoder != "softmax"))
    throw UsageError("--watermark " + o.watermark + " needs --decoder " +
                     (w == ref::Watermark::kPf ? "pf" : "softmax"));
  const uint64_t key = PfParseKey(o.key);
  if (!(o.temperature > 0) || !std::isfinite(o.temperature)) throw UsageError("--temperature must be > 0");
  if (!(o.top_p > 0 && o.top_p <= 1)) throw UsageError("--top-p must lie in (0, 1]");
  if (o.m < 1 || o.m > 64) throw UsageError("--m must be in [1, 64]");
  if (o.count < 1 || o.length < 1) throw UsageError("--count and --length must be >= 1");
  if (o.out.empty()) throw UsageError("--out FILE is required");
  const fs::path out(o.out);
  const fs::path parent = out.has_parent_path() ? out.parent_path() : fs::path(".");
  if (!fs::is_directory(parent)) throw UsageError("--out " + o.out + ": parent folder does not exist");

  cb::gen::CorpusParams cp;
  cp.seed = o.seed;
  cp.vocab_size = 1024;
  cp.background_docs = 200;
  cp.background_words = 300;
  cp.per_class = o.count;
  cp.entity_tokens = 128;
  cp.aux_docs = 1;
  cp.ood_docs = 1;
  const auto corpus = cb::gen::MakeMiaCorpus(cp);
  cb::ref::lm::KneserNeyLm lm(3, cp.vocab_size);
  lm.Train(corpus.background);
  const ref::WatermarkParams params{.key = key, .context = o.m};
  std::string lines;
  std::vector<double> p(cp.vocab_size), u(cp.vocab_size);
  for (int i = 0; i < o.count; ++i) {
    cb::harness::ThrowIfInterrupted("after " + std::to_string(i) + " of " + std::to_string(o.count) + " texts");
    const auto& src = corpus.nonmembers[i];
    std::vector<int32_t> text(src.begin(), src.begin() + std::min<size_t>(4, src.size()));
    const size_t prompt = text.size();
    for (int t = 0; t < o.length; ++t) {
      lm.Distribution(text, text.size(), p);
      for (size_t y = 0; y < p.size(); ++y) u[y] = std::log(p[y]);
      const auto filtered = ref::TopP(u, o.temperature, o.top_p);
      const uint64_t step = (static_cast<uint64_t>(i) << 32) | text.size();
      int64_t y;
      if (w != ref::Watermark::kNone) {
        y = ref::WatermarkedSample(w, params, filtered, o.temperature, text, text.size(), o.seed ^ step);
      } else if (o.decoder == "greedy") {
        y = ref::Greedy(filtered);
      } else if (o.decoder == "pf") {
        y = ref::SamplePfNoise(filtered, o.temperature, o.seed, step);
      } else {
        y = ref::SampleSoftmaxGumbel(filtered, o.temperature, o.seed, step);
      }
      text.push_back(static_cast<int32_t>(y));
    }
    nlohmann::json row = {{"prompt", std::vector<int32_t>(text.begin(), text.begin() + prompt)},
                          {"tokens", text},
                          {"text", corpus.lexicon.Render(text)}};
    lines += row.dump() + "\n";
  }
  cb::harness::WriteFileAtomically(out.string(), lines);
  std::printf("%s: %d texts of %d tokens, decoder %s, watermark %s\n", o.out.c_str(), o.count,
              o.length, o.decoder.c_str(), o.watermark.c_str());
  return kExitOk;
}

struct DetectOptions {
  std::string watermark = "pf", key = "0", in, dedup = "context";
  int m = 4;
  bool json = false;
  double alpha = 0.01;
};

int RunDetect(const DetectOptions& o) {
  const ref::Watermark w = PfParseWatermark(o.watermark, false);
  const uint64_t key = PfParseKey(o.key);
  if (o.m < 1 || o.m > 64) throw UsageError("--m must be in [1, 64]");
  if (!(o.alpha > 0 && o.alpha < 1)) throw UsageError("--alpha must lie in (0, 1)");
  ref::Dedup dedup;
  if (o.dedup == "context") dedup = ref::Dedup::kContext;
  else if (o.dedup == "context-token") dedup = ref::Dedup::kContextToken;
  else if (o.dedup == "none") dedup = ref::Dedup::kNone;
  else throw UsageError("--dedup '" + o.dedup + "': expected context, context-token or none");
  std::ifstream f(o.in);
  if (!f) throw UsageError("--in " + o.in + ": cannot open");
  std::vector<std::vector<int32_t>> texts;
  std::string line;
  for (int ln = 1; std::getline(f, line); ++ln) {
    if (line.empty()) continue;
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const std::exception&) {
      throw UsageError(o.in + ":" + std::to_string(ln) + ": not JSON");
    }
    if (!j.is_object() || !j.contains("tokens") || !j["tokens"].is_array() || j["tokens"].empty())
      throw UsageError(o.in + ":" + std::to_string(ln) + ": expected a non-empty \"tokens\" array");
    std::vector<int32_t> t;
    for (const auto& x : j["tokens"]) {
      if (!x.is_number_integer() || x.get<int64_t>() < 0 || x.get<int64_t>() > INT32_MAX)
        throw UsageError(o.in + ":" + std::to_string(ln) + ": tokens must be non-negative int32");
      t.push_back(x.get<int32_t>());
    }
    texts.push_back(std::move(t));
  }
  if (texts.empty()) throw UsageError("--in " + o.in + ": no texts");
  const ref::WatermarkParams params{.key = key, .context = o.m};
  nlohmann::json rows = nlohmann::json::array();
  int flagged = 0;
  if (!o.json) std::printf("%6s %8s %12s %9s %12s\n", "text", "scored", "score", "z", "p_value");
  for (size_t i = 0; i < texts.size(); ++i) {
    // The CPU fast path: n' identical to cb::ref::pf::Detect, the score
    // within 1e-11 relative (suites/pf/pf.h DetectCpu).
    const auto d = cb::pf::DetectCpu(w, params, texts[i], dedup);
    flagged += d.p_value < o.alpha;
    if (o.json) {
      rows.push_back({{"text", i}, {"scored", d.scored}, {"score", d.score}, {"z", d.z},
                      {"p_value", d.p_value}, {"watermarked", d.p_value < o.alpha}});
    } else {
      std::printf("%6zu %8lld %12.4f %9.3f %12.4g\n", i, static_cast<long long>(d.scored), d.score,
                  d.z, d.p_value);
    }
  }
  if (o.json) std::printf("%s\n", rows.dump().c_str());
  else std::printf("%d of %zu texts flagged at alpha = %g\n", flagged, texts.size(), o.alpha);
  return kExitOk;
}

}  // namespace

void AddPfCommands(CLI::App& app, const CommandLine&, int* exit_code) {
  CLI::App* gen = CommandGroup(app, "gen", "Write procedural data sets");
  auto g = std::make_shared<GenTextOptions>();
  CLI::App* text = gen->add_subcommand("text", "Texts from an n-gram LM with PF/softmax/greedy decoding and a watermark");
  text->add_option("--decoder", g->decoder, "pf, softmax or greedy")->capture_default_str();
  text->add_option("--watermark", g->watermark, "none, pf, gumbel or kgw")->capture_default_str();
  text->add_option("--key", g->key, "Watermark key (uint64, decimal or 0x-hex)")->capture_default_str();
  text->add_option("--m", g->m, "Context tokens hashed into the watermark")->capture_default_str();
  text->add_option("--count", g->count, "Texts")->capture_default_str();
  text->add_option("--length", g->length, "New tokens per text")->capture_default_str();
  text->add_option("--temperature", g->temperature, "Temperature T > 0")->capture_default_str();
  text->add_option("--top-p", g->top_p, "Nucleus mass in (0, 1]")->capture_default_str();
  text->add_option("--seed", g->seed, "Corpus and sampling seed")->capture_default_str();
  text->add_option("--out", g->out, "Output JSON Lines file")->required();
  text->add_option("--checkpoint", g->checkpoint,
                   "Decode from this Llama checkpoint (HF folder) instead of the n-gram LM");
  text->add_option("--prompt-ids", g->prompt_ids,
                   "With --checkpoint: one prompt as comma-separated ids (--count texts from it)");
  text->add_option("--prompts", g->prompts,
                   "With --checkpoint: JSON Lines, a \"prompt\" id array per line (one text each)");
  text->add_option("--backend", g->backend, "With --checkpoint: cpu (fp32, OpenBLAS) or cuda (fp32, cuBLAS)")
      ->capture_default_str();
  text->callback([g, exit_code] { *exit_code = RunGenText(*g); });

  auto d = std::make_shared<DetectOptions>();
  CLI::App* detect = app.add_subcommand("detect", "Watermark detection (PF, Gumbel: Gamma tail; KGW: z-test)");
  detect->add_option("--watermark", d->watermark, "pf, gumbel or kgw")->capture_default_str();
  detect->add_option("--key", d->key, "Watermark key")->capture_default_str();
  detect->add_option("--m", d->m, "Context tokens")->capture_default_str();
  detect->add_option("--dedup", d->dedup, "context, context-token or none")->capture_default_str();
  detect->add_option("--alpha", d->alpha, "Flag texts with p < alpha")->capture_default_str();
  detect->add_option("--in", d->in, "JSON Lines with a \"tokens\" array per line")->required();
  detect->add_flag("--json", d->json, "Machine-readable output");
  detect->callback([d, exit_code] { *exit_code = RunDetect(*d); });
}

CB_REGISTER_COMMAND(pf_commands, AddPfCommands);

}  // namespace cb::cli
