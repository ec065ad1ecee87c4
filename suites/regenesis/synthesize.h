// File: suites/regenesis/synthesize.h
// -----------------------------------------------------------------------------
// ReGenesis self-synthesis (Peng et al., ICLR 2025, §3; brief §8(a)) and the
// STaR baseline (Zelikman et al. 2022), driven through the OpenAI-compatible
// client (harness/model_client.h): responses cached (the ledger's
// http_cache, so a rerun resumes and a repeated run is free), sampled at
// temperature T > 0 with a per-sample request seed (sent; vLLM and OpenAI
// honour it), progress reported per request.
//
// ReGenesis, per item and sample k (seed + k), three chained requests:
//   1. seed guidelines (kSeedGuidelines, Self-Discover-style reasoning
//      modules) + the task -> task-specific guidelines;
//   2. the task + those guidelines -> a reasoning structure (a plan);
//   3. the task + the structure -> a reasoning path ending "The answer is X."
//      (with --gt-hint, the gold answer is named in this prompt; the reviews
//      say the hint can hurt, so it is off by default).
// STaR, per item and sample k: the task -> a rationale ending "The answer is
// X."; an item none of whose samples is right gets one rationalisation
// request with the gold answer as a hint, kept (with the hint-free question)
// when right.
// Then, per item: de-duplication, the exact-match filter against the gold
// answer, or the self-consistency majority when --no-gold
// (reference/regenesis/vote.h); kept paths become SFT rows
// {"messages": [{"role": "user", "content": question}, {"role": "assistant",
// "content": path}], "id", "task", "method", "answer"}.
#ifndef CB_SUITES_REGENESIS_SYNTHESIZE_H_
#define CB_SUITES_REGENESIS_SYNTHESIZE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/model_client.h"
#include "reference/regenesis/extract.h"

namespace cb::regenesis {

namespace rr = cb::ref::regenesis;

extern const char* const kSeedGuidelines;  // the seed reasoning modules, one per line

enum class Method { kRegenesis, kStar };
const char* MethodName(Method m);  // "regenesis" | "star"

struct SynthItem {
  std::string id, task, question;
  rr::Family family = rr::Family::kLabel;
  std::optional<std::string> gold;
};

// Items file (JSONL: id, task, question, gold, optional family). Throws
// std::runtime_error "SOURCE:LINE: what".
std::vector<SynthItem> ParseItems(std::string_view text, const std::string& source);
// The procedural tasks (generators/reasoning.h) as items.
std::vector<SynthItem> GeneratedItems(uint64_t seed, int per_task);

struct SynthConfig {
  cb::harness::ClientOptions client;
  std::string model;
  Method method = Method::kRegenesis;
  int samples = 4;            // paths per item
  double temperature = 0.7;   // > 0
  int max_tokens = 512;
  uint64_t seed = 0;          // request seed of sample k: seed + k
  bool gt_hint = false;       // ReGenesis: name the gold answer in step 3
  bool use_gold = true;       // false: self-consistency majority instead of the gold answer
};

struct SynthOutput {
  std::vector<nlohmann::json> sft;  // kept paths, item order then sample order
  int items = 0, items_with_kept = 0;
  int paths = 0, kept = 0, duplicates = 0, wrong = 0, no_answer = 0;
  int rationalised = 0;             // STaR: items kept through the hint
  int failed = 0;                   // requests without an answer (their chains are dropped)
  int64_t requests = 0, requests_sent = 0, cache_hits = 0;
  std::vector<std::string> errors;
};

// The prompts (exposed for tests and the README).
std::string GuidelinesPrompt(const SynthItem& item);
std::string StructurePrompt(const SynthItem& item, const std::string& guidelines);
std::string PathPrompt(const SynthItem& item, const std::string& structure, bool hint);
std::string StarPrompt(const SynthItem& item, bool hint);

SynthOutput Synthesize(const SynthConfig& c, const std::vector<SynthItem>& items, cb::harness::ResponseCache* cache,
                       const std::function<void(int, int)>& progress = {});

}  // namespace cb::regenesis

#endif  // CB_SUITES_REGENESIS_SYNTHESIZE_H_
