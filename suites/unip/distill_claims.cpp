// File: suites/unip/distill_claims.cpp
// -----------------------------------------------------------------------------
// UNIP claims U3, U4, U6 and U7 (issue 22) at toy scale, over training seeds:
//
//   U3  students distilled from the teacher's NMI-HAD layer segment the
//       infrared-like scenes better (linear-probe and fine-tuned LL-FPN
//       mIoU) than students distilled from the teacher's last layer and
//       than an undistilled student: t-CIs of the four per-seed mIoU
//       differences all >= 0; and (absolute leaf) the NMI-HAD student's
//       LL-FPN mIoU above a constant prediction's.
//   U6  the same with the masked-patch (MAE-style) teacher.
//   U4  texture bias: the RGB-trained teacher's features probe RGB scenes
//       better than the same scenes' infrared rendering, beyond what the
//       untrained initialisation shows: t-CI of the gap (RGB - IR) >= 0 and
//       of the gap minus the untrained control's > 0. (The generator's
//       infrared rendering alone gives the untrained features most of the
//       gap: 0.16 of 0.18 at full.)
//   U7  U4's control leaf as first registered: that gap minus the untrained
//       initialisation's gap >= 0 (the part RGB training adds).
//
// Per seed: a tiny teacher (teacher_kind.h: supervised on the RGB scenes'
// dominant class, or masked-patch reconstruction); its NMI profile and
// NMI-HAD layer (s = 0.09); three students from one initialisation (2..4
// layers, D 16, the teacher's 4 heads and 8x8 patches): AttentionKl from the
// NMI-HAD layer into the student's last layer, from the teacher's last
// layer, and none. Two evaluations, fitted on the training scenes (infrared
// fed as 3 equal channels) and scored on fresh test scenes: distill.h's
// ridge probe on frozen patch features, and llfpn.h's LL-FPN head
// fine-tuned together with a copy of the student (finetune.h). Thresholds
// (0) fixed before the first run. U3's LL-FPN half was added with the head,
// before any fine-tuned LL-FPN number was seen (a head on frozen features
// ran once at quick, INCONCLUSIVE as well, and gave way to fine-tuning as
// the paper does). OpenBLAS pinned to one thread.
#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "generators/segscenes.h"
#include "harness/blas_threads.h"
#include "harness/claim.h"
#include "harness/criterion.h"
#include "harness/seed_stats.h"
#include "reference/unip/miou.h"
#include "reference/unip/nmi.h"
#include "suites/unip/distill.h"
#include "suites/unip/finetune.h"
#include "suites/unip/teacher.h"
#include "suites/unip/teacher_kind.h"

namespace cb::unip {
namespace {

namespace h = cb::harness;
namespace ru = cb::ref::unip;

CB_CLAIM_DEFAULTS({.paper = "UNIP (Tao et al., ICLR 2025)",
                   .paper_setting = "ViT-B/L teachers (MAE, DINO, DeiT) distilled into ViT-T/S/B students on "
                                    "ImageNet, fine-tuned with LL-FPN on SODA / MFNet / SCUT-Seg infrared"});

constexpr int kSize = 32, kPatch = 8, kClasses = 4;  // object classes; + background in mIoU
constexpr double kLambda = 1e-2;                       // ridge penalty

struct Setup {
  int seeds, scenes, test_scenes, teacher_layers, teacher_steps, student_layers, student_steps, fpn_steps;
};

Setup SetupOf(const h::ClaimContext& ctx) {
  return {.seeds = ctx.ByProfile(3, 5, 10),
          .scenes = ctx.ByProfile(64, 128, 512),
          .test_scenes = ctx.ByProfile(32, 64, 256),
          .teacher_layers = ctx.ByProfile(3, 4, 6),
          .teacher_steps = ctx.ByProfile(100, 250, 1500),
          .student_layers = ctx.ByProfile(2, 3, 4),
          .student_steps = ctx.ByProfile(60, 200, 1000),
          .fpn_steps = ctx.ByProfile(100, 300, 1000)};
}

gen::SegScenes Scenes(int count, uint64_t seed) {
  return gen::MakeSegScenes(
      {.size = kSize, .classes = kClasses, .min_objects = 1, .max_objects = 3, .count = count, .seed = seed});
}

uint64_t SeedOf(const h::ClaimContext& ctx, int i) { return ctx.seed() * 1000 + uint64_t(i); }

lm_suite::CpuTransformer TrainedTeacherOf(TeacherKind kind, const Setup& s, const gen::SegScenes& train,
                                          const gen::SegScenes& heldout, uint64_t seed) {
  const TeacherSpec spec{.dim = 32, .layers = s.teacher_layers, .heads = 4, .patch = kPatch,
                         .steps = s.teacher_steps, .batch = 16, .seed = seed};
  return TrainTeacher(kind, spec, train, heldout).model;
}

// The probe's test mIoU: fitted on `train`'s features, scored on `test`'s.
double ProbeOn(lm_suite::CpuTransformer& model, const gen::SegScenes& train, const gen::SegScenes& test,
               bool infrared) {
  auto images = [&](const gen::SegScenes& s) { return infrared ? InfraredAsRgb(s) : SceneImages(s, false); };
  const LinearProbe probe = FitRidgeProbe(PatchFeatures(model, images(train)), PatchMajorityLabels(train, kPatch),
                                          model.config().hidden_size, kClasses + 1, kLambda);
  return ProbeMiou(probe, PatchFeatures(model, images(test)), test, kPatch);
}

// The mIoU of the trivial segmenter: every test pixel labelled with the
// training scenes' most frequent pixel label.
double ConstantMiou(const gen::SegScenes& train, const gen::SegScenes& test) {
  std::vector<int64_t> count(kClasses + 1, 0);
  for (const gen::SegScene& s : train.scenes)
    for (const uint8_t l : s.label) ++count[l];
  const int k = int(std::max_element(count.begin(), count.end()) - count.begin());
  ru::MiouAccumulator acc(kClasses + 1);
  for (const gen::SegScene& s : test.scenes) {
    const std::vector<int> pred(s.label.size(), k), label(s.label.begin(), s.label.end());
    acc.Add(pred, label);
  }
  return acc.Result().miou;
}

// A t-interval over training seeds as a criterion's estimate (n = seeds).
h::Estimate SeedCi(const h::MeanCi& c) {
  return h::Estimate::Ci(c.mean, c.low, c.high, h::IntervalMethod::kStudentT, c.n);
}

// Rows of claims that share a case name carry what tells them apart in
// `params` (the gate matches rows by suite, case, params and metric).
void RecordCi(h::ClaimContext& ctx, const std::string& name, const h::MeanCi& c, const std::vector<double>& x,
              nlohmann::json params = {{"threads", 1}}) {
  ctx.RecordEstimate({.case_name = name, .backend = "cpu", .params = std::move(params), .metric = "mean_over_seeds",
                      .unit = "mIoU", .value = c.mean, .ci_low = c.low, .ci_high = c.high, .n = c.n, .samples = x});
}

// A student's infrared mIoU by both evaluations: the ridge probe on its
// frozen patch features, and the LL-FPN head fine-tuned together with a copy
// of the student (finetune.h); fitted on the training scenes, scored on the
// test scenes.
struct IrScores {
  double probe, fpn;
};

IrScores IrScoresOf(lm_suite::CpuTransformer& model, const Setup& s, const gen::SegScenes& train,
                    const gen::SegScenes& test, uint64_t seed) {
  return {ProbeOn(model, train, test, true),
          FineTunedMiou(model, InfraredAsRgb(train), train, InfraredAsRgb(test), test, kClasses + 1,
                        {.steps = s.fpn_steps, .seed = seed})};
}

h::Outcome DistillLayers(h::ClaimContext& ctx, TeacherKind kind) {
  const h::OpenBlasOneThread pinned;
  const Setup s = SetupOf(ctx);
  // Per evaluation (0 probe, 1 LL-FPN): per-seed mIoU and differences.
  std::vector<double> d_last[2], d_none[2], had[2], last[2], none[2];
  std::vector<double> over_constant;  // LL-FPN mIoU(NMI-HAD) - mIoU(constant prediction), per seed
  std::string layers;
  for (int i = 0; i < s.seeds; ++i) {
    ctx.Progress(double(i) / s.seeds, "seed " + std::to_string(i));
    const uint64_t seed = SeedOf(ctx, i);
    const gen::SegScenes train = Scenes(s.scenes, seed), test = Scenes(s.test_scenes, seed + 500);
    const std::vector<float> images = SceneImages(train, false);
    lm_suite::CpuTransformer teacher = TrainedTeacherOf(kind, s, train, test, seed);
    const std::vector<double> profile = AttentionNmiProfile(teacher, images);
    const int had_layer = ru::NmiHadLayer(profile), last_layer = s.teacher_layers - 1;
    layers += (i ? ", " : "") + std::to_string(had_layer) + " (NMI " + h::FormatNumber(profile[had_layer]) + ")";
    const TeacherSpec student_spec{.dim = 16, .layers = s.student_layers, .heads = 4, .patch = kPatch,
                                   .seed = seed + 7};
    const DistillSpec dspec{.steps = s.student_steps, .batch = 16, .seed = seed + 9};
    auto distilled = [&](int teacher_layer) {
      lm_suite::CpuTransformer student = MakeTeacher(student_spec, 3, kSize, kClasses);
      DistillAttention(student, images, AttentionScores(teacher, images, teacher_layer), s.student_layers - 1, dspec);
      return IrScoresOf(student, s, train, test, seed + 11);
    };
    lm_suite::CpuTransformer fresh = MakeTeacher(student_spec, 3, kSize, kClasses);
    const IrScores by[3] = {distilled(had_layer), distilled(last_layer), IrScoresOf(fresh, s, train, test, seed + 11)};
    over_constant.push_back(by[0].fpn - ConstantMiou(train, test));
    for (int e = 0; e < 2; ++e) {
      const auto score = [e](const IrScores& x) { return e ? x.fpn : x.probe; };
      const double v[3] = {score(by[0]), score(by[1]), score(by[2])};
      had[e].push_back(v[0]);
      last[e].push_back(v[1]);
      none[e].push_back(v[2]);
      d_last[e].push_back(v[0] - v[1]);
      d_none[e].push_back(v[0] - v[2]);
      for (int m = 0; m < 3; ++m)
        ctx.RecordExact({.case_name = e ? "ir_llfpn_miou" : "ir_probe_miou", .backend = "cpu",
                         .params = {{"teacher", Name(kind)},
                                    {"method", m == 0 ? "nmi_had" : m == 1 ? "last_layer" : "none"},
                                    {"seed_index", i}, {"had_layer", had_layer}},
                         .metric = "miou", .unit = "1", .direction = "higher", .value = v[m], .n = s.test_scenes});
    }
  }
  std::vector<h::Estimate> judged;
  std::string means;
  for (int e = 0; e < 2; ++e) {
    const std::string prefix = e ? "llfpn_" : "";
    const h::MeanCi c_last = h::TMeanCi(d_last[e]), c_none = h::TMeanCi(d_none[e]);
    const nlohmann::json params = {{"teacher", Name(kind)}, {"threads", 1}};
    RecordCi(ctx, prefix + "miou_had_minus_last", c_last, d_last[e], params);
    RecordCi(ctx, prefix + "miou_had_minus_none", c_none, d_none[e], params);
    judged.push_back(SeedCi(c_last));
    judged.push_back(SeedCi(c_none));
    means += std::string(e ? "; LL-FPN" : "; probe") + " mean IR mIoU had " + h::FormatNumber(h::TMeanCi(had[e]).mean) +
             ", last " + h::FormatNumber(h::TMeanCi(last[e]).mean) + ", none " +
             h::FormatNumber(h::TMeanCi(none[e]).mean);
  }
  const h::MeanCi c_const = h::TMeanCi(over_constant);
  RecordCi(ctx, "llfpn_miou_had_minus_constant", c_const, over_constant, {{"teacher", Name(kind)}, {"threads", 1}});
  judged.push_back(SeedCi(c_const));
  means += "; LL-FPN NMI-HAD - constant prediction " + h::FormatNumber(c_const.mean);
  const std::string setting =
      std::to_string(s.seeds) + " seeds; " + Name(kind) + " teacher " + std::to_string(s.teacher_layers) +
      " layers D 32, " + std::to_string(s.teacher_steps) + " steps; students " + std::to_string(s.student_layers) +
      " layers D 16, " + std::to_string(s.student_steps) + " KL steps into the last layer; " +
      std::to_string(s.scenes) + " train / " + std::to_string(s.test_scenes) + " test 32x32 scenes, 8x8 patches; "
      "ridge probe on frozen features, LL-FPN head fine-tuned with the student (" + std::to_string(s.fpn_steps) +
      " steps); NMI-HAD layer "
      "by seed: " + layers + means;
  return ctx.Judge(judged, setting);
}

// Every difference's t-CI over seeds >= 0: both evaluations, both controls;
// and the absolute leaf (issue 49): the NMI-HAD student, fine-tuned, beats
// labelling every pixel with the most frequent class.
const h::Criterion kDistillCriterion =
    h::AllOf({h::AtLeast(0, "probe mIoU(NMI-HAD) - mIoU(last layer), t-CI over seeds"),
              h::AtLeast(0, "probe mIoU(NMI-HAD) - mIoU(no distillation), t-CI over seeds"),
              h::AtLeast(0, "LL-FPN mIoU(NMI-HAD) - mIoU(last layer), t-CI over seeds"),
              h::AtLeast(0, "LL-FPN mIoU(NMI-HAD) - mIoU(no distillation), t-CI over seeds"),
              h::Above(0, "LL-FPN mIoU(NMI-HAD) - mIoU(constant prediction), t-CI over seeds")});
constexpr char kDistillReason[] =
    "issue 49: a comparison claim carries an absolute leaf (the NMI-HAD student beats a constant prediction), "
    "added to the unchanged comparison leaves";

CB_REGISTER_CLAIM(kU3, {.id = "unip.U3", .section = "§4-5, Tables 2-3 (NMI-HAD distillation)",
                        .statement = "distilling the teacher's hybrid (NMI-HAD) layer gives higher infrared mIoU "
                                     "than distilling its last layer and than no distillation",
                        .paper_value = "UNIP-T/S/B +13.57 / +8.98 / +4.34 mIoU over MAE; UNIP-S ~ MAE-L at 1/10 "
                                       "of the FLOPs",
                        .metric = "IR mIoU difference (NMI-HAD - other) by linear probe and by LL-FPN head, "
                                  "mean over seeds",
                        .criterion = kDistillCriterion,
                        .criterion_reason = kDistillReason},
                  [](h::ClaimContext& ctx) { return DistillLayers(ctx, TeacherKind::kSupervised); });

CB_REGISTER_CLAIM(kU6, {.id = "unip.U6", .section = "§4-5, Tables 2-3 (NMI-HAD distillation from MAE)",
                        .statement = "distilling a masked-image-modelling teacher's hybrid (NMI-HAD) layer gives "
                                     "higher infrared mIoU than distilling its last layer and than no distillation",
                        .paper_value = "UNIP-T/S/B +13.57 / +8.98 / +4.34 mIoU over MAE (teacher MAE-L, NMI-HAD "
                                       "layer 18 of 24)",
                        .metric = "IR mIoU difference (NMI-HAD - other) by linear probe and by LL-FPN head, "
                                  "mean over seeds",
                        .criterion = kDistillCriterion,
                        .criterion_reason = kDistillReason},
                  [](h::ClaimContext& ctx) { return DistillLayers(ctx, TeacherKind::kMasked); });

// One seed's probe mIoU of the RGB-trained teacher and of its untrained
// initialisation (the control), on RGB and on the infrared rendering.
struct TextureProbes {
  double rgb, ir, untrained_rgb, untrained_ir;
};

// U4 and U7 read the same per-seed probes: computed once per process (a pure
// function of the profile's setup and the seed, so a cached value is the
// value a fresh computation gives; a shard running one of the two claims
// computes it itself).
TextureProbes TextureProbesOf(const Setup& s, uint64_t seed) {
  static std::map<std::tuple<int, int, int, int, uint64_t>, TextureProbes> cache;
  const auto key = std::tuple{s.scenes, s.test_scenes, s.teacher_layers, s.teacher_steps, seed};
  if (const auto it = cache.find(key); it != cache.end()) return it->second;
  const gen::SegScenes train = Scenes(s.scenes, seed), test = Scenes(s.test_scenes, seed + 500);
  lm_suite::CpuTransformer teacher = TrainedTeacherOf(TeacherKind::kSupervised, s, train, test, seed);
  lm_suite::CpuTransformer untrained = MakeTeacher(
      {.dim = 32, .layers = s.teacher_layers, .heads = 4, .patch = kPatch, .seed = seed}, 3, kSize, kClasses);
  const TextureProbes p{ProbeOn(teacher, train, test, false), ProbeOn(teacher, train, test, true),
                        ProbeOn(untrained, train, test, false), ProbeOn(untrained, train, test, true)};
  return cache[key] = p;
}

// Runs every seed's probes, records them, and returns the per-seed trained
// gaps (RGB - IR) and the untrained control's.
std::pair<std::vector<double>, std::vector<double>> TextureGaps(h::ClaimContext& ctx, const Setup& s) {
  std::vector<double> trained, control;
  for (int i = 0; i < s.seeds; ++i) {
    ctx.Progress(double(i) / s.seeds, "seed " + std::to_string(i));
    const TextureProbes p = TextureProbesOf(s, SeedOf(ctx, i));
    trained.push_back(p.rgb - p.ir);
    control.push_back(p.untrained_rgb - p.untrained_ir);
    for (const auto& [model, domain, v] : {std::tuple{"trained", "rgb", p.rgb}, {"trained", "ir", p.ir},
                                           {"untrained", "rgb", p.untrained_rgb}, {"untrained", "ir", p.untrained_ir}})
      ctx.RecordExact({.case_name = "teacher_probe_miou", .backend = "cpu",
                       .params = {{"model", model}, {"domain", domain}, {"seed_index", i}}, .metric = "miou",
                       .unit = "1", .direction = "higher", .value = v, .n = s.test_scenes});
  }
  return {trained, control};
}

std::string TextureSetting(const Setup& s) {
  return std::to_string(s.seeds) + " seeds; the RGB-trained supervised teacher (" + std::to_string(s.teacher_layers) +
         " layers, " + std::to_string(s.teacher_steps) + " steps) and its untrained initialisation, ridge probe "
         "per domain on " + std::to_string(s.scenes) + " train / " + std::to_string(s.test_scenes) + " test scenes";
}

h::Outcome TextureBias(h::ClaimContext& ctx) {
  const h::OpenBlasOneThread pinned;
  const Setup s = SetupOf(ctx);
  const auto [diff, control] = TextureGaps(ctx, s);
  const h::MeanCi c = h::TMeanCi(diff), cc = h::TMeanCi(control);
  RecordCi(ctx, "miou_rgb_minus_ir", c, diff);
  RecordCi(ctx, "untrained_miou_rgb_minus_ir", cc, control);
  // The gap the generator's infrared rendering gives any features is the
  // untrained control's; what texture bias from RGB training can explain is
  // the rest (per seed: trained gap - control gap).
  std::vector<double> beyond(diff.size());
  for (size_t i = 0; i < diff.size(); ++i) beyond[i] = diff[i] - control[i];
  const h::MeanCi cb = h::TMeanCi(beyond);
  return ctx.Judge({SeedCi(c), SeedCi(cb)},
                   TextureSetting(s) + "; trained RGB - IR " + h::FormatNumber(c.mean) + "; control, the untrained "
                   "teacher: RGB - IR " + h::FormatNumber(cc.mean) + " [" + h::FormatNumber(cc.low) + ", " +
                   h::FormatNumber(cc.high) + "]; trained gap - control gap " + h::FormatNumber(cb.mean) + " [" +
                   h::FormatNumber(cb.low) + ", " + h::FormatNumber(cb.high) + "]");
}

CB_REGISTER_CLAIM(kU4, {.id = "unip.U4", .section = "§3 (texture bias of RGB pre-training)",
                        .statement = "RGB-pretrained features transfer worse to the texture-free infrared domain "
                                     "than to RGB",
                        .paper_value = "pre-trained models' texture bias hurts infrared transfer (qualitative)",
                        .metric = "linear-probe mIoU RGB - IR of the RGB-trained teacher, mean over seeds; and "
                                  "that gap minus the untrained teacher's",
                        .criterion = h::AllOf({h::AtLeast(0, "mIoU(RGB) - mIoU(IR), t-CI over seeds"),
                                               h::Above(0, "gap(trained) - gap(untrained control), t-CI over seeds")}),
                        .criterion_reason = "issue 49: the gap alone passed because of how the generator renders "
                                            "infrared (the untrained control shows 0.16 of 0.18), so the gap beyond "
                                            "the control must be > 0 too"},
                  TextureBias);

// U4's stricter form, fixed before its first run: the part of the RGB - IR
// gap that RGB training adds over the untrained features.
h::Outcome TextureBiasFromTraining(h::ClaimContext& ctx) {
  const h::OpenBlasOneThread pinned;
  const Setup s = SetupOf(ctx);
  const auto [trained, control] = TextureGaps(ctx, s);
  std::vector<double> added(trained.size());
  for (size_t i = 0; i < trained.size(); ++i) added[i] = trained[i] - control[i];
  const h::MeanCi c = h::TMeanCi(added);
  RecordCi(ctx, "gap_trained_minus_untrained", c, added);
  return ctx.Judge({SeedCi(c)},
                   TextureSetting(s) + "; RGB - IR gap trained " + h::FormatNumber(h::TMeanCi(trained).mean) +
                       ", untrained " + h::FormatNumber(h::TMeanCi(control).mean));
}

CB_REGISTER_CLAIM(kU7, {.id = "unip.U7", .section = "§3 (texture bias of RGB pre-training)",
                        .statement = "RGB pre-training widens the RGB - infrared transfer gap beyond what untrained "
                                     "features of the same architecture show",
                        .paper_value = "pre-trained models' texture bias hurts infrared transfer (qualitative)",
                        .metric = "probe mIoU gap (RGB - IR) of the trained teacher minus the untrained one's, "
                                  "mean over seeds",
                        .criterion = h::AtLeast(0, "gap(trained) - gap(untrained), t-CI over seeds")},
                  TextureBiasFromTraining);

}  // namespace
}  // namespace cb::unip
