// File: suites/sgp/sgp_claims.cpp
// -----------------------------------------------------------------------------
// SGP-Bench claims (Qiu et al., "Can Large Language Models Understand Symbolic
// Graphics Programs?", ICLR 2025); ids, criteria and settings are listed in
// suites/sgp/README.md.
//   S1-S5  the benchmark's construction, checked on our generator:
//          determinism, renderer agreement under the invariance motions, the
//          raster oracle against every answer key, letter balance, and the
//          chance level of a random predictor
//   P1-P3  the paper's model numbers: UNMEASURABLE. Their criterion is the
//          paper's number +- 0.1 on SGP-Bench itself; with an endpoint
//          (CLAIMBENCH_ENDPOINT + CLAIMBENCH_MODEL) the model is run on our
//          procedural SVG (P1, P3) or CAD (P2) programs and its scores are
//          recorded, but those programs are not SGP-Bench's, so the verdict
//          stays UNMEASURABLE with that reason (issue 49).
// S1-S5 are prerequisites: checks of our generator and scorer.
// Criteria and thresholds were fixed before the first run (the 0.98 IoU and
// the 100% oracle agreement are the issue's); P1-P3's were replaced in issue
// 49 (their criterion_reason).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "generators/sgp.h"
#include "harness/claim.h"
#include "harness/hash.h"
#include "harness/random.h"
#include "harness/stats.h"
#include "harness/strings.h"
#include "reference/sgp/sgp.h"
#include "suites/sgp/sgp_checks.h"
#include "suites/sgp/sgp_eval.h"

namespace cb::sgp {
namespace {

namespace h = cb::harness;
namespace gs = cb::gen::sgp;
namespace rs = cb::ref::sgp;

CB_CLAIM_DEFAULTS({.paper = "SGP-Bench (Qiu et al.)", .paper_setting = "SGP-Bench SVG set"});

nlohmann::json Setting(const gs::Params& p) {
  nlohmann::json j = gs::CanonicalParams(p);
  j["generator_version"] = gs::kSgpVersion;
  return j;
}

// An accuracy in % with its Wilson 95% interval over the s.n questions.
h::Estimate Accuracy(const rs::Tally& s) {
  const h::Interval ci = h::WilsonInterval(double(s.correct), double(s.n));
  return h::Estimate::Ci(s.Accuracy(), 100 * ci.low, 100 * ci.high, h::IntervalMethod::kWilson, s.n);
}

void RecordValue(h::ClaimContext& ctx, const std::string& case_name, const std::string& metric,
                 const std::string& unit, double value, int64_t n, const nlohmann::json& params,
                 const std::string& output_hash, const std::string& direction = "higher") {
  ctx.RecordExact({.case_name = case_name, .backend = "cpu", .params = params, .metric = metric, .unit = unit,
                   .direction = direction, .value = value, .n = n, .input_hash = h::Xxh3_128(params.dump()).Hex(),
                   .output_hash = output_hash});
}

// S1: generating twice gives the same content hash (every split's rows).
h::Outcome Determinism(h::ClaimContext& ctx) {
  const gs::Params p{.seed = ctx.seed(), .count = ctx.ByProfile(200, 1000, 5000), .variants = 5};
  const std::string a = gs::ContentHash(gs::Generate(p)), b = gs::ContentHash(gs::Generate(p));
  RecordValue(ctx, "determinism", "identical_content_hash", "bool", a == b ? 1 : 0, p.count, Setting(p), a);
  return ctx.Judge({h::Estimate::Check(a == b)},
                   std::to_string(p.count) + " programs with 5 + 5 variants, generated twice; content hash " + a);
}

// S2: render(T.P) ~ T.render(P), IoU >= 0.98 for every variant; no drawing
// within 2 px of the border.
h::Outcome RendererAgreement(h::ClaimContext& ctx) {
  const gs::Params p{.seed = ctx.seed(), .count = ctx.ByProfile(20, 150, 1000), .variants = 5};
  const InvarianceReport rep = CheckInvariance(gs::Generate(p));
  const nlohmann::json params = Setting(p);
  std::vector<double> ious = rep.ious;
  std::sort(ious.begin(), ious.end());
  const std::string out = h::Xxh3_128(nlohmann::json(ious).dump()).Hex();
  RecordValue(ctx, "renderer_agreement", "min_iou_translation", "fraction", rep.min_iou_translated, rep.translated,
              params, out);
  RecordValue(ctx, "renderer_agreement", "min_iou_se2", "fraction", rep.min_iou_rotated, rep.rotated, params, out);
  RecordValue(ctx, "renderer_agreement", "median_iou", "fraction", ious[ious.size() / 2],
              static_cast<int64_t>(ious.size()), params, out);
  RecordValue(ctx, "renderer_agreement", "renders_touching_border", "count", rep.touching_border,
              p.count * 11, params, out, "lower");
  return ctx.Judge({h::Estimate::Exact(std::min(rep.min_iou_translated, rep.min_iou_rotated)),
                    h::Estimate::Exact(rep.touching_border)},
                   h::StrFormat("%d programs x (5 translated + 5 SE(2)) rendered by librsvg at 256x256; "
                                "min IoU T %.4f, SE(2) %.4f",
                                p.count, rep.min_iou_translated, rep.min_iou_rotated));
}

// S3: the raster oracle agrees with the answer key on every question it covers.
h::Outcome OracleAgreement(h::ClaimContext& ctx) {
  const gs::Params p{.seed = ctx.seed(), .count = ctx.ByProfile(40, 200, 1000), .variants = 5};
  const int cad = ctx.ByProfile(40, 300, 2400);
  OracleReport rep = CheckOracle(gs::Generate(p), /*with_variants=*/true);
  const OracleReport cad_rep = CheckCadOracle(gs::GenerateCad(ctx.seed(), cad));
  nlohmann::json params = Setting(p);
  params["cad_programs"] = cad;
  for (const auto& [subject, t] : cad_rep.by_subject) {
    nlohmann::json ps = params;
    ps["subject"] = subject;
    ps["set"] = "cad";
    RecordValue(ctx, "oracle_agreement", "agreement_fraction", "fraction",
                t.asked ? static_cast<double>(t.agreed) / t.asked : 0, t.asked, ps,
                h::Xxh3_128(std::to_string(t.agreed) + "/" + std::to_string(t.asked)).Hex());
  }
  for (const auto& [subject, t] : rep.by_subject) {
    nlohmann::json ps = params;
    ps["subject"] = subject;
    ps["set"] = "svg";
    RecordValue(ctx, "oracle_agreement", "agreement_fraction", "fraction",
                t.asked ? static_cast<double>(t.agreed) / t.asked : 0, t.asked, ps,
                h::Xxh3_128(std::to_string(t.agreed) + "/" + std::to_string(t.asked)).Hex());
  }
  const int asked = rep.total.asked + cad_rep.total.asked, agreed = rep.total.agreed + cad_rep.total.agreed;
  std::string setting = std::to_string(rep.total.asked) + " SVG Color/Count/Shape/Reasoning questions on " +
                        std::to_string(p.count) + " programs and their variants, " +
                        std::to_string(cad_rep.total.asked) + " CAD Count/Shape/Reasoning questions on " +
                        std::to_string(cad) + " three-view drawings (Semantics is not answerable from pixels)";
  for (const auto& problems : {rep.problems, cad_rep.problems}) {
    if (!problems.empty()) setting += "; first disagreement: " + problems.front();
  }
  // 100 * agreed / asked is exactly 100 iff agreed == asked > 0.
  return ctx.Judge({h::Estimate::Exact(asked ? 100.0 * agreed / asked : 0)}, setting);
}

// S4: answer letters uniform over A-D per subject (chi-square, 3 df).
h::Outcome LetterBalance(h::ClaimContext& ctx) {
  const gs::Params p{.seed = ctx.seed(), .count = ctx.ByProfile(500, 5000, 20000), .variants = 0};
  const gs::Dataset d = gs::Generate(p);
  std::map<std::string, std::array<int64_t, 4>> counts;
  for (const auto& prog : d.programs)
    for (const auto& q : prog.questions) ++counts[q.subject][static_cast<size_t>(q.answer)];
  double min_p = 1;
  for (const auto& [subject, c] : counts) {
    const double n = static_cast<double>(c[0] + c[1] + c[2] + c[3]);
    double chi2 = 0;
    for (int64_t k : c) chi2 += (k - n / 4) * (k - n / 4) / (n / 4);
    const double pv = h::ChiSquareSurvival(chi2, 3);
    min_p = std::min(min_p, pv);
    nlohmann::json ps = Setting(p);
    ps["subject"] = subject;
    RecordValue(ctx, "letter_balance", "chi_square_p", "p", pv, static_cast<int64_t>(n), ps,
                h::Xxh3_128(nlohmann::json(c).dump()).Hex());
  }
  return ctx.Judge({h::Estimate::Exact(min_p)},
                   std::to_string(p.count) + " programs; letters assigned in shuffled blocks of four per subject");
}

// S5: a uniformly random predictor scores 25%.
h::Outcome RandomChance(h::ClaimContext& ctx) {
  const gs::Params p{.seed = ctx.seed(), .count = ctx.ByProfile(2000, 10000, 50000), .variants = 0};
  const gs::Dataset d = gs::Generate(p);
  h::Rng rng(ctx.seed(), 0x5347505241ull);
  std::vector<rs::Prediction> preds;
  for (const auto& prog : d.programs)
    for (const auto& q : prog.questions)
      preds.push_back({q.subject, static_cast<char>('A' + q.answer),
                       std::string("Answer: ") + static_cast<char>('A' + rng.UniformInt(0, 3)), "svg", -1});
  const rs::Scores s = rs::Score(preds, rs::Mode::kStrict);
  const h::Estimate acc = Accuracy(s.overall);
  const nlohmann::json params = Setting(p);
  ctx.RecordEstimate({.case_name = "random_predictor", .backend = "cpu", .params = params, .metric = "accuracy",
                      .unit = "%", .value = acc.value, .ci_low = acc.ci_low, .ci_high = acc.ci_high,
                      .n = s.overall.n, .input_hash = h::Xxh3_128(params.dump()).Hex(),
                      .output_hash = h::Xxh3_128(std::to_string(s.overall.correct)).Hex()});
  return ctx.Judge({acc}, std::to_string(s.overall.n) + " questions, uniform random letters, strict scorer");
}

// P1, P3 (SVG) and P2 (CAD): the model on our programs, when an endpoint is configured.
h::Outcome ModelOnEndpoint(h::ClaimContext& ctx, bool cad) {
  const char* model = std::getenv("CLAIMBENCH_MODEL");
  if (model == nullptr || *model == '\0') {
    return h::Unmeasurable("CLAIMBENCH_ENDPOINT is set but CLAIMBENCH_MODEL (the model name) is not");
  }
  const EndpointEvalConfig c{.client = {.endpoint = std::getenv("CLAIMBENCH_ENDPOINT")}, .model = model,
                             .gen = {.seed = ctx.seed(), .count = ctx.ByProfile(10, 100, 1085), .variants = 0},
                             .svg = !cad, .cad_count = cad ? ctx.ByProfile(10, 100, 2400) : 0};
  const auto out = EvaluateEndpoint(c, nullptr, [&](int d, int n) { ctx.Progress(static_cast<double>(d) / n); });
  nlohmann::json params = Setting(c.gen);
  params["endpoint"] = c.client.endpoint;
  params["model"] = c.model;
  params["max_tokens"] = c.max_tokens;
  params["temperature"] = 0;
  params["set"] = cad ? "cad" : "svg";
  if (cad) params["cad_programs"] = c.cad_count;
  for (auto mode : {rs::Mode::kStrict, rs::Mode::kPaperCompatible})
    for (const auto& r : ScoreRows(mode == rs::Mode::kStrict ? out.strict : out.paper, mode, params, ""))
      r.ci_low ? ctx.RecordEstimate(r) : ctx.RecordExact(r);
  const auto& t = out.strict.scores.overall;
  const h::Estimate acc = Accuracy(t);
  // The rows above are what was measured; the paper's number is over SGP-Bench's own programs, which ours are
  // not (procedural shapes instead of its icons and CAD models), so nothing comparable exists to judge.
  return h::Unmeasurable(
      std::string("our procedural programs are not SGP-Bench; the paper's number needs the real benchmark (measured "
                  "here, recorded: ") +
          h::StrFormat("%.1f%% [%.1f, %.1f]", acc.value, *acc.ci_low, *acc.ci_high) + ")",
      std::string("model ") + model + " on " + std::to_string(t.n) + " questions of " +
          std::to_string(cad ? c.cad_count : c.gen.count) + (cad ? " procedural CAD" : " procedural SVG") +
          " programs, strict scorer; " + std::to_string(out.rows_failed) + " rows without an answer");
}

// P1-P3 are decided on SGP-Bench itself: the model's accuracy there (all questions of the set, so a number,
// not a sample) within 0.1 of the paper's, which it reports to one decimal (the ReGenesis claims' convention).
const char* kBenchmarkReason =
    "was Holds(..., INCONCLUSIVE), a verdict that could not change (issue 49 item 1); now the paper's number +- "
    "0.1 on SGP-Bench, and UNMEASURABLE on our procedural programs, which are not SGP-Bench";
const h::Requirements kEndpoint{.endpoint = true};

CB_REGISTER_CLAIM(kDeterminism,
                  {.id = "sgp.S1", .kind = h::ClaimKind::kPrerequisite, .section = "§3 (benchmark construction)",
                   .statement = "the generated benchmark is reproducible: same seed and version give identical "
                                "programs, questions and variants",
                   .paper_value = "(construction property; the release ships fixed files)",
                   .paper_setting = "SGP-Bench SVG set, 1,085 programs, 4,340 questions",
                   .metric = "1 if the content hash repeats",
                   .criterion = h::Holds("the content hash repeats")},
                  Determinism);

CB_REGISTER_CLAIM(kRenderer,
                  {.id = "sgp.S2", .kind = h::ClaimKind::kPrerequisite, .section = "§3 (invariance, baked coordinates)",
                   .statement = "translation and SE(2) variants baked into the coordinates draw the moved picture: "
                                "render(T.P) = T.render(P)",
                   .paper_value = "by construction (inv_t0..4, inv_r0..4 splits)",
                   .paper_setting = "SGP-Bench invariance splits",
                   .metric = "smallest mask IoU of render(T.P) vs T.render(P) over all variants",
                   .criterion = h::AllOf({h::AtLeast(0.98, "smallest IoU over all variants"),
                                          h::Equals(0, "renders drawing within 2 px of the border")})},
                  RendererAgreement);

CB_REGISTER_CLAIM(kOracle,
                  {.id = "sgp.S3", .kind = h::ClaimKind::kPrerequisite, .section = "§3 (human-checked questions)",
                   .statement = "every Color, Count, Shape and Reasoning answer follows from the rendered image "
                                "(SVG) or the three-view drawing (CAD)",
                   .paper_value = "GPT-4o-written questions, human-checked; 500-question human study",
                   .metric = "raster-oracle agreement with the answer key, %",
                   .criterion = h::Equals(100, "oracle agreement, %")},
                  OracleAgreement);

CB_REGISTER_CLAIM(kBalance,
                  {.id = "sgp.S4", .kind = h::ClaimKind::kPrerequisite, .section = "§3",
                   .statement = "the correct letter is uniform over A-D in every subject",
                   .paper_value = "(not stated; the brief asks for stratified letters)",
                   .metric = "smallest chi-square p-value over the 5 subjects",
                   .criterion = h::AtLeast(0.001 / 5, "smallest chi-square p (0.001 / 5, Bonferroni)")},
                  LetterBalance);

CB_REGISTER_CLAIM(kChance,
                  {.id = "sgp.S5", .kind = h::ClaimKind::kPrerequisite, .section = "Table 1 (random choice)",
                   .statement = "our strict scorer gives uniform random letters on our 4-option questions 25% "
                                "(a check of the scorer and the answer key: it holds by construction)",
                   .paper_value = "random choice 25.9 (SVG), 25.1 (CAD)",
                   .paper_setting = "SGP-Bench, 4 options",
                   .metric = "accuracy of uniform random letters, % [Wilson 95%]",
                   .criterion = h::Within(22.5, 27.5, "accuracy, Wilson 95% CI")},
                  RandomChance);

CB_REGISTER_CLAIM(kClaudeSvg,
                  {.id = "sgp.P1", .section = "Table 1 (SVG)",
                   .statement = "Claude 3.5 Sonnet leads SGP-Bench's SVG set",
                   .paper_value = "67.4 (Semantics 50.5, Count 58.4, Color 89.1, Shape 75.8, Reasoning 52.7); "
                                  "Llama-3.1-405B 58.0, Llama-3.1-8B 46.5",
                   .paper_setting = "SGP-Bench SVG, 4,340 questions, temperature 0, simple-evals extraction",
                   .metric = "accuracy, % on SGP-Bench SVG (strict scorer)",
                   .criterion = h::Within(67.3, 67.5, "accuracy on SGP-Bench SVG, % (paper 67.4 +- 0.1)"),
                   .criterion_reason = kBenchmarkReason,
                   .requirements = kEndpoint},
                  [](h::ClaimContext& ctx) { return ModelOnEndpoint(ctx, false); });

CB_REGISTER_CLAIM(kClaudeCad,
                  {.id = "sgp.P2", .section = "Table 2 (CAD)",
                   .statement = "Claude 3.5 Sonnet leads SGP-Bench's CAD set",
                   .paper_value = "74.2 (3D 76.9 / 3D-recon 72.7 / 2D 71.7); GPT-4o-0513 73.3, Qwen-2-72B 69.2; "
                                  "random 25.1",
                   .paper_setting = "SGP-Bench CAD, 2,400 questions",
                   .metric = "accuracy, % on SGP-Bench CAD (strict scorer)",
                   .criterion = h::Within(74.1, 74.3, "accuracy on SGP-Bench CAD, % (paper 74.2 +- 0.1)"),
                   .criterion_reason = kBenchmarkReason,
                   .requirements = kEndpoint},
                  [](h::ClaimContext& ctx) { return ModelOnEndpoint(ctx, true); });

CB_REGISTER_CLAIM(kGpt4o,
                  {.id = "sgp.P3", .section = "Table 1 (SVG)",
                   .statement = "GPT-4o scores second on the SVG set",
                   .paper_value = "GPT-4o-0806 64.8",
                   .paper_setting = "SGP-Bench SVG, 4,340 questions, temperature 0",
                   .metric = "accuracy, % on SGP-Bench SVG (strict scorer)",
                   .criterion = h::Within(64.7, 64.9, "accuracy on SGP-Bench SVG, % (paper 64.8 +- 0.1)"),
                   .criterion_reason = kBenchmarkReason,
                   .requirements = kEndpoint},
                  [](h::ClaimContext& ctx) { return ModelOnEndpoint(ctx, false); });

}  // namespace
}  // namespace cb::sgp
