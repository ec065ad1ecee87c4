// File: suites/unip/unip_claims.cpp
// -----------------------------------------------------------------------------
// UNIP claim U1 (issue 22): the NMI that NMI-HAD ranks layers by is computed
// right, on maps whose NMI is known in closed form; the 1e-8 that cl-vs-mim
// adds is measured beside it. U2 (the teacher's profile) is in
// teacher_claims.cpp; the distillation and mIoU claims need the students,
// not built yet (suites/unip/README.md).
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "harness/claim.h"
#include "harness/criterion.h"
#include "reference/unip/nmi.h"

namespace cb::unip {
namespace {

namespace h = cb::harness;
namespace ru = cb::ref::unip;

CB_CLAIM_DEFAULTS({.paper = "UNIP (Tao et al., ICLR 2025)",
                   .paper_setting = "MAE / DINO / iBOT ViT-T..L teachers on ImageNet; NMI-HAD distillation to "
                                    "infrared segmentation (SODA, MFNet-T, SCUT-Seg)"});

h::Outcome NmiOracles(h::ClaimContext& ctx) {
  const int n = ctx.ByProfile<int>(49, 196, 576);  // 7x7, 14x14 (ViT-B/16), 24x24 (ViT-L/14 at 336)
  double worst = 0.0;
  int oracles = 0;
  for (int w : {1, 2, 4, 7, n / 2, n}) {
    // w = 1 is A = I (NMI 1), w = n uniform rows (NMI 0).
    const double want = std::log(double(n) / w) / std::log(double(n));
    const std::vector<double> a = ru::CircularWindowMap(n, w);
    const double exact = ru::Nmi(a, n, n, 0.0);
    const double with_eps = ru::Nmi(a, n, n);
    worst = std::max(worst, std::abs(exact - want));
    ++oracles;
    const nlohmann::json params = {{"n", n}, {"window", w}};
    ctx.RecordExact({.case_name = "nmi_windows", .backend = "cpu", .params = params, .metric = "abs_error_eps0",
                     .unit = "1", .direction = "lower", .value = std::abs(exact - want), .n = 1});
    ctx.RecordExact({.case_name = "nmi_windows", .backend = "cpu", .params = params,
                     .metric = "eps_1e-8_shift", .unit = "1", .direction = "none", .value = with_eps - exact, .n = 1});
  }
  return ctx.Judge({h::Estimate::Exact(worst)},
                   std::to_string(oracles) + " circular-window maps on " + std::to_string(n) +
                       " tokens (w = 1: identity, w = n: uniform), eps = 0; the 1e-8 shift recorded beside");
}

CB_REGISTER_CLAIM(kU1, {.id = "unip.U1", .kind = h::ClaimKind::kPrerequisite, .section = "§3 (NMI); cl-vs-mim calculate_nmi",
                        .statement = "attention NMI equals its closed form: 1 for A = I, 0 for uniform rows, "
                                     "ln(N/w)/ln N for width-w windows",
                        .paper_value = "by definition (NMI = MI / sqrt(ln N H(k)))",
                        .paper_setting = "n/a (prerequisite of NMI-HAD's layer choice)",
                        .metric = "max |NMI - closed form| over the oracle maps",
                        .criterion = h::AtMost(1e-12, "max abs error")},
                  NmiOracles);

}  // namespace
}  // namespace cb::unip
