// File: suites/vlmbias/vlmbias_claims.cpp
// -----------------------------------------------------------------------------
// Claims of "See It from My Perspective: How Language Affects Cultural Bias
// in Image Understanding" (Ananthram et al., ICLR 2025); ids, criteria and
// settings in suites/vlmbias/README.md. CPU only.
//   B1-B2  the statistics and the parser, checked on simulated generations:
//          a random predictor's ratio, parse_selection's seeded determinism
//   F1-F4  the paper's findings: UNMEASURABLE unless a generation file is
//          named by CLAIMBENCH_VLMBIAS_PREDICTIONS (README "File format");
//          with one, measured on it.
// Criteria were fixed before the first run.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "harness/claim.h"
#include "harness/hash.h"
#include "harness/random.h"
#include "harness/strings.h"
#include "suites/vlmbias/vlmbias_eval.h"

namespace cb::vlmbias {
namespace {

namespace h = cb::harness;

CB_CLAIM_DEFAULTS({.paper = "See It from My Perspective (Ananthram et al.)",
                   .paper_setting = "A-OKVQA / CVQA, ArtELingo, Dollar Street; LLaVA-1.5, BLIP2, mBLIP, Qwen-VL, "
                                    "mLLaVA (Llama2 / Baichuan2 bases); prompts in English and Chinese"});

// Simulated generations: `n` items per region, `west_options` / `east_options`
// options, the answer text names a uniformly random option (p_mention), says
// "option <k>" (p_digit), or names nothing (the random fallback).
std::vector<Row> Simulate(uint64_t seed, int n, int west_options, int east_options, double p_mention,
                          double p_digit) {
  h::Rng rng(seed, 0x766c6d62ull);
  std::vector<Row> rows;
  for (int region = 0; region < 2; ++region) {
    const int k = region == 0 ? west_options : east_options;
    for (int i = 0; i < n; ++i) {
      Row r;
      r.task = "sim";
      r.id = (region == 0 ? "w" : "e") + std::to_string(i);
      r.region = region == 0 ? rv::Region::kWest : rv::Region::kEastAsia;
      r.split = rv::RegionName(r.region);
      for (int c = 0; c < k; ++c) r.options.push_back("option word " + std::string(1, static_cast<char>('a' + c)));
      r.label = static_cast<int>(rng.UniformInt(0, k - 1));
      const double u = rng.Uniform();
      const int pick = static_cast<int>(rng.UniformInt(0, k - 1));
      if (u < p_mention) r.text = "I think it is " + r.options[pick] + ".";
      else if (u < p_mention + p_digit) r.text = "Number " + std::to_string(pick + 1);
      else r.text = "I cannot tell from the picture.";
      rows.push_back(std::move(r));
    }
  }
  return rows;
}

void RecordGroup(h::ClaimContext& ctx, const std::string& case_name, const GroupReport& g, const nlohmann::json& params) {
  const std::string in = h::Xxh3_128(params.dump()).Hex();
  const auto& b = g.bias;
  auto est = [&](const std::string& metric, double v, double lo, double hi, int64_t n) {
    ctx.RecordEstimate({.case_name = case_name, .backend = "cpu", .params = params, .metric = metric,
                        .unit = metric == "bias_ratio" ? "ratio" : "score", .value = v, .ci_low = lo, .ci_high = hi,
                        .n = n, .input_hash = in, .output_hash = h::HashDoubles({v, lo, hi}).Hex()});
  };
  est("perf_west", b.west, b.west_ci.low, b.west_ci.high, b.n_west);
  est("perf_east_asia", b.east, b.east_ci.low, b.east_ci.high, b.n_east);
  if (b.ratio_defined && std::isfinite(b.ratio_ci.high))
    est("bias_ratio", b.ratio, b.ratio_ci.low, b.ratio_ci.high, b.n_west + b.n_east);
  ctx.RecordExact({.case_name = case_name, .backend = "cpu", .params = params, .metric = "random_fallback_rate",
                   .unit = "fraction", .direction = "none", .value = g.FallbackRate(), .n = g.parsed,
                   .input_hash = in, .output_hash = h::HashDoubles({g.FallbackRate()}).Hex()});
}

// B1: a random predictor has ratio 1 (CI contains 1); with 2 East-Asian
// options against 4 West ones its ratio is 0.5 (chance differs).
h::Outcome RandomPredictor(h::ClaimContext& ctx) {
  const int n = ctx.ByProfile(400, 4000, 20000), resamples = ctx.ByProfile(300, 2000, 2000);
  const Report eq = Evaluate(Simulate(ctx.seed(), n, 4, 4, 0.6, 0.2), ctx.seed(), resamples);
  const Report uneq = Evaluate(Simulate(ctx.seed() + 1, n, 4, 2, 0.6, 0.2), ctx.seed(), resamples);
  const auto& a = eq.groups.at(0).bias;
  const auto& b = uneq.groups.at(0).bias;
  nlohmann::json p = {{"items_per_region", n}, {"resamples", resamples}, {"p_mention", 0.6}, {"p_digit", 0.2}};
  p["options"] = "4/4";
  RecordGroup(ctx, "random_predictor", eq.groups[0], p);
  p["options"] = "4/2";
  RecordGroup(ctx, "random_predictor", uneq.groups[0], p);
  const bool contains1 = a.ratio_ci.low <= 1 && 1 <= a.ratio_ci.high;
  const bool contains_half = b.ratio_ci.low <= 0.5 && 0.5 <= b.ratio_ci.high;
  h::Outcome o = ctx.Judge(
      {h::Estimate::Check(contains1), h::Estimate::Check(contains_half)},
      h::StrFormat("%d items per region, uniform random answers (60%% name an option, 20%% a digit, 20%% nothing: "
                   "random fallback %.1f%%), %d stratified resamples; 4/4 options: perf %.3f / %.3f, ratio %.3f "
                   "[%.3f, %.3f]; 4/2 options: ratio %.3f [%.3f, %.3f]",
                   n, 100 * eq.groups[0].FallbackRate(), resamples, a.west, a.east, a.ratio, a.ratio_ci.low,
                   a.ratio_ci.high, b.ratio, b.ratio_ci.low, b.ratio_ci.high));
  o.value = a.ratio;
  o.ci_low = a.ratio_ci.low;
  o.ci_high = a.ratio_ci.high;
  return o;
}

// B2: a fixed seed fixes every selection; another seed changes only rows
// that fell back to a random option (and some of them).
h::Outcome ParserDeterminism(h::ClaimContext& ctx) {
  const int n = ctx.ByProfile(500, 5000, 50000);
  const auto rows = Simulate(ctx.seed(), n, 4, 4, 0.5, 0.2);
  int same = 0, changed_fallback = 0, changed_other = 0, fallbacks = 0;
  for (const Row& r : rows) {
    const Scored a = ScoreRow(r, ctx.seed()), b = ScoreRow(r, ctx.seed()), c = ScoreRow(r, ctx.seed() + 1);
    same += a.selected == b.selected;
    const bool fb = *a.how == rv::SelectionHow::kRandom;
    fallbacks += fb;
    if (a.selected != c.selected) (fb ? changed_fallback : changed_other)++;
  }
  const int total = static_cast<int>(rows.size());
  const nlohmann::json p = {{"rows", total}};
  const std::string in = h::Xxh3_128(p.dump()).Hex();
  auto exact = [&](const std::string& metric, double v, const std::string& unit) {
    ctx.RecordExact({.case_name = "parser_determinism", .backend = "cpu", .params = p, .metric = metric, .unit = unit,
                     .value = v, .n = total, .input_hash = in, .output_hash = h::HashDoubles({v}).Hex()});
  };
  exact("identical_selections_fraction", static_cast<double>(same) / total, "fraction");
  exact("random_fallback_rate", static_cast<double>(fallbacks) / total, "fraction");
  exact("changed_by_seed_fallback_rows", changed_fallback, "count");
  exact("changed_by_seed_other_rows", changed_other, "count");
  return ctx.Judge({h::Estimate::Check(same == total), h::Estimate::Check(changed_other == 0 && changed_fallback > 0)},
                   h::StrFormat("%d simulated answers (50%% name an option, 20%% a digit, 30%% nothing): random "
                                "fallback %.1f%%; same seed: %d/%d identical; seed+1 changed %d fallback rows and %d "
                                "others",
                                total, 100.0 * fallbacks / total, same, total, changed_fallback, changed_other));
}

// F1-F4 read the user's generation file.
struct UserFile {
  std::string path, error;
  Report report;
};

UserFile LoadUserFile(uint64_t seed, int resamples) {
  UserFile u;
  const char* env = std::getenv("CLAIMBENCH_VLMBIAS_PREDICTIONS");
  if (env == nullptr || *env == '\0') {
    u.error = "no generation file: set CLAIMBENCH_VLMBIAS_PREDICTIONS to a JSONL file (suites/vlmbias/README.md)";
    return u;
  }
  u.path = env;
  std::ifstream in(u.path, std::ios::binary);
  if (!in) {
    u.error = "CLAIMBENCH_VLMBIAS_PREDICTIONS=" + u.path + ": cannot read";
    return u;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    u.report = Evaluate(ParseRows(ss.str(), u.path), seed, resamples);
  } catch (const std::exception& e) {
    u.error = e.what();
  }
  return u;
}

bool IsDollar(const std::string& task) { return task == "dollar" || task == "dollarstreet"; }

h::Outcome EveryVlmWestern(h::ClaimContext& ctx) {
  const UserFile u = LoadUserFile(ctx.seed(), ctx.ByProfile(300, 2000, 2000));
  if (!u.error.empty()) return h::Unmeasurable(u.error);
  const GroupReport* worst = nullptr;
  for (const auto& g : u.report.groups) {
    RecordGroup(ctx, "user_file", g, {{"task", g.task}, {"model", g.model}, {"prompt_lang", g.prompt_lang}});
    if (g.bias.ratio_defined && (!worst || g.bias.ratio_ci.low < worst->bias.ratio_ci.low)) worst = &g;
  }
  if (!worst) return h::Unmeasurable("no group in " + u.path + " has a defined ratio (East-Asian score 0)");
  const auto& b = worst->bias;
  return ctx.Judge({h::Estimate::Ci(b.ratio, b.ratio_ci.low, b.ratio_ci.high)},
                   h::StrFormat("%s: %zu (task, model, prompt language) groups; lowest: %s/%s/%s perf %.3f / %.3f",
                                u.path.c_str(), u.report.groups.size(), worst->task.c_str(), worst->model.c_str(),
                                worst->prompt_lang.c_str(), b.west, b.east));
}

// Mean ratio over a model family's groups (model name containing `family`).
std::pair<double, int> FamilyMeanRatio(const Report& r, const std::string& family) {
  double s = 0;
  int k = 0;
  for (const auto& g : r.groups)
    if (g.model.find(family) != std::string::npos && g.bias.ratio_defined) {
      s += g.bias.ratio;
      ++k;
    }
  return {k ? s / k : 0, k};
}

h::Outcome BaichuanLeastBiased(h::ClaimContext& ctx) {
  const UserFile u = LoadUserFile(ctx.seed(), 300);
  if (!u.error.empty()) return h::Unmeasurable(u.error);
  const auto [b, nb] = FamilyMeanRatio(u.report, "baichuan2");
  const auto [l, nl] = FamilyMeanRatio(u.report, "llama2");
  if (nb == 0 || nl == 0)
    return h::Unmeasurable(u.path + " has no rows of models named *baichuan2* and *llama2* (the mLLaVA variants)");
  const nlohmann::json p = {{"baichuan2_groups", nb}, {"llama2_groups", nl}};
  ctx.RecordExact({.case_name = "user_file", .backend = "cpu", .params = p, .metric = "mean_ratio_baichuan2_minus_llama2",
                   .unit = "ratio", .direction = "lower", .value = b - l, .n = nb + nl,
                   .input_hash = h::Xxh3_128(p.dump()).Hex(), .output_hash = h::HashDoubles({b, l}).Hex()});
  return ctx.Judge({h::Estimate::Exact(b - l)},
                   h::StrFormat("%s: mean ratio baichuan2 %.3f (%d groups), llama2 %.3f (%d groups)", u.path.c_str(),
                                b, nb, l, nl));
}

// Mean over a family's deltas ratio(en) - ratio(zh), Dollar Street in or out.
std::pair<double, int> FamilyMeanDelta(const Report& r, const std::string& family, bool dollar) {
  double s = 0;
  int k = 0;
  for (const auto& d : r.deltas)
    if ((family.empty() || d.model.find(family) != std::string::npos) && d.delta.defined && IsDollar(d.task) == dollar) {
      s += d.delta.delta;
      ++k;
    }
  return {k ? s / k : 0, k};
}

h::Outcome ChinesePromptsHelpBaichuan(h::ClaimContext& ctx) {
  const UserFile u = LoadUserFile(ctx.seed(), 300);
  if (!u.error.empty()) return h::Unmeasurable(u.error);
  const auto [b, nb] = FamilyMeanDelta(u.report, "baichuan2", false);
  const auto [l, nl] = FamilyMeanDelta(u.report, "llama2", false);
  if (nb == 0 || nl == 0)
    return h::Unmeasurable(u.path + " has no baichuan2 and llama2 models prompted in both en and zh");
  const nlohmann::json p = {{"baichuan2_deltas", nb}, {"llama2_deltas", nl}};
  ctx.RecordExact({.case_name = "user_file", .backend = "cpu", .params = p,
                   .metric = "zh_prompt_gain_baichuan2_minus_llama2", .unit = "ratio", .direction = "higher",
                   .value = b - l, .n = nb + nl, .input_hash = h::Xxh3_128(p.dump()).Hex(),
                   .output_hash = h::HashDoubles({b, l}).Hex()});
  return ctx.Judge({h::Estimate::Exact(b - l)},
                   h::StrFormat("%s: mean ratio(en) - ratio(zh) outside Dollar Street: baichuan2 %.3f (%d), llama2 "
                                "%.3f (%d)",
                                u.path.c_str(), b, nb, l, nl));
}

h::Outcome ChinesePromptsWorsenDollar(h::ClaimContext& ctx) {
  const UserFile u = LoadUserFile(ctx.seed(), ctx.ByProfile(300, 2000, 2000));
  if (!u.error.empty()) return h::Unmeasurable(u.error);
  const DeltaReport* worst = nullptr;  // the largest en - zh delta: all must be < 0
  for (const auto& d : u.report.deltas)
    if (IsDollar(d.task) && d.delta.defined && (!worst || d.delta.delta > worst->delta.delta)) worst = &d;
  if (!worst) return h::Unmeasurable(u.path + " has no Dollar Street task (task \"dollar\") in both en and zh prompts");
  return ctx.Judge({h::Estimate::Ci(worst->delta.delta, worst->delta.ci.low, worst->delta.ci.high)},
                   u.path + ": Dollar Street, model " + worst->model + " (the largest ratio(en) - ratio(zh))");
}

CB_REGISTER_CLAIM(kRandom,
                  {.id = "vlmbias.B1", .section = "bias metric (reviews); brief §9(c)",
                   .statement = "[CPU only] a random predictor has bias ratio 1: its 95% CI contains 1 (and 0.5 when "
                                "East Asia has 2 options against 4)",
                   .paper_value = "1 means no bias (by definition)",
                   .paper_setting = "bias = perf_West / perf_EastAsia",
                   .metric = "bias ratio of uniform random answers [paired stratified bootstrap 95%]",
                   .criterion = h::AllOf({h::Holds("the ratio's 95% CI contains 1 (4 and 4 options)"),
                                          h::Holds("the ratio's 95% CI contains 0.5 (4 and 2 options)")})},
                  RandomPredictor);

CB_REGISTER_CLAIM(kParser,
                  {.id = "vlmbias.B2", .section = "2_extract_mcvqa_artelingo_selections.py parse_selection",
                   .statement = "[CPU only] parse_selection is deterministic given the seed; the seed moves only the "
                                "random-fallback rows",
                   .paper_value = "(the authors' fallback is Python's unseeded random.choice)",
                   .paper_setting = "earliest option mentioned, else a digit, else a random option",
                   .metric = "1 if the selections repeat",
                   .criterion = h::AllOf({h::Holds("same seed: every selection identical"),
                                          h::Holds("another seed changes only (and some) fallback rows")})},
                  ParserDeterminism);

const h::Criterion kAboveOne = h::AtLeast(1.0, "lowest bias ratio over groups, 95% CI");

CB_REGISTER_CLAIM(kF1,
                  {.id = "vlmbias.F1", .section = "§4 (characterisation)",
                   .statement = "[CPU only; needs a generation file] every VLM does better on the Western split of "
                                "every task",
                   .paper_value = "Western bias (ratio > 1) for every model on every task",
                   .metric = "lowest bias ratio over (task, model, prompt language) [95% CI]",
                   .criterion = kAboveOne},
                  EveryVlmWestern);

CB_REGISTER_CLAIM(kF2,
                  {.id = "vlmbias.F2", .section = "§5 (tracing: base LLM)",
                   .statement = "[CPU only; needs a generation file] bias drops most when the base LLM saw the "
                                "target language in pre-training (Baichuan2 below Llama2), even prompting in English",
                   .paper_value = "mLLaVA-Baichuan2 variants less biased than mLLaVA-Llama2 (qualitative)",
                   .metric = "mean ratio of *baichuan2* models minus *llama2* models",
                   .criterion = h::AtMost(0.0, "mean ratio baichuan2 - llama2")},
                  BaichuanLeastBiased);

CB_REGISTER_CLAIM(kF3,
                  {.id = "vlmbias.F3", .section = "§5 (prompt language)",
                   .statement = "[CPU only; needs a generation file] Chinese prompts reduce bias mainly when the LLM "
                                "saw Chinese in pre-training",
                   .paper_value = "larger gain from Chinese prompts for Baichuan2 than Llama2 (qualitative)",
                   .metric = "mean ratio(en) - ratio(zh): baichuan2 minus llama2 (Dollar Street excluded)",
                   .criterion = h::AtLeast(0.0, "baichuan2 gain - llama2 gain")},
                  ChinesePromptsHelpBaichuan);

CB_REGISTER_CLAIM(kF4,
                  {.id = "vlmbias.F4", .section = "reviews (exception)",
                   .statement = "[CPU only; needs a generation file] Chinese prompts worsen Dollar Street bias",
                   .paper_value = "ratio(zh) > ratio(en) on Dollar Street (reviewer)",
                   .metric = "largest ratio(en) - ratio(zh) on Dollar Street over models [95% CI]",
                   .criterion = h::AtMost(0.0, "ratio(en) - ratio(zh), 95% CI")},
                  ChinesePromptsWorsenDollar);

}  // namespace
}  // namespace cb::vlmbias
