// File: suites/vlmbias/vlmbias_eval.h
// -----------------------------------------------------------------------------
// Scoring generation files of "See It from My Perspective" (suites/vlmbias/
// README.md "File format"): rows are parsed and checked whole, each row is
// scored (a judge's score, a given selection, or parse_selection on its text
// against its options, random fallback seeded per row), and per (task, model,
// prompt language) the bias ratio perf_West / perf_EastAsia is estimated with
// its paired bootstrap interval beside both absolute scores
// (reference/vlmbias/bias.h); per split (stratum) the absolute score; per
// (task, model) with both prompt languages, ratio(en) - ratio(zh).
// Shared by `claimbench eval vlmbias` (--predictions and --endpoint) and the
// claims.
#ifndef CB_SUITES_VLMBIAS_VLMBIAS_EVAL_H_
#define CB_SUITES_VLMBIAS_VLMBIAS_EVAL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/result.h"
#include "reference/vlmbias/bias.h"
#include "reference/vlmbias/parse_selection.h"

namespace cb::vlmbias {

namespace rv = cb::ref::vlmbias;

struct Row {
  std::string task, id, split, prompt_lang = "en", model;
  rv::Region region = rv::Region::kWest;
  std::optional<double> score;      // "score": already judged (Dollar Street)
  std::optional<int> selection;     // "selection": an index already mapped
  std::optional<std::string> text;  // "mapper_output", else "generation": parsed
  std::vector<std::string> options;
  int label = -1;                   // index into options; -1: the label is not an option
  int line = 0;
};

// Parses JSON Lines (README "File format"). Throws std::runtime_error
// "SOURCE:LINE: what" for the first bad row (bad JSON, a missing or mistyped
// field, an unknown region, a label or selection out of range, a repeated
// (task, model, prompt_lang, id, region) key).
std::vector<Row> ParseRows(std::string_view text, const std::string& source);

// The row's score and how its selection was made (nullopt for "score" and
// "selection" rows). The random fallback draws from Rng(seed, stream) with
// stream = the low word of XXH3-128("task\nmodel\nprompt_lang\nid\nregion").
struct Scored {
  double value = 0;
  std::optional<rv::SelectionHow> how;
  int selected = -1;
};
Scored ScoreRow(const Row& r, uint64_t seed);

struct GroupReport {
  std::string task, model, prompt_lang;
  rv::BiasEstimate bias;
  int64_t parsed = 0, by_option = 0, by_digit = 0, by_random = 0;  // rows parse_selection saw
  int64_t labels_not_options = 0;
  double FallbackRate() const { return parsed ? static_cast<double>(by_random) / parsed : 0; }
};
struct SplitReport {
  std::string task, model, prompt_lang, split;
  rv::Region region;
  double perf = 0;
  int64_t n = 0;
};
struct DeltaReport {
  std::string task, model;
  rv::RatioDelta delta;  // ratio(en) - ratio(zh)
};
struct Report {
  std::vector<GroupReport> groups;   // by (task, model, prompt_lang)
  std::vector<SplitReport> splits;   // by (task, model, prompt_lang, split)
  std::vector<DeltaReport> deltas;   // (task, model) with en and zh prompts
  std::vector<std::string> skipped;  // groups without both regions, why
  int64_t rows = 0, by_random = 0, parsed = 0;
  uint64_t seed = 0;
  int resamples = 0;
};

// Scores every row and estimates per group. A group with observations in
// one region only is listed in `skipped` (no ratio); none with both: throws
// std::runtime_error.
Report Evaluate(const std::vector<Row>& rows, uint64_t seed, int resamples);

// Ledger rows: per group perf_west, perf_east (estimates with CI), bias_ratio
// (with CI when finite), fallback_rate (exact); per split perf; per delta.
std::vector<cb::harness::Result> ReportRows(const Report& r, const nlohmann::json& params,
                                            const std::string& input_hash);
nlohmann::json ReportJson(const Report& r);
void PrintReport(const Report& r);

}  // namespace cb::vlmbias

#endif  // CB_SUITES_VLMBIAS_VLMBIAS_EVAL_H_
