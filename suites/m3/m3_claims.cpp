// File: suites/m3/m3_claims.cpp
// M3's claims (suites/m3/README.md has each with our setting):
//   M1  PSC: duplicates collapse, θ = 1 keeps the unique rows, the drop quirk
//       and order dependence (exact checks; counts on the scene's tokens)
//       [prerequisite]
//   M2  GMA's τ -> 0 limit stays within its bound; fp16 GMA within budget
//       [prerequisite: by construction]
//   M3  at the smaller parameter budget our widths fix (recorded, not
//       judged), M3's held-out cosine distance is comparable to a
//       full-feature field's, per feature extractor
//   M4  retrieval from M3's rendered features beats the full-feature field's
//   M5  grounding from M3's rendered features is at least the full-feature
//       field's
//   M6  the CUDA splatting (forward, backward) and GMA agree with fp64
//       [prerequisite]
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "harness/claim.h"
#include "harness/random.h"
#include "harness/seed_stats.h"
#include "harness/strings.h"
#include "reference/m3/gma.h"
#include "reference/m3/psc.h"
#include "suites/m3/field_experiment.h"
#include "suites/m3/m3.h"

namespace cb::m3 {
namespace {

namespace h = cb::harness;
namespace rm = cb::ref::m3;

CB_CLAIM_DEFAULTS({.paper = "M3 (Zou et al., ICLR 2025)",
                   .paper_setting = "3DGS scenes (Train, Geisel, Playroom, ...); CLIP / SigLIP / DINOv2 / SEEM / "
                                    "LLaMA features; 30k iterations, 2000 sampled pixels per step"});

FieldSetting SettingFor(const h::ClaimContext& ctx) {
  FieldSetting s;
  s.scene = {.canvas = ctx.ByProfile(48, 96, 128), .classes = 6, .objects = ctx.ByProfile(4, 8, 12),
             .view = ctx.ByProfile(24, 48, 64), .train_views = ctx.ByProfile(4, 16, 24),
             .test_views = ctx.ByProfile(4, 16, 24), .seed = ctx.seed()};
  s.width_scale = ctx.ByProfile(0.05, 0.25, 1.0);
  s.iterations = ctx.ByProfile(20, 300, 1000);
  s.sample_pixels = ctx.ByProfile(128, 512, 2000);
  s.seed = ctx.seed();
  return s;
}

int SeedsFor(const h::ClaimContext& ctx) { return ctx.ByProfile(2, 3, 5); }

const std::vector<FieldOutcome>& Runs(h::ClaimContext& ctx, const FieldSetting& s) {
  return SharedFieldRuns(s, SeedsFor(ctx), [&](double f) { ctx.Progress(f, "training M3 and F-3DGS fields"); });
}

h::MeanCi RecordMeanCi(h::ClaimContext& ctx, const std::string& name, const std::vector<double>& samples,
                       const std::string& unit = "1") {
  const h::MeanCi c = h::TMeanCi(samples);
  ctx.RecordEstimate({.case_name = name, .backend = "cpu", .metric = "mean_over_seeds", .unit = unit,
                      .value = c.mean, .ci_low = c.low, .ci_high = c.high, .n = c.n, .samples = samples});
  return c;
}

// A t-interval over the field seeds as a criterion's estimate (n = seeds).
h::Estimate Ci(const h::MeanCi& c) {
  return h::Estimate::Ci(c.mean, c.low, c.high, h::IntervalMethod::kStudentT, c.n);
}

// ---------------------------------------------------------------------------
// M1: PSC.

h::Outcome PscClaim(h::ClaimContext& ctx) {
  h::Rng rng(ctx.seed(), 1);
  int failed = 0;
  // (a) duplicates collapse: n unique random directions, each written 3
  // times at random scales, shuffled: θ = 0.999999 selects one row each.
  const int unique = ctx.ByProfile(20, 200, 1000), d = 32;
  std::vector<std::vector<double>> rows;
  for (int i = 0; i < unique; ++i) {
    std::vector<double> r(d);
    for (double& x : r) x = rng.Normal();
    for (int copy = 0; copy < 3; ++copy) {
      std::vector<double> c = r;
      const double scale = 0.5 + rng.Uniform();
      for (double& x : c) x *= scale;
      rows.push_back(c);
    }
  }
  rng.Shuffle(std::span<std::vector<double>>(rows));
  std::vector<double> flat;
  for (const auto& r : rows) flat.insert(flat.end(), r.begin(), r.end());
  const rm::PscResult dup = rm::PrincipalSceneComponents(flat.data(), int64_t(rows.size()), d, 0.999999);
  failed += int(dup.selected.size()) != unique || !dup.unrepresented.empty();
  ctx.RecordExact({.case_name = "duplicates", .backend = "cpu", .params = {{"unique", unique}, {"copies", 3}},
                   .metric = "selected", .value = double(dup.selected.size())});
  // (b) θ = 1 (less one part in 10^12, the fp64 self-cosine) keeps one row
  // per distinct direction: the same count again.
  const rm::PscResult one = rm::PrincipalSceneComponents(flat.data(), int64_t(rows.size()), d, 1.0 - 1e-12);
  failed += int(one.selected.size()) != unique;
  // (c) the drop quirk and order dependence on a hand-built chain (0°, 40°,
  // 80° at θ = cos 45°): in order, 80° is dropped and unrepresented; with 40°
  // first, nothing is.
  auto chain = [](std::initializer_list<double> degrees) {
    std::vector<double> out;
    for (double deg : degrees) out.push_back(std::cos(deg * M_PI / 180)), out.push_back(std::sin(deg * M_PI / 180));
    return out;
  };
  const auto in_order = chain({0, 40, 80}), reordered = chain({40, 0, 80});
  const rm::PscResult a = rm::PrincipalSceneComponents(in_order.data(), 3, 2, std::cos(M_PI / 4));
  const rm::PscResult b = rm::PrincipalSceneComponents(reordered.data(), 3, 2, std::cos(M_PI / 4));
  failed += !(a.unrepresented.size() == 1 && b.unrepresented.empty());
  // On the scene's tokens at the code's θ: memory size, drops and the same
  // tokens in reverse order (recorded; no direction asserted).
  const FieldSetting s = SettingFor(ctx);
  const gen::FeatureScene scene = gen::MakeFeatureScene(s.scene);
  std::string detail;
  for (const gen::Extractor& e : gen::StandInExtractors(s.width_scale, s.scene.classes, s.scene.seed)) {
    std::vector<double> tokens;
    for (const auto& v : scene.train_views) {
      const auto t = gen::ExtractTokens(e, scene, v);
      tokens.insert(tokens.end(), t.begin(), t.end());
    }
    const int64_t n = int64_t(tokens.size() / e.dim);
    std::vector<double> reversed;
    for (int64_t i = n - 1; i >= 0; --i) reversed.insert(reversed.end(), &tokens[i * e.dim], &tokens[(i + 1) * e.dim]);
    const double theta = PscThetaOf(e.name);
    const rm::PscResult fwd = rm::PrincipalSceneComponents(tokens.data(), n, e.dim, theta);
    const rm::PscResult rev = rm::PrincipalSceneComponents(reversed.data(), n, e.dim, theta);
    for (const auto& [order, r] : {std::pair{"forward", &fwd}, std::pair{"reversed", &rev}}) {
      const nlohmann::json params = {{"extractor", e.name}, {"dim", e.dim}, {"theta", theta}, {"order", order},
                                     {"tokens", n}, {"scene", scene.hash.Hex()}};
      ctx.RecordExact({.case_name = "scene_tokens", .backend = "cpu", .params = params, .metric = "memory_rows",
                       .value = double(r->selected.size())});
      ctx.RecordExact({.case_name = "scene_tokens", .backend = "cpu", .params = params, .metric = "dropped",
                       .value = double(r->dropped.size())});
      ctx.RecordExact({.case_name = "scene_tokens", .backend = "cpu", .params = params, .metric = "unrepresented",
                       .value = double(r->unrepresented.size())});
    }
    ctx.RecordExact({.case_name = "fp32_self_cosine_below_one", .backend = "cpu",
                     .params = {{"extractor", e.name}, {"tokens", n}}, .metric = "rows",
                     .value = double(rm::SelfCosineBelowOneF32(tokens.data(), n, e.dim))});
    detail += h::StrFormat("; %s (D %d, θ %.2f): %zu rows of %lld, %zu dropped, %zu unrepresented (reversed: %zu "
                           "rows, %zu unrepresented)",
                           e.name.c_str(), e.dim, theta, fwd.selected.size(), static_cast<long long>(n),
                           fwd.dropped.size(), fwd.unrepresented.size(), rev.selected.size(),
                           rev.unrepresented.size());
  }
  return ctx.Judge({h::Estimate::Exact(failed)},
                   h::StrFormat("%d unique directions x 3 scaled copies (d = %d), the 3-row chain", unique, d) +
                       detail);
}

CB_REGISTER_CLAIM(m1, {.id = "m3.M1",
                       .kind = h::ClaimKind::kPrerequisite,
                       .section = "§3.1, Alg. 1 (PSC)",
                       .statement = "Principal scene components collapse duplicate feature vectors into one memory "
                                    "row each; as the code runs it, a row whose similar set holds a used row is "
                                    "dropped, so the memory depends on the row order",
                       .paper_value = "memory banks of unique rows (Alg. 1); the drop is not described in the paper",
                       .metric = "failed exact checks (duplicates, θ = 1, drop chain)",
                       .criterion = h::AtMost(0, "failed checks")},
                  PscClaim);

// ---------------------------------------------------------------------------
// M2: GMA's sharp limit and fp16.

h::Outcome GmaLimitClaim(h::ClaimContext& ctx) {
  h::Rng rng(ctx.seed(), 2);
  const rm::GmaShape s{ctx.ByProfile(64, 1024, 4096), 16, 64, 24};
  auto normals = [&](size_t n) {
    std::vector<double> v(n);
    for (double& x : v) x = rng.Normal();
    return v;
  };
  const auto q = normals(size_t(s.pixels) * s.query), w = normals(size_t(s.query) * s.dim),
             m = normals(size_t(s.memory) * s.dim);
  int violations = 0;
  std::vector<double> out(size_t(s.pixels) * s.dim), bound(s.pixels);
  std::vector<int> arg(s.pixels);
  for (double tau : {0.05, 0.02, 0.01, 0.005}) {
    rm::GmaForward(s, q.data(), w.data(), m.data(), tau, out.data());
    rm::GmaArgmaxBound(s, q.data(), w.data(), m.data(), tau, bound.data(), arg.data());
    double worst_dist = 0, worst_bound = 0;
    for (int64_t p = 0; p < s.pixels; ++p) {
      double dist = 0;
      for (int k = 0; k < s.dim; ++k) dist += std::pow(out[p * s.dim + k] - m[size_t(arg[p]) * s.dim + k], 2);
      dist = std::sqrt(dist);
      violations += dist > bound[p] * (1 + 1e-9) + 1e-12;
      worst_dist = std::max(worst_dist, dist), worst_bound = std::max(worst_bound, bound[p]);
    }
    ctx.RecordExact({.case_name = "tau_limit", .backend = "cpu", .params = {{"tau", tau}, {"pixels", s.pixels}},
                     .metric = "max_distance_to_argmax_row", .direction = "lower", .value = worst_dist});
    ctx.RecordExact({.case_name = "tau_limit", .backend = "cpu", .params = {{"tau", tau}, {"pixels", s.pixels}},
                     .metric = "max_bound", .value = worst_bound});
  }
  std::vector<double> half(out.size());
  rm::GmaForward(s, q.data(), w.data(), m.data(), rm::kGmaTemperature, out.data());
  rm::GmaHalf(s, q.data(), w.data(), m.data(), rm::kGmaTemperature, half.data());
  double err = 0, mmax = 0;
  for (size_t i = 0; i < out.size(); ++i) err = std::max(err, std::abs(out[i] - half[i]));
  for (double x : m) mmax = std::max(mmax, std::abs(x));
  ctx.RecordExact({.case_name = "fp16", .backend = "cpu", .params = {{"tau", rm::kGmaTemperature}},
                   .metric = "max_abs_error_over_max_memory", .direction = "lower", .value = err / mmax});
  return ctx.Judge({h::Estimate::Exact(violations), h::Estimate::Exact(err / mmax)},
                   h::StrFormat("%lld pixels, c %d, D %d, K %d, N(0, 1) entries; τ 0.05, 0.02, 0.01, 0.005; fp16 "
                                "emulated (binary16 storage, fp32 sums) at τ 0.05",
                                static_cast<long long>(s.pixels), s.query, s.dim, s.memory));
}

CB_REGISTER_CLAIM(m2, {.id = "m3.M2",
                       .kind = h::ClaimKind::kPrerequisite,
                       .section = "§3.2 (GMA), xy_utils/memory.py",
                       .statement = "As τ -> 0, Gaussian memory attention returns the memory row of highest cosine, "
                                    "off by at most sum_j exp((cos_j - cos_k)/τ)|M_j - M_k|; the code's fp16 GMA "
                                    "agrees with fp64 within 4 half ulps of 1 over τ (of max |M|)",
                       .paper_value = "by construction (softmax with temperature 0.05, fp16 in index_to_raw)",
                       .metric = "pixels over the bound; fp16 max error / max |M|",
                       .criterion = h::AllOf({h::AtMost(0, "pixels over the bound, 4 temperatures"),
                                              h::AtMost(4 * 0.0009765625 / 0.05, "fp16 error / max |M|")})},
                  GmaLimitClaim);

// ---------------------------------------------------------------------------
// M3-M5: the trained fields.

void RecordFieldRuns(h::ClaimContext& ctx, const std::vector<FieldOutcome>& runs) {
  for (size_t k = 0; k < runs.size(); ++k) {
    const FieldOutcome& r = runs[k];
    for (const ExtractorOutcome& e : r.extractors) {
      const nlohmann::json params = {{"seed_offset", k}, {"extractor", e.name}, {"dim", e.dim},
                                     {"memory_rows", e.memory_rows}, {"query_channels", e.query_channels}};
      for (const auto& [method, dist] : {std::pair{"m3", &e.m3}, std::pair{"f3dgs", &e.f3dgs}}) {
        nlohmann::json p = params;
        p["method"] = method;
        ctx.RecordExact({.case_name = "held_out", .backend = "cpu", .params = p, .metric = "cosine_distance",
                         .direction = "lower", .value = dist->cosine, .n = dist->valid});
        ctx.RecordExact({.case_name = "held_out", .backend = "cpu", .params = p, .metric = "mse",
                         .direction = "lower", .value = dist->mse, .n = dist->valid});
      }
    }
  }
}

h::Outcome StorageClaim(h::ClaimContext& ctx) {
  const FieldSetting s = SettingFor(ctx);
  const std::vector<FieldOutcome>& runs = Runs(ctx, s);
  RecordFieldRuns(ctx, runs);
  std::vector<double> ratio;
  for (const FieldOutcome& r : runs) ratio.push_back(double(r.params_m3) / double(r.params_f3dgs));
  // The parameter ratio follows from the widths we chose (query channels,
  // memory rows, extractor dimensions), so it is recorded, not judged.
  const h::MeanCi rc = RecordMeanCi(ctx, "params_m3_over_f3dgs", ratio);
  std::vector<h::Estimate> measured;
  std::string detail;
  std::vector<double> worst_m3;  // per seed, M3's largest held-out cosine distance over the extractors
  for (const FieldOutcome& r : runs) {
    double w = 0;
    for (const ExtractorOutcome& e : r.extractors) w = std::max(w, e.m3.cosine);
    worst_m3.push_back(w);
  }
  for (size_t e = 0; e < runs[0].extractors.size(); ++e) {
    std::vector<double> diff;
    for (const FieldOutcome& r : runs) diff.push_back(r.extractors[e].m3.cosine - r.extractors[e].f3dgs.cosine);
    const std::string name = runs[0].extractors[e].name;
    const h::MeanCi c = RecordMeanCi(ctx, "cosine_distance_m3_minus_f3dgs_" + name, diff);
    measured.push_back(Ci(c));
    detail += h::StrFormat("; %s: M3 - F-3DGS %+.3f [%+.3f, %+.3f] (%s)", name.c_str(), c.mean, c.low, c.high,
                           c.high < 0 ? "M3 better" : c.low > 0 ? "M3 worse" : "no clear difference");
  }
  const h::MeanCi wc = RecordMeanCi(ctx, "cosine_distance_m3_worst_extractor", worst_m3);
  measured.push_back(Ci(wc));
  return ctx.Judge(measured, s.Describe() +
                                 h::StrFormat("; %d seeds; M3 / F-3DGS parameters %.3f (fixed by the widths, not "
                                              "judged); M3's worst held-out cosine distance %.3f",
                                              SeedsFor(ctx), rc.mean, wc.mean) +
                                 detail);
}

CB_REGISTER_CLAIM(m3, {.id = "m3.M3",
                       .section = "§4, Tables 1-2 (35M vs 61M)",
                       .statement = "With fewer parameters than a full-feature Gaussian field (F-3DGS), M3 reaches "
                                    "a comparable feature cosine distance for every foundation model (here the "
                                    "parameter ratio is fixed by the widths we chose: recorded, not judged)",
                       .paper_value = "35M vs 61M parameters; train-scene cosine distance M3 vs F-3DGS: CLIP .314 "
                                      "vs .333, SigLIP .281 vs .369 (better), DINOv2 .532 vs .379, SEEM .139 vs .106 "
                                      "(worse)",
                       .metric = "M3 / F-3DGS parameters (max over seeds); held-out cosine distance difference",
                       .criterion = h::AllOf({h::AtMost(0.153, "cos distance M3 - F-3DGS, CLIP stand-in, t-CI "
                                                               "(0.153: the paper's own largest gap, DINOv2)"),
                                              h::AtMost(0.153, "same, SigLIP stand-in"),
                                              h::AtMost(0.153, "same, DINOv2 stand-in"),
                                              h::Below(1, "M3's worst-extractor held-out cosine distance, t-CI "
                                                          "(1: rendering zeros)")}),
                       .criterion_setting = "width scale 0.05 / 0.25 / 1 (smoke / quick / full) of 768, 1152, 1536; "
                                            "query channels 16 / 32 / 32",
                       .criterion_reason = "issue 49: the parameter-ratio leaf held by the widths we chose, so it is "
                                           "recorded, not judged; an absolute leaf (M3 better than rendering zeros) "
                                           "added; the cosine leaves are unchanged"},
                  StorageClaim);

h::Outcome RetrievalClaim(h::ClaimContext& ctx) {
  const FieldSetting s = SettingFor(ctx);
  const std::vector<FieldOutcome>& runs = Runs(ctx, s);
  std::vector<double> i2t_m3, i2t_f3, i2t_raw, t2i_m3, t2i_f3, d_i2t, d_t2i;
  for (const FieldOutcome& r : runs) {
    i2t_m3.push_back(r.retrieval_m3.i2t1), i2t_f3.push_back(r.retrieval_f3dgs.i2t1);
    i2t_raw.push_back(r.retrieval_raw.i2t1);
    t2i_m3.push_back(r.retrieval_m3.t2i1), t2i_f3.push_back(r.retrieval_f3dgs.t2i1);
    d_i2t.push_back(r.retrieval_m3.i2t1 - r.retrieval_f3dgs.i2t1);
    d_t2i.push_back(r.retrieval_m3.t2i1 - r.retrieval_f3dgs.t2i1);
  }
  const h::MeanCi a = RecordMeanCi(ctx, "i2t1_m3", i2t_m3, "%"), b = RecordMeanCi(ctx, "i2t1_f3dgs", i2t_f3, "%"),
                  c = RecordMeanCi(ctx, "i2t1_raw", i2t_raw, "%");
  RecordMeanCi(ctx, "t2i1_m3", t2i_m3, "%");
  RecordMeanCi(ctx, "t2i1_f3dgs", t2i_f3, "%");
  const h::MeanCi di = RecordMeanCi(ctx, "i2t1_m3_minus_f3dgs", d_i2t, "%"),
                  dt = RecordMeanCi(ctx, "t2i1_m3_minus_f3dgs", d_t2i, "%");
  // Chance I2T@1: one caption of the test views' own plus 3x as many negatives.
  const double chance = 100.0 / (4.0 * s.scene.test_views);
  std::vector<double> over_chance;
  for (double x : i2t_m3) over_chance.push_back(x - chance);
  const h::MeanCi oc = RecordMeanCi(ctx, "i2t1_m3_minus_chance", over_chance, "%");
  return ctx.Judge({Ci(di), Ci(dt), Ci(oc)},
                   s.Describe() + h::StrFormat("; SigLIP stand-in, %d held-out views, 3x negatives; I2T@1 M3 %.1f, "
                                               "F-3DGS %.1f, raw %.1f, chance %.2f",
                                               s.scene.test_views, a.mean, b.mean, c.mean, chance));
}

CB_REGISTER_CLAIM(m4, {.id = "m3.M4",
                       .section = "§4, Table 2 (retrieval)",
                       .statement = "Image-text retrieval from M3's rendered features beats retrieval from the "
                                    "full-feature field's (I2T@1 and T2I@1)",
                       .paper_value = "Train scene, SigLIP: I2T@1 55.2 (M3) vs 2.6 (F-3DGS), raw 81.5; T2I@1 52.6 "
                                      "vs 0.0",
                       .metric = "recall@1 difference M3 - F-3DGS, percentage points",
                       .criterion = h::AllOf({h::AtLeast(0, "I2T@1 M3 - F-3DGS, t-CI over seeds"),
                                              h::AtLeast(0, "T2I@1 M3 - F-3DGS, t-CI over seeds"),
                                              h::Above(0, "I2T@1 M3 - chance (100 / captions), t-CI over seeds")}),
                       .criterion_reason = "issue 49: a comparison claim carries an absolute leaf (M3's retrieval "
                                           "above chance), added to the unchanged comparison leaves"},
                  RetrievalClaim);

h::Outcome GroundingClaim(h::ClaimContext& ctx) {
  const FieldSetting s = SettingFor(ctx);
  const std::vector<FieldOutcome>& runs = Runs(ctx, s);
  std::vector<double> m3, f3, raw, diff, ap_m3, ap_f3, over_all;
  for (const FieldOutcome& r : runs) {
    m3.push_back(r.grounding_m3.miou), f3.push_back(r.grounding_f3dgs.miou), raw.push_back(r.grounding_raw.miou);
    diff.push_back(r.grounding_m3.miou - r.grounding_f3dgs.miou);
    over_all.push_back(r.grounding_m3.miou - r.grounding_all.miou);
    ap_m3.push_back(r.grounding_m3.ap50), ap_f3.push_back(r.grounding_f3dgs.ap50);
    ctx.RecordExact({.case_name = "grounding", .backend = "cpu", .params = {{"queries", r.grounding_m3.queries}},
                     .metric = "ciou_m3", .direction = "higher", .value = r.grounding_m3.ciou});
  }
  const h::MeanCi a = RecordMeanCi(ctx, "miou_m3", m3, "%"), b = RecordMeanCi(ctx, "miou_f3dgs", f3, "%"),
                  c = RecordMeanCi(ctx, "miou_raw", raw, "%");
  RecordMeanCi(ctx, "ap50_m3", ap_m3, "%");
  RecordMeanCi(ctx, "ap50_f3dgs", ap_f3, "%");
  const h::MeanCi d = RecordMeanCi(ctx, "miou_m3_minus_f3dgs", diff, "%");
  const h::MeanCi oa = RecordMeanCi(ctx, "miou_m3_minus_all_pixels_mask", over_all, "%");
  return ctx.Judge({Ci(d), Ci(oa)},
                   s.Describe() + h::StrFormat("; CLIP stand-in, Otsu on cos to the class text; mIoU M3 %.1f, "
                                               "F-3DGS %.1f, raw %.1f, every-pixel mask %.1f",
                                               a.mean, b.mean, c.mean, a.mean - oa.mean));
}

CB_REGISTER_CLAIM(m5, {.id = "m3.M5",
                       .section = "§4, Table 2 (grounding)",
                       .statement = "Text grounding (Otsu-thresholded similarity maps) from M3's rendered features "
                                    "is at least as good as from the full-feature field's",
                       .paper_value = "Train scene, CLIP: mIoU 25.4 (M3) vs 24.2 (F-3DGS), raw 25.3; AP50 19.6 vs "
                                      "16.3; Playroom mIoU 23.1 vs 23.8 (M3 worse)",
                       .metric = "mIoU difference M3 - F-3DGS, percentage points",
                       .criterion = h::AllOf({h::AtLeast(0, "mIoU M3 - F-3DGS, t-CI over seeds"),
                                              h::Above(0, "mIoU M3 - mIoU of an every-pixel mask, t-CI over seeds")}),
                       .criterion_reason = "issue 49: a comparison claim carries an absolute leaf (M3 grounds better "
                                           "than masking every pixel), added to the unchanged comparison leaf"},
                  GroundingClaim);

// ---------------------------------------------------------------------------
// M6: CUDA against fp64.

h::Outcome CudaAgreementClaim(h::ClaimContext& ctx) {
  h::Rng rng(ctx.seed(), 6);
  std::vector<rm::Gaussian2D> g;
  for (int i = 0; i < 400; ++i)
    g.push_back({.x = rng.Uniform() * 48, .y = rng.Uniform() * 48, .sx = 0.7 + 2.5 * rng.Uniform(),
                 .sy = 0.7 + 2.5 * rng.Uniform(), .rot = rng.Uniform() * 3.1416, .opacity = 0.05 + 0.9 * rng.Uniform()});
  const rm::View view{4, 4, 40, 40};
  const int c = 16;
  auto normals = [&](size_t n) {
    std::vector<double> v(n);
    for (double& x : v) x = rng.Normal();
    return v;
  };
  double worst = 0.0;  // max |cuda - fp64| / (1e-4 + 1e-3 |fp64|): <= 1 passes
  auto compare = [&](const std::vector<double>& got, const std::vector<double>& want, const char* what) {
    double w = 0;
    for (size_t i = 0; i < got.size(); ++i) w = std::max(w, std::abs(got[i] - want[i]) / (1e-4 + 1e-3 * std::abs(want[i])));
    ctx.RecordExact({.case_name = what, .backend = "cuda", .metric = "max_scaled_error", .direction = "lower",
                     .value = w});
    worst = std::max(worst, w);
  };
  const auto values = normals(g.size() * c), dout = normals(size_t(view.Pixels()) * c);
  std::vector<double> got(size_t(view.Pixels()) * c), want(got.size());
  RenderValues(h::Backend::kCuda, g, view, values.data(), c, got.data());
  RenderValues(h::Backend::kCpu, g, view, values.data(), c, want.data());
  compare(got, want, "render");
  std::vector<double> gb(g.size() * c, 0.0), wb(gb.size(), 0.0);
  RenderValuesBackward(h::Backend::kCuda, g, view, dout.data(), c, gb.data());
  RenderValuesBackward(h::Backend::kCpu, g, view, dout.data(), c, wb.data());
  compare(gb, wb, "render_backward");
  const rm::GmaShape s{1024, 16, 128, 48};
  const auto q = normals(size_t(s.pixels) * s.query), w = normals(size_t(s.query) * s.dim),
             m = normals(size_t(s.memory) * s.dim);
  std::vector<double> go(size_t(s.pixels) * s.dim), wo(go.size());
  Gma(h::Backend::kCuda, s, q.data(), w.data(), m.data(), rm::kGmaTemperature, go.data());
  Gma(h::Backend::kCpu, s, q.data(), w.data(), m.data(), rm::kGmaTemperature, wo.data());
  compare(go, wo, "gma");
  return ctx.Judge({h::Estimate::Exact(worst)},
                   "400 random Gaussians on a 40 x 40 view, 16 channels; GMA 1024 pixels, c 16, D 128, K 48");
}

CB_REGISTER_CLAIM(m6, {.id = "m3.M6",
                       .kind = h::ClaimKind::kPrerequisite,
                       .section = "n/a (our CUDA path)",
                       .statement = "The CUDA splatting forward and backward and the CUDA GMA agree with the fp64 "
                                    "reference within atol 1e-4 + rtol 1e-3",
                       .paper_value = "n/a (prerequisite: the reference is the spec)", .paper_setting = "n/a",
                       .metric = "max |cuda - fp64| / (1e-4 + 1e-3 |fp64|)",
                       .criterion = h::AtMost(1, "scaled error, worst of the three"),
                       .requirements = {.gpu = true}},
                  CudaAgreementClaim);

}  // namespace
}  // namespace cb::m3
