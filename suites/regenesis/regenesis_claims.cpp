// File: suites/regenesis/regenesis_claims.cpp
// -----------------------------------------------------------------------------
// Claims of ReGenesis (Peng et al., "ReGenesis: LLMs can Grow into Reasoning
// Generalists via Self-Improvement", ICLR 2025); ids, criteria and settings
// in suites/regenesis/README.md. CPU only: the model is an endpoint or the
// user's prediction files.
//   S1-S3  prerequisites, on simulated generations and our generator: the
//          filter and the vote against the simulation's truth, the standard
//          extraction rule on outputs of known accuracy, the generator's
//          answers
//   R1-R4  the paper's numbers, recomputed from prediction files named by
//          CLAIMBENCH_REGENESIS_BEFORE / _AFTER / _BASELINE_AFTER (README
//          "Prediction files"); UNMEASURABLE without them.
// Criteria were fixed before the first run (the ±0.1 pp is the issue's).
#include <algorithm>
#include <cmath>
#include <functional>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "generators/reasoning.h"
#include "harness/claim.h"
#include "harness/hash.h"
#include "harness/random.h"
#include "harness/stats.h"
#include "harness/strings.h"
#include "reference/regenesis/extract.h"
#include "reference/regenesis/scores.h"
#include "reference/regenesis/vote.h"
#include "suites/regenesis/regenesis_eval.h"

namespace cb::regenesis {
namespace {

namespace h = cb::harness;
namespace gr = cb::gen::reasoning;

CB_CLAIM_DEFAULTS({.paper = "ReGenesis (Peng et al.)",
                   .paper_setting = "Mistral-7B-Instruct-v0.3 fine-tuned on self-synthesised paths of one in-domain "
                                    "set at a time; in-domain GSM8K, NumGLUE, ARC-c, ReClor, StrategyQA; OOD ASDiv, "
                                    "SVAMP, AQuA, OpenBookQA (+2, unverified: BBH, ANLI)",
                   .cpu_only = true});

void Exact(h::ClaimContext& ctx, const std::string& case_name, const nlohmann::json& p, const std::string& metric,
           const std::string& unit, double v, int64_t n, const std::string& direction = "none") {
  ctx.RecordExact({.case_name = case_name, .backend = "cpu", .params = p, .metric = metric, .unit = unit,
                   .direction = direction, .value = v, .n = n, .input_hash = h::Xxh3_128(p.dump()).Hex(),
                   .output_hash = h::HashDoubles({v}).Hex()});
}

// One simulated sample: a path whose answer is right with probability
// p_right, else one of four wrong answers, or no answer; some paths repeat the
// previous one verbatim (up to case and spacing).
struct SimPath {
  std::string text;
  std::optional<std::string> answer;  // the truth of what it says
  bool duplicate = false;             // planted as a copy of the previous path
};

std::vector<SimPath> SimulateSamples(h::Rng& rng, long long gold, int k, double p_right) {
  std::vector<SimPath> out;
  for (int s = 0; s < k; ++s) {
    if (s > 0 && rng.Uniform() < 0.15) {  // a duplicate, re-spaced and re-cased
      SimPath d = out.back();
      std::string t;
      for (char c : d.text) t += (c == ' ') ? std::string("  ") : std::string(1, static_cast<char>(std::toupper(c)));
      d.text = t;
      d.duplicate = true;
      out.push_back(d);
      continue;
    }
    const double u = rng.Uniform();
    const long long wrong[] = {gold + 1, gold - 1, gold + 10, 2 * gold};
    SimPath p;
    const std::string steps = "Step " + std::to_string(rng.UniformInt(1, 1000000)) + ": working it out.";
    if (u < p_right) p.answer = std::to_string(gold);
    else if (u < 0.9) p.answer = std::to_string(wrong[rng.UniformInt(0, 3)]);
    p.text = p.answer ? steps + " The answer is " + *p.answer + "." : steps + " I am not sure.";
    out.push_back(p);
  }
  return out;
}

// S1: the filter keeps exactly the right, distinct paths; the majority vote
// beats a single sample when the right answer is the most likely one.
h::Outcome FilterAndVote(h::ClaimContext& ctx) {
  const int items = ctx.ByProfile(300, 3000, 20000), k = 8;
  const double p_right = 0.45;
  h::Rng rng(ctx.seed(), 0x7265676eull);
  int mismatches = 0, kept = 0, dups = 0, truth_dups = 0;
  std::vector<double> gain;  // per item: vote right - first sample right
  for (int i = 0; i < items; ++i) {
    const long long gold = static_cast<long long>(rng.UniformInt(2, 500));
    const auto sim = SimulateSamples(rng, gold, k, p_right);
    std::vector<std::string> texts;
    for (const auto& s : sim) texts.push_back(s.text);
    // Truth, from the simulation: the right paths that are not planted copies.
    int right_unique = 0;
    for (const auto& s : sim) {
      truth_dups += s.duplicate;
      right_unique += !s.duplicate && s.answer && *s.answer == std::to_string(gold);
    }
    const auto f = rr::FilterPaths(texts, std::to_string(gold), rr::Family::kNumber);
    mismatches += static_cast<int>(f.kept.size()) != right_unique;
    kept += static_cast<int>(f.kept.size());
    dups += f.duplicates;
    std::vector<std::optional<std::string>> answers;
    for (const auto& t : texts) answers.push_back(rr::ExtractAnswer(t, rr::Family::kNumber));
    const auto v = rr::MajorityVote(answers);
    gain.push_back(100.0 * ((v.answer && *v.answer == std::to_string(gold)) -
                            (answers[0] && *answers[0] == std::to_string(gold))));
  }
  double mean = 0;
  for (double g : gain) mean += g;
  mean /= gain.size();
  const h::Interval ci = h::MeanBootstrapCi(gain, ctx.seed(), 0.95, ctx.ByProfile(500, 2000, 2000));
  const nlohmann::json p = {{"items", items}, {"samples", k}, {"p_right", p_right}, {"p_duplicate", 0.15}};
  Exact(ctx, "filter_vote", p, "filter_mismatches", "count", mismatches, items, "lower");
  Exact(ctx, "filter_vote", p, "kept_paths", "count", kept, items);
  Exact(ctx, "filter_vote", p, "duplicates_found_minus_truth", "count", dups - truth_dups, items);
  ctx.RecordEstimate({.case_name = "filter_vote", .backend = "cpu", .params = p, .metric = "vote_gain_over_one_sample",
                      .unit = "pp", .direction = "higher", .value = mean, .ci_low = ci.low, .ci_high = ci.high,
                      .n = items, .input_hash = h::Xxh3_128(p.dump()).Hex(), .output_hash = h::HashDoubles({mean}).Hex()});
  return ctx.Judge({h::Estimate::Exact(mismatches), h::Estimate::Exact(dups - truth_dups),
                    h::Estimate::Ci(mean, ci.low, ci.high, h::IntervalMethod::kPercentileBootstrap, items)},
                   h::StrFormat("%d simulated items x %d samples (right 45%%, 4 wrong answers 45%%, no answer 10%%, "
                                "15%% re-cased duplicates); %d paths kept; vote gain %.1f pp [%.1f, %.1f]",
                                items, k, kept, mean, ci.low, ci.high));
}

// S2: accuracy under each extraction rule on outputs in five styles; the
// standard rule recovers the truth, the others are off by what they miss.
h::Outcome ExtractionRules(h::ClaimContext& ctx) {
  const int items = ctx.ByProfile(500, 5000, 20000);
  h::Rng rng(ctx.seed(), 0x65787472ull);
  std::map<std::string, int> right;  // rule -> right count
  int truth = 0;
  for (int i = 0; i < items; ++i) {
    const long long gold = static_cast<long long>(rng.UniformInt(10, 999));
    const bool correct = rng.Uniform() < 0.6;
    const long long said = correct ? gold : gold + static_cast<long long>(rng.UniformInt(1, 9));
    const int a = static_cast<int>(rng.UniformInt(2, 9)), style = static_cast<int>(rng.UniformInt(0, 4));
    std::string text;
    switch (style) {
      case 0: text = h::StrFormat("First %d items, then more. The answer is %lld.", a, said); break;
      case 1: text = h::StrFormat("We add %d and get the total.\n#### %lld", a, said); break;
      case 2: text = h::StrFormat("So the total is %lld.", said); break;  // unmarked: last number
      case 3: text = h::StrFormat("The answer is %lld. Check: %d groups fit.", said, a); break;  // a number after it
      case 4:  // a dollar amount with a thousands comma
        text = said >= 1000 ? h::StrFormat("Total: $%lld,%03lld", said / 1000, said % 1000)
                            : h::StrFormat("Total: $%lld", said);
        break;
    }
    truth += correct;
    for (rr::Rule r : rr::kAllRules) {
      const auto got = rr::ExtractAnswer(text, rr::Family::kNumber, r);
      right[rr::RuleName(r)] += got && *got == std::to_string(gold);
    }
  }
  const double t = 100.0 * truth / items;
  const nlohmann::json p = {{"items", items}, {"styles", "marked, ####, unmarked, marked+trailing number, $"}};
  std::string setting = h::StrFormat("%d outputs in 5 styles, 60%% right; true accuracy %.2f%%;", items, t);
  double err_standard = 0;
  for (rr::Rule r : rr::kAllRules) {
    const double acc = 100.0 * right[rr::RuleName(r)] / items;
    nlohmann::json pr = p;
    pr["rule"] = rr::RuleName(r);
    Exact(ctx, "extraction_rules", pr, "accuracy", "%", acc, items, "higher");
    Exact(ctx, "extraction_rules", pr, "accuracy_minus_truth", "pp", acc - t, items);
    if (r == rr::Rule::kStandard) err_standard = acc - t;
    setting += h::StrFormat(" %s %.2f%%", rr::RuleName(r), acc);
  }
  return ctx.Judge({h::Estimate::Exact(err_standard)}, setting);
}

// S3: every generated item's answer follows from it: each "x op y = z" in a
// rationale holds and the rationale ends in the answer; order and compare
// answers match a brute-force solution of the stated comparisons.
h::Outcome GeneratorAnswers(h::ClaimContext& ctx) {
  const int n = ctx.ByProfile(300, 3000, 20000);
  const auto items = gr::Generate({.seed = ctx.seed(), .arith = n, .order = n, .compare = n});
  const std::regex eq(R"((-?\d+) ([-+*/]) (-?\d+) = (-?\d+))"), fact(R"((\w+) is taller than (\w+)\.)");
  int bad = 0, checked_eqs = 0;
  for (const auto& it : items) {
    const auto fin = rr::ExtractAnswer(it.rationale, *rr::ParseFamily(it.family));
    bool ok = fin && *fin == it.answer;
    if (it.task == "arith") {
      for (std::sregex_iterator m(it.rationale.begin(), it.rationale.end(), eq), e; m != e; ++m) {
        const long long x = std::stoll((*m)[1]), y = std::stoll((*m)[3]), z = std::stoll((*m)[4]);
        const char op = (*m)[2].str()[0];
        const long long v = op == '+' ? x + y : op == '-' ? x - y : op == '*' ? x * y : (y && x % y == 0 ? x / y : -1);
        ok = ok && v == z && z >= 0;
        ++checked_eqs;
      }
    } else {
      // Brute force: rank = how many people are (transitively) shorter.
      std::map<std::string, std::vector<std::string>> shorter;
      for (std::sregex_iterator m(it.question.begin(), it.question.end(), fact), e; m != e; ++m)
        shorter[(*m)[1]].push_back((*m)[2]);
      std::function<int(const std::string&)> below = [&](const std::string& p) {
        int b = 0;
        for (const auto& q : shorter[p]) b = std::max(b, 1 + below(q));
        return b;
      };
      if (it.task == "order") {
        const bool tallest = it.question.find("tallest") != std::string::npos;
        std::string best;
        for (const auto& o : it.options)
          if (best.empty() || (tallest ? below(o) > below(best) : below(o) < below(best))) best = o;
        const size_t pos = std::find(it.options.begin(), it.options.end(), best) - it.options.begin();
        ok = ok && it.answer == std::string(1, static_cast<char>('A' + pos));
      } else {
        const std::regex q(R"(Is (\w+) taller than (\w+)\?)");
        std::smatch m;
        ok = ok && std::regex_search(it.question, m, q) &&
             it.answer == (below(m[1]) > below(m[2]) ? "yes" : "no");
      }
    }
    bad += !ok;
  }
  const std::string hash = gr::ContentHash(items), again = gr::ContentHash(gr::Generate({.seed = ctx.seed(), .arith = n, .order = n, .compare = n}));
  const nlohmann::json p = {{"per_task", n}, {"generator_version", gr::kReasoningVersion}};
  Exact(ctx, "generator", p, "items_with_a_wrong_answer", "count", bad, static_cast<int64_t>(items.size()), "lower");
  Exact(ctx, "generator", p, "identical_content_hash", "bool", hash == again, 2);
  return ctx.Judge({h::Estimate::Exact(bad), h::Estimate::Check(hash == again)},
                   h::StrFormat("%zu items (arith, order, compare x %d), %d rationale equations checked; content hash %s",
                                items.size(), n, checked_eqs, hash.c_str()));
}

// R1-R4 read the user's prediction files.
struct Files {
  std::string error, setting;
  std::optional<DeltaReport> main, baseline;
  std::vector<h::ClaimInput> inputs;  // each file read, with its content hash: the verdict's scale is `real`
};

std::string Slurp(const char* var, std::string* error, std::vector<h::ClaimInput>* inputs) {
  const char* p = std::getenv(var);
  if (p == nullptr || *p == '\0') {
    *error = std::string("no prediction file: set ") + var + " (suites/regenesis/README.md)";
    return "";
  }
  std::ifstream in(p, std::ios::binary);
  if (!in) {
    *error = std::string(var) + "=" + p + ": cannot read";
    return "";
  }
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  inputs->push_back({.role = "predictions", .name = std::string(var) + "=" + std::filesystem::path(p).filename().string(),
                     .content_hash = h::Xxh3_128(text).Hex()});
  return text;
}

Files LoadFiles(bool need_baseline) {
  Files f;
  const std::string before = Slurp("CLAIMBENCH_REGENESIS_BEFORE", &f.error, &f.inputs);
  if (!f.error.empty()) return f;
  const std::string after = Slurp("CLAIMBENCH_REGENESIS_AFTER", &f.error, &f.inputs);
  if (!f.error.empty()) return f;
  try {
    const auto b = ParsePredictions(before, std::getenv("CLAIMBENCH_REGENESIS_BEFORE"));
    f.main = Compare(b, ParsePredictions(after, std::getenv("CLAIMBENCH_REGENESIS_AFTER")), rr::DefaultInDomainTasks(),
                     rr::DefaultOodTasks());
    if (need_baseline) {
      const std::string base = Slurp("CLAIMBENCH_REGENESIS_BASELINE_AFTER", &f.error, &f.inputs);
      if (!f.error.empty()) return f;
      f.baseline = Compare(b, ParsePredictions(base, std::getenv("CLAIMBENCH_REGENESIS_BASELINE_AFTER")),
                           rr::DefaultInDomainTasks(), rr::DefaultOodTasks());
    }
  } catch (const std::exception& e) {
    f.error = e.what();
  }
  return f;
}

void RecordRules(h::ClaimContext& ctx, const DeltaReport& r, const std::string& which) {
  for (const auto& rule : r.rules) {
    const nlohmann::json p = {{"files", which}, {"rule", rr::RuleName(rule.rule)}};
    if (rule.deltas.ood) Exact(ctx, "user_files", p, "ood_mean_delta", "pp", *rule.deltas.ood, rule.deltas.ood_tasks);
    if (rule.deltas.in_domain)
      Exact(ctx, "user_files", p, "in_domain_mean_delta", "pp", *rule.deltas.in_domain, rule.deltas.in_domain_tasks);
  }
}

std::string RulesText(const DeltaReport& r, bool ood) {
  std::string s;
  for (const auto& rule : r.rules) {
    const auto& v = ood ? rule.deltas.ood : rule.deltas.in_domain;
    s += h::StrFormat(" %s %s;", rr::RuleName(rule.rule), v ? h::StrFormat("%+.2f", *v).c_str() : "-");
  }
  return s;
}

h::Outcome Delta(h::ClaimContext& ctx, bool baseline, bool ood) {
  const Files f = LoadFiles(baseline);
  if (!f.error.empty()) return h::Unmeasurable(f.error);
  for (const auto& in : f.inputs) ctx.UseInput(in);
  const DeltaReport& r = baseline ? *f.baseline : *f.main;
  RecordRules(ctx, r, baseline ? "before+baseline_after" : "before+after");
  const auto& d = r.rules[0].deltas;
  const auto& v = ood ? d.ood : d.in_domain;
  if (!v) return h::Unmeasurable(std::string("the files share no ") + (ood ? "OOD" : "in-domain") + " task");
  return ctx.Judge({h::Estimate::Exact(*v)},
                   h::StrFormat("%d %s tasks in both files, standard rule; by rule:%s", ood ? d.ood_tasks : d.in_domain_tasks,
                                ood ? "OOD" : "in-domain", RulesText(r, ood).c_str()));
}

h::Outcome Gsm8k(h::ClaimContext& ctx) {
  const Files f = LoadFiles(false);
  if (!f.error.empty()) return h::Unmeasurable(f.error);
  for (const auto& in : f.inputs) ctx.UseInput(in);
  const auto& after = f.main->rules[0].after;
  const auto it = after.find("gsm8k");
  if (it == after.end()) return h::Unmeasurable("CLAIMBENCH_REGENESIS_AFTER has no gsm8k rows");
  Exact(ctx, "user_files", {{"task", "gsm8k"}, {"rule", "standard"}}, "accuracy_after", "%", it->second.Accuracy(),
        it->second.items, "higher");
  return ctx.Judge({h::Estimate::Exact(it->second.Accuracy())},
                   h::StrFormat("%d gsm8k items in CLAIMBENCH_REGENESIS_AFTER, standard rule", it->second.items));
}

CB_REGISTER_CLAIM(kS1,
                  {.id = "regenesis.S1", .kind = h::ClaimKind::kPrerequisite, .section = "§3 (filtering), brief §8(c)",
                   .statement = "the exact-match filter keeps exactly the right distinct paths, and the "
                                "self-consistency vote beats a single sample",
                   .paper_value = "(mechanism: paths kept iff their answer matches the ground truth)",
                   .paper_setting = "ReGenesis step 5: keep paths matching the GT, or the majority without GT",
                   .metric = "filter mismatches against the simulation's truth",
                   .criterion = h::AllOf({h::Equals(0, "items where the filter keeps a different set"),
                                          h::Equals(0, "duplicates found - duplicates planted"),
                                          h::AtLeast(0.0, "vote gain over one sample, pp, 95% CI")})},
                  FilterAndVote);

CB_REGISTER_CLAIM(kS2,
                  {.id = "regenesis.S2", .kind = h::ClaimKind::kPrerequisite,
                   .section = "brief §8(e) (\"answer extraction dominates the scores\")",
                   .statement = "our standard extraction rule reads the answer of our simulated outputs in five "
                                "styles, which it was written to handle (so it holds by construction); the strict and first-number rules' errors are reported",
                   .paper_value = "(no code released; the paper's extraction rule is not stated)",
                   .paper_setting = "GSM8K-style outputs",
                   .metric = "standard-rule accuracy - true accuracy, pp",
                   .criterion = h::Equals(0, "standard-rule accuracy - true accuracy, pp")},
                  ExtractionRules);

CB_REGISTER_CLAIM(kS3,
                  {.id = "regenesis.S3", .kind = h::ClaimKind::kPrerequisite, .section = "(claimbench: generators/reasoning)",
                   .statement = "every procedural reasoning item's answer follows from its question, and "
                                "generation is deterministic",
                   .paper_value = "(construction property of our generator)",
                   .paper_setting = "arith / order / compare items",
                   .metric = "items whose answer does not check",
                   .criterion = h::AllOf({h::Equals(0, "items with a wrong answer"),
                                          h::Holds("the content hash repeats")})},
                  GeneratorAnswers);

CB_REGISTER_CLAIM(kR1,
                  {.id = "regenesis.R1", .section = "Table 3 (OOD)",
                   .statement = "ReGenesis improves OOD tasks: mean OOD delta +6.1 pp",
                   .paper_value = "+6.1% (prior methods -4.6%)",
                   .metric = "mean over OOD tasks of acc_after - acc_before, pp (standard rule)",
                   .criterion = h::Within(6.0, 6.2, "OOD mean delta, pp (paper +6.1 +- 0.1)")},
                  [](h::ClaimContext& ctx) { return Delta(ctx, false, true); });

CB_REGISTER_CLAIM(kR2,
                  {.id = "regenesis.R2", .section = "Table 3 (OOD, prior methods)",
                   .statement = "prior self-improvement methods lose OOD: -4.6 pp",
                   .paper_value = "-4.6% (STaR / LMSI-style baselines)",
                   .metric = "mean OOD delta of the baseline's after-file, pp (standard rule)",
                   .criterion = h::Within(-4.7, -4.5, "baseline OOD mean delta, pp (paper -4.6 +- 0.1)")},
                  [](h::ClaimContext& ctx) { return Delta(ctx, true, true); });

CB_REGISTER_CLAIM(kR3,
                  {.id = "regenesis.R3", .section = "Table 2 (in-domain)",
                   .statement = "in-domain tasks improve by +16.56 pp on average",
                   .paper_value = "+16.56% average over the five in-domain tasks",
                   .metric = "mean over in-domain tasks of acc_after - acc_before, pp (standard rule)",
                   .criterion = h::Within(16.46, 16.66, "in-domain mean delta, pp (paper 16.56 +- 0.1)")},
                  [](h::ClaimContext& ctx) { return Delta(ctx, false, false); });

CB_REGISTER_CLAIM(kR4,
                  {.id = "regenesis.R4", .section = "Table 2 (GSM8K)",
                   .statement = "GSM8K reaches 63.6% after ReGenesis (STaR 46.3%)",
                   .paper_value = "63.6 (STaR 46.3)",
                   .metric = "gsm8k accuracy of the after-file, % (standard rule)",
                   .criterion = h::Within(63.5, 63.7, "gsm8k accuracy after, % (paper 63.6 +- 0.1)")},
                  Gsm8k);

}  // namespace
}  // namespace cb::regenesis
