// File: suites/unip/teacher_claims.cpp
// -----------------------------------------------------------------------------
// UNIP claims U2 and U5 (issue 22): the layer-wise attention NMI profile of
// a trained teacher spans local, hybrid and global layers (the paper's Fig. 4
// reading of pre-trained ViTs, which NMI-HAD relies on to find a hybrid
// layer). U2's teacher is the tiny supervised ViT of teacher.h trained on the
// RGB scenes' dominant class, U5's the masked-patch reconstruction ViT of
// masked_teacher.h (MAE's stand-in), one seed each; kinds by
// ref::unip::NmiKind's cut (global < 0.06 <= hybrid <= 0.12 < local, our
// thresholds: the paper's were not retrieved). Every layer's NMI and the
// teacher's fit (training accuracy, held-out masked loss) are recorded. OpenBLAS is
// pinned to one thread so the values are a function of (seed, build, CPU).
#include <set>
#include <string>
#include <vector>

#include "generators/segscenes.h"
#include "harness/blas_threads.h"
#include "harness/claim.h"
#include "harness/criterion.h"
#include "reference/unip/nmi.h"
#include "suites/unip/teacher.h"
#include "suites/unip/teacher_kind.h"

namespace cb::unip {
namespace {

namespace h = cb::harness;
namespace ru = cb::ref::unip;

CB_CLAIM_DEFAULTS({.paper = "UNIP (Tao et al., ICLR 2025)",
                   .paper_setting = "MAE / DINO / iBOT / DeiT ViT-T..L teachers pre-trained on ImageNet"});

h::Outcome TeacherProfile(h::ClaimContext& ctx, TeacherKind kind) {
  const h::OpenBlasOneThread pinned;
  const int layers = ctx.ByProfile<int>(3, 6, 12);
  const int steps = ctx.ByProfile<int>(150, 400, 1500);
  const int count = ctx.ByProfile<int>(96, 192, 512);
  auto scenes = [](int n, uint64_t seed) {
    return gen::MakeSegScenes({.size = 32, .classes = 4, .min_objects = 1, .max_objects = 3, .count = n, .seed = seed});
  };
  const gen::SegScenes train = scenes(count, ctx.seed());
  const TeacherSpec spec{.dim = 32, .layers = layers, .heads = 4, .patch = 8, .steps = steps, .batch = 16,
                         .seed = ctx.seed()};
  TrainedTeacher t = TrainTeacher(kind, spec, train, scenes(count / 4, ctx.seed() + 500));
  ctx.Progress(0.9, "attention profile");
  const std::vector<double> profile = AttentionNmiProfile(t.model, SceneImages(train, false));
  const nlohmann::json base = {{"teacher", Name(kind)}, {"layers", layers}, {"steps", steps},
                               {"scenes", count},       {"dim", 32},         {"heads", 4},
                               {"patch", 8},            {"size", 32},        {"threads", 1}};
  const bool supervised = kind == TeacherKind::kSupervised;
  ctx.RecordExact({.case_name = "teacher", .backend = "cpu", .params = base, .metric = t.fit_metric,
                   .unit = "1", .direction = supervised ? "higher" : "lower", .value = t.fit,
                   .n = supervised ? count : count / 4});
  std::set<std::string> kinds;
  std::string text;
  for (int l = 0; l < layers; ++l) {
    nlohmann::json p = base;
    p["layer"] = l;
    ctx.RecordExact({.case_name = "teacher_nmi_profile", .backend = "cpu", .params = p, .metric = "nmi",
                     .unit = "1", .direction = "none", .value = profile[l], .n = count});
    kinds.insert(ru::NmiKind(profile[l]));
    text += (l ? ", " : "") + h::FormatNumber(profile[l]) + " " + ru::NmiKind(profile[l]);
  }
  const int layer = ru::NmiHadLayer(profile);
  return ctx.Judge({h::Estimate::Exact(double(kinds.size()))},
                   std::string("tiny ") + (supervised ? "supervised" : "masked-patch reconstruction") + " ViT (" +
                       std::to_string(layers) + " layers, D 32, 4 heads, 8x8 patches of 32x32 RGB scenes, " +
                       std::to_string(steps) + " AdamW steps, " +
                       (supervised ? "train accuracy " : "held-out masked loss ") + h::FormatNumber(t.fit) +
                       "); NMI by layer: " + text + "; NMI-HAD layer " + std::to_string(layer) +
                       "; kinds by our cut 0.06/0.12");
}

CB_REGISTER_CLAIM(kU2, {.id = "unip.U2", .section = "§3, Fig. 4 (NMI of pre-trained attention)",
                        .statement = "a trained ViT's layer-wise attention NMI profile spans local, hybrid and "
                                     "global layers",
                        .paper_value = "local, hybrid and global layers in MAE / DINO / DeiT ViTs (Fig. 4)",
                        .metric = "distinct kinds (local / hybrid / global) among the teacher's layers",
                        .criterion = h::AtLeast(3, "kinds")},
                  [](h::ClaimContext& ctx) { return TeacherProfile(ctx, TeacherKind::kSupervised); });

CB_REGISTER_CLAIM(kU5, {.id = "unip.U5", .section = "§3, Fig. 4 (NMI of pre-trained attention, MAE)",
                        .statement = "a masked-image-modelling ViT's layer-wise attention NMI profile spans local, "
                                     "hybrid and global layers",
                        .paper_value = "MAE's later layers local, its middle layers hybrid (NMI-HAD picks layer "
                                       "18 of 24 in MAE-L)",
                        .metric = "distinct kinds (local / hybrid / global) among the teacher's layers",
                        .criterion = h::AtLeast(3, "kinds")},
                  [](h::ClaimContext& ctx) { return TeacherProfile(ctx, TeacherKind::kMasked); });

}  // namespace
}  // namespace cb::unip
