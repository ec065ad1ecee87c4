// File: suites/zz_demo/zz_demo_claims.cpp
// The throw-away method's one claim: the fast path equals the reference.
#include <vector>

#include "harness/claim.h"
#include "harness/random.h"
#include "reference/zz_demo.h"
#include "suites/zz_demo/zz_demo.h"

namespace cb::zz_demo {
namespace {

namespace h = cb::harness;

CB_CLAIM_DEFAULTS({.paper = "claimbench demo", .paper_setting = "by construction"});

h::Outcome FastPathMatches(h::ClaimContext& ctx) {
  const int n = ctx.ByProfile(1 << 10, 1 << 16, 1 << 20);
  h::Rng rng(ctx.seed(), /*stream=*/1);
  std::vector<float> a(n), b(n);
  for (int i = 0; i < n; ++i) a[i] = float(rng.Normal()), b[i] = float(rng.Normal());
  const double diff = Dot(h::Backend::kCpu, a, b) - cb::ref::zz_demo::Dot(a, b);
  ctx.RecordExact({.case_name = "dot", .backend = "cpu", .params = {{"n", n}},
                   .metric = "abs_diff_vs_reference", .value = diff < 0 ? -diff : diff});
  return ctx.Judge({h::Estimate::Exact(diff < 0 ? -diff : diff)}, "n = " + std::to_string(n));
}

CB_REGISTER_CLAIM(d1, {.id = "zz_demo.D1",
                       .statement = "The fast path equals the fp64 reference",
                       .paper_value = "0",
                       .metric = "|fast - reference|",
                       .criterion = h::Equals(0, "|fast - reference|")},
                  FastPathMatches);

}  // namespace
}  // namespace cb::zz_demo
