// File: suites/vlmbias/vlmbias_claims.cpp
// -----------------------------------------------------------------------------
// Claims of "See It from My Perspective: How Language Affects Cultural Bias
// in Image Understanding" (Ananthram et al., ICLR 2025); ids, criteria and
// settings in suites/vlmbias/README.md. CPU only.
//   B1-B2  prerequisites: the statistics and the parser, checked on simulated
//          generations: a random predictor's ratio, parse_selection's seeded
//          determinism
//   F1-F4  the paper's findings: UNMEASURABLE unless a generation file is
//          named by CLAIMBENCH_VLMBIAS_PREDICTIONS (README "File format");
//          with one, measured on it, each with a bootstrap interval over the
//          file's items.
// Criteria were fixed before the first run; B1's, F2's and F3's were changed
// in issue 49 (their criterion_reason).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "harness/claim.h"
#include "harness/hash.h"
#include "harness/random.h"
#include "harness/stats.h"
#include "harness/strings.h"
#include "suites/vlmbias/vlmbias_eval.h"

namespace cb::vlmbias {
namespace {

namespace h = cb::harness;

CB_CLAIM_DEFAULTS({.paper = "See It from My Perspective (Ananthram et al.)",
                   .paper_setting = "A-OKVQA / CVQA, ArtELingo, Dollar Street; LLaVA-1.5, BLIP2, mBLIP, Qwen-VL, "
                                    "mLLaVA (Llama2 / Baichuan2 bases); prompts in English and Chinese",
                   .cpu_only = true});

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

// B1: a random predictor has ratio 1 (its CI within 1 +- 10%); with 2
// East-Asian options against 4 West ones its ratio is 0.5 (within 0.5 +- 10%).
// An equivalence band, not "the CI contains 1": that passes more easily the
// fewer items there are.
h::Outcome RandomPredictor(h::ClaimContext& ctx) {
  const int n = ctx.ByProfile(400, 20000, 20000), resamples = ctx.ByProfile(300, 2000, 2000);
  const Report eq = Evaluate(Simulate(ctx.seed(), n, 4, 4, 0.6, 0.2), ctx.seed(), resamples);
  const Report uneq = Evaluate(Simulate(ctx.seed() + 1, n, 4, 2, 0.6, 0.2), ctx.seed(), resamples);
  const auto& a = eq.groups.at(0).bias;
  const auto& b = uneq.groups.at(0).bias;
  nlohmann::json p = {{"items_per_region", n}, {"resamples", resamples}, {"p_mention", 0.6}, {"p_digit", 0.2}};
  p["options"] = "4/4";
  RecordGroup(ctx, "random_predictor", eq.groups[0], p);
  p["options"] = "4/2";
  RecordGroup(ctx, "random_predictor", uneq.groups[0], p);
  // The bootstrap resamples each region's items: n per region.
  return ctx.Judge(
      {h::Estimate::Ci(a.ratio, a.ratio_ci.low, a.ratio_ci.high, h::IntervalMethod::kPercentileBootstrap,
                       std::min(a.n_west, a.n_east)),
       h::Estimate::Ci(b.ratio, b.ratio_ci.low, b.ratio_ci.high, h::IntervalMethod::kPercentileBootstrap,
                       std::min(b.n_west, b.n_east))},
      h::StrFormat("%d items per region, uniform random answers (60%% name an option, 20%% a digit, 20%% nothing: "
                   "random fallback %.1f%%), %d stratified resamples; 4/4 options: perf %.3f / %.3f, ratio %.3f "
                   "[%.3f, %.3f]; 4/2 options: ratio %.3f [%.3f, %.3f]",
                   n, 100 * eq.groups[0].FallbackRate(), resamples, a.west, a.east, a.ratio, a.ratio_ci.low,
                   a.ratio_ci.high, b.ratio, b.ratio_ci.low, b.ratio_ci.high));
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
  std::string path, error, content_hash;
  std::vector<Row> rows;
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
    u.content_hash = h::Xxh3_128(ss.str()).Hex();
    u.rows = ParseRows(ss.str(), u.path);
    u.report = Evaluate(u.rows, seed, resamples);
  } catch (const std::exception& e) {
    u.error = e.what();
  }
  return u;
}

// Notes the user's file on the verdict (its scale becomes `real`).
void UseFile(h::ClaimContext& ctx, const UserFile& u) {
  ctx.UseInput({.role = "predictions", .name = std::filesystem::path(u.path).filename().string(),
                .content_hash = u.content_hash});
}

bool IsDollar(const std::string& task) { return task == "dollar" || task == "dollarstreet"; }

h::Outcome EveryVlmWestern(h::ClaimContext& ctx) {
  const UserFile u = LoadUserFile(ctx.seed(), ctx.ByProfile(300, 2000, 2000));
  if (!u.error.empty()) return h::Unmeasurable(u.error);
  UseFile(ctx, u);
  const GroupReport* worst = nullptr;
  for (const auto& g : u.report.groups) {
    RecordGroup(ctx, "user_file", g, {{"task", g.task}, {"model", g.model}, {"prompt_lang", g.prompt_lang}});
    if (g.bias.ratio_defined && (!worst || g.bias.ratio_ci.low < worst->bias.ratio_ci.low)) worst = &g;
  }
  if (!worst) return h::Unmeasurable("no group in " + u.path + " has a defined ratio (East-Asian score 0)");
  const auto& b = worst->bias;
  return ctx.Judge({h::Estimate::Ci(b.ratio, b.ratio_ci.low, b.ratio_ci.high, h::IntervalMethod::kPercentileBootstrap,
                                    std::min(b.n_west, b.n_east))},
                   h::StrFormat("%s: %zu (task, model, prompt language) groups; lowest: %s/%s/%s perf %.3f / %.3f",
                                u.path.c_str(), u.report.groups.size(), worst->task.c_str(), worst->model.c_str(),
                                worst->prompt_lang.c_str(), b.west, b.east));
}

// F2 and F3 compare model families through several groups' ratios. Their
// interval: each task's units (item ids) are resampled within their strata
// (West only, East Asia only, both), as reference/vlmbias/bias.h does for one
// group, and one resample serves every group of the task, so what the groups
// share (the same items) cancels. The statistic is a function of the groups'
// ratios; a replicate in which a group that has a ratio on the data has none
// (no East-Asian success drawn) is dropped and counted.
using GroupId = std::tuple<std::string, std::string, std::string>;  // task, model, prompt language
using Ratios = std::map<GroupId, double>;

struct GroupStat {
  bool defined = false;  // the statistic exists on the data
  double value = 0;
  h::Interval ci;
  int64_t n = 0;         // the fewest observations of one region in one group that enters
  int replicates = 0, dropped = 0;
};

GroupStat BootstrapGroups(const std::vector<Row>& rows, const std::function<bool(const Row&)>& use,
                          const std::function<std::optional<double>(const Ratios&)>& stat, uint64_t seed,
                          int resamples) {
  struct Obs {
    size_t group;
    bool west;
    double value;
  };
  std::map<GroupId, size_t> index;
  std::vector<GroupId> groups;
  std::map<std::pair<std::string, std::string>, std::vector<Obs>> units;  // (task, id) -> observations
  for (const Row& r : rows) {
    if (!use(r)) continue;
    const GroupId g{r.task, r.model, r.prompt_lang};
    const auto [at, added] = index.emplace(g, groups.size());
    if (added) groups.push_back(g);
    units[{r.task, r.id}].push_back({at->second, r.region == rv::Region::kWest, ScoreRow(r, seed).value});
  }
  // Strata per task, in a fixed order: West only, East Asia only, both.
  std::map<std::string, std::array<std::vector<const std::vector<Obs>*>, 3>> strata;
  for (const auto& [key, obs] : units) {
    bool w = false, e = false;
    for (const Obs& o : obs) (o.west ? w : e) = true;
    strata[key.first][w && e ? 2 : (w ? 0 : 1)].push_back(&obs);
  }
  struct Sums {
    double west = 0, east = 0;
    int64_t n_west = 0, n_east = 0;
  };
  auto ratios = [&](const std::vector<Sums>& sums) {
    Ratios out;
    for (size_t g = 0; g < groups.size(); ++g) {
      const Sums& x = sums[g];
      if (x.n_west > 0 && x.n_east > 0 && x.east > 0) out[groups[g]] = (x.west / x.n_west) / (x.east / x.n_east);
    }
    return out;
  };
  auto add = [](std::vector<Sums>& sums, const std::vector<Obs>& obs) {
    for (const Obs& o : obs) {
      Sums& x = sums[o.group];
      (o.west ? x.west : x.east) += o.value;
      ++(o.west ? x.n_west : x.n_east);
    }
  };
  GroupStat out;
  std::vector<Sums> data(groups.size());
  for (const auto& [key, obs] : units) add(data, obs);
  const Ratios point = ratios(data);
  const std::optional<double> v = stat(point);
  if (!v) return out;
  out.defined = true;
  out.value = *v;
  out.n = std::numeric_limits<int64_t>::max();
  for (size_t g = 0; g < groups.size(); ++g)
    if (point.count(groups[g])) out.n = std::min({out.n, data[g].n_west, data[g].n_east});
  h::Rng rng(seed, 0x67726f7570ull);
  std::vector<double> reps;
  for (int b = 0; b < resamples; ++b) {
    std::vector<Sums> sums(groups.size());
    for (const auto& [task, st] : strata)
      for (const auto& stratum : st)
        for (size_t j = 0; j < stratum.size(); ++j) add(sums, *stratum[rng.UniformInt(0, stratum.size() - 1)]);
    // Exactly the groups that have a ratio on the data, so every replicate is the same statistic.
    const Ratios all = ratios(sums);
    Ratios r;
    for (const auto& [g, x] : point)
      if (const auto it = all.find(g); it != all.end()) r.emplace(g, it->second);
    const std::optional<double> x = r.size() == point.size() ? stat(r) : std::nullopt;
    if (x) reps.push_back(*x);
    else ++out.dropped;
  }
  out.replicates = static_cast<int>(reps.size());
  if (reps.empty()) out.ci = {-std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()};
  else out.ci = h::PercentileInterval(std::move(reps), 0.95);
  return out;
}

bool InFamily(const std::string& model, const std::string& family) { return model.find(family) != std::string::npos; }

// F2: mean ratio over the *baichuan2* groups minus over the *llama2* groups
// (every task and prompt language with a ratio on the data).
h::Outcome BaichuanLeastBiased(h::ClaimContext& ctx) {
  const int resamples = ctx.ByProfile(300, 2000, 2000);
  const UserFile u = LoadUserFile(ctx.seed(), resamples);
  if (!u.error.empty()) return h::Unmeasurable(u.error);
  UseFile(ctx, u);
  const auto mean_diff = [](const Ratios& r) -> std::optional<double> {
    double b = 0, l = 0;
    int kb = 0, kl = 0;
    for (const auto& [g, x] : r) {
      const std::string& model = std::get<1>(g);
      if (InFamily(model, "baichuan2")) b += x, ++kb;
      else if (InFamily(model, "llama2")) l += x, ++kl;
    }
    if (kb == 0 || kl == 0) return std::nullopt;
    return b / kb - l / kl;
  };
  const GroupStat d = BootstrapGroups(
      u.rows, [](const Row& r) { return InFamily(r.model, "baichuan2") || InFamily(r.model, "llama2"); }, mean_diff,
      ctx.seed(), resamples);
  if (!d.defined)
    return h::Unmeasurable(u.path + " has no rows of models named *baichuan2* and *llama2* (the mLLaVA variants) "
                                    "with a defined ratio");
  const nlohmann::json p = {{"resamples", resamples}};
  ctx.RecordEstimate({.case_name = "user_file", .backend = "cpu", .params = p,
                      .metric = "mean_ratio_baichuan2_minus_llama2", .unit = "ratio", .direction = "lower",
                      .value = d.value, .ci_low = d.ci.low, .ci_high = d.ci.high, .n = d.n,
                      .input_hash = h::Xxh3_128(p.dump()).Hex(), .output_hash = h::HashDoubles({d.value}).Hex()});
  return ctx.Judge({h::Estimate::Ci(d.value, d.ci.low, d.ci.high, h::IntervalMethod::kPercentileBootstrap, d.n)},
                   h::StrFormat("%s: mean ratio baichuan2 minus llama2 %.3f [%.3f, %.3f]; %d of %d replicates kept "
                                "(items resampled per task, shared by every group)",
                                u.path.c_str(), d.value, d.ci.low, d.ci.high, d.replicates, resamples));
}

// F3: mean over a family's (task, model) pairs of ratio(en) - ratio(zh),
// Dollar Street excluded: baichuan2's minus llama2's.
h::Outcome ChinesePromptsHelpBaichuan(h::ClaimContext& ctx) {
  const int resamples = ctx.ByProfile(300, 2000, 2000);
  const UserFile u = LoadUserFile(ctx.seed(), resamples);
  if (!u.error.empty()) return h::Unmeasurable(u.error);
  UseFile(ctx, u);
  const auto gain_diff = [](const Ratios& r) -> std::optional<double> {
    double b = 0, l = 0;
    int kb = 0, kl = 0;
    for (const auto& [g, x] : r) {
      const auto& [task, model, lang] = g;
      if (lang != "en") continue;
      const auto zh = r.find({task, model, "zh"});
      if (zh == r.end()) continue;
      if (InFamily(model, "baichuan2")) b += x - zh->second, ++kb;
      else if (InFamily(model, "llama2")) l += x - zh->second, ++kl;
    }
    if (kb == 0 || kl == 0) return std::nullopt;
    return b / kb - l / kl;
  };
  const GroupStat d = BootstrapGroups(
      u.rows,
      [](const Row& r) {
        return !IsDollar(r.task) && (r.prompt_lang == "en" || r.prompt_lang == "zh") &&
               (InFamily(r.model, "baichuan2") || InFamily(r.model, "llama2"));
      },
      gain_diff, ctx.seed(), resamples);
  if (!d.defined) return h::Unmeasurable(u.path + " has no baichuan2 and llama2 models prompted in both en and zh");
  const nlohmann::json p = {{"resamples", resamples}};
  ctx.RecordEstimate({.case_name = "user_file", .backend = "cpu", .params = p,
                      .metric = "zh_prompt_gain_baichuan2_minus_llama2", .unit = "ratio", .direction = "higher",
                      .value = d.value, .ci_low = d.ci.low, .ci_high = d.ci.high, .n = d.n,
                      .input_hash = h::Xxh3_128(p.dump()).Hex(), .output_hash = h::HashDoubles({d.value}).Hex()});
  return ctx.Judge({h::Estimate::Ci(d.value, d.ci.low, d.ci.high, h::IntervalMethod::kPercentileBootstrap, d.n)},
                   h::StrFormat("%s: mean ratio(en) - ratio(zh) outside Dollar Street, baichuan2 minus llama2 %.3f "
                                "[%.3f, %.3f]; %d of %d replicates kept (items resampled per task, shared by every "
                                "group)",
                                u.path.c_str(), d.value, d.ci.low, d.ci.high, d.replicates, resamples));
}

h::Outcome ChinesePromptsWorsenDollar(h::ClaimContext& ctx) {
  const UserFile u = LoadUserFile(ctx.seed(), ctx.ByProfile(300, 2000, 2000));
  if (!u.error.empty()) return h::Unmeasurable(u.error);
  UseFile(ctx, u);
  const DeltaReport* worst = nullptr;  // the largest en - zh delta: all must be < 0
  for (const auto& d : u.report.deltas)
    if (IsDollar(d.task) && d.delta.defined && (!worst || d.delta.delta > worst->delta.delta)) worst = &d;
  if (!worst) return h::Unmeasurable(u.path + " has no Dollar Street task (task \"dollar\") in both en and zh prompts");
  // The delta's bootstrap resamples the items of both prompt languages' groups: n is their fewest per region.
  int64_t n = std::numeric_limits<int64_t>::max();
  for (const auto& g : u.report.groups)
    if (g.task == worst->task && g.model == worst->model) n = std::min({n, g.bias.n_west, g.bias.n_east});
  return ctx.Judge({h::Estimate::Ci(worst->delta.delta, worst->delta.ci.low, worst->delta.ci.high,
                                    h::IntervalMethod::kPercentileBootstrap, n)},
                   u.path + ": Dollar Street, model " + worst->model + " (the largest ratio(en) - ratio(zh))");
}

CB_REGISTER_CLAIM(kRandom,
                  {.id = "vlmbias.B1", .kind = h::ClaimKind::kPrerequisite,
                   .section = "bias metric (reviews); brief §9(c)",
                   .statement = "our bias ratio gives a random predictor 1: its 95% CI lies within 1 +- 10% (and "
                                "within 0.5 +- 10% when East Asia has 2 options against 4)",
                   .paper_value = "1 means no bias (by definition)",
                   .paper_setting = "bias = perf_West / perf_EastAsia",
                   .metric = "bias ratio of uniform random answers [paired stratified bootstrap 95%]",
                   .criterion = h::AllOf({h::Within(0.9, 1.1, "ratio 95% CI, 4 and 4 options"),
                                          h::Within(0.45, 0.55, "ratio 95% CI, 4 and 2 options")}),
                   .criterion_setting = "400 / 20000 / 20000 simulated items per region (smoke / quick / full)",
                   .criterion_reason = "was Holds(CI contains 1), which passes more easily the fewer items there are "
                                       "(issue 49 item 1, as mtad.M1); now an equivalence band, quick raised from "
                                       "4000 to 20000 items so that its interval can lie within it"},
                  RandomPredictor);

CB_REGISTER_CLAIM(kParser,
                  {.id = "vlmbias.B2", .kind = h::ClaimKind::kPrerequisite, .section = "2_extract_mcvqa_artelingo_selections.py parse_selection",
                   .statement = "parse_selection is deterministic given the seed; the seed moves only the "
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
                   .statement = "every VLM does better on the Western split of "
                                "every task",
                   .paper_value = "Western bias (ratio > 1) for every model on every task",
                   .metric = "lowest bias ratio over (task, model, prompt language) [95% CI]",
                   .criterion = kAboveOne},
                  EveryVlmWestern);

CB_REGISTER_CLAIM(kF2,
                  {.id = "vlmbias.F2", .section = "§5 (tracing: base LLM)",
                   .statement = "bias drops most when the base LLM saw the "
                                "target language in pre-training (Baichuan2 below Llama2), even prompting in English",
                   .paper_value = "mLLaVA-Baichuan2 variants less biased than mLLaVA-Llama2 (qualitative)",
                   .metric = "mean ratio of *baichuan2* models minus *llama2* models [item bootstrap 95%]",
                   .criterion = h::AtMost(0.0, "mean ratio baichuan2 - llama2, 95% CI"),
                   .criterion_reason = "was judged on the point estimate, so it could never be INCONCLUSIVE (issue "
                                       "49 item 1); now on its bootstrap interval over the file's items"},
                  BaichuanLeastBiased);

CB_REGISTER_CLAIM(kF3,
                  {.id = "vlmbias.F3", .section = "§5 (prompt language)",
                   .statement = "Chinese prompts reduce bias mainly when the LLM "
                                "saw Chinese in pre-training",
                   .paper_value = "larger gain from Chinese prompts for Baichuan2 than Llama2 (qualitative)",
                   .metric = "mean ratio(en) - ratio(zh): baichuan2 minus llama2 (Dollar Street excluded) [item "
                             "bootstrap 95%]",
                   .criterion = h::AtLeast(0.0, "baichuan2 gain - llama2 gain, 95% CI"),
                   .criterion_reason = "was judged on the point estimate, so it could never be INCONCLUSIVE (issue "
                                       "49 item 1); now on its bootstrap interval over the file's items"},
                  ChinesePromptsHelpBaichuan);

CB_REGISTER_CLAIM(kF4,
                  {.id = "vlmbias.F4", .section = "reviews (exception)",
                   .statement = "Chinese prompts worsen Dollar Street bias",
                   .paper_value = "ratio(zh) > ratio(en) on Dollar Street (reviewer)",
                   .metric = "largest ratio(en) - ratio(zh) on Dollar Street over models [95% CI]",
                   .criterion = h::AtMost(0.0, "ratio(en) - ratio(zh), 95% CI")},
                  ChinesePromptsWorsenDollar);

}  // namespace
}  // namespace cb::vlmbias
