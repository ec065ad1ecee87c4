// File: suites/mia/drop_auroc.h
// -----------------------------------------------------------------------------
// mia.F2's measure, shared by its n-gram and transformer checks: the AUROC of
// the per-text NLL drop with non-members as positives (equal to the
// Mann-Whitney U of the drops over n1 n0), with its stratified bootstrap CI
// at level 0.98, which keeps the paper's one-sided 1% test.
#ifndef CB_SUITES_MIA_DROP_AUROC_H_
#define CB_SUITES_MIA_DROP_AUROC_H_

#include <algorithm>
#include <cstdint>
#include <vector>

#include "harness/claim.h"
#include "reference/common/roc.h"

namespace cb::mia {

inline harness::Estimate DropAurocCi(const harness::ClaimContext& ctx, const std::vector<double>& member,
                                     const std::vector<double>& nonmember) {
  std::vector<double> drops = nonmember;  // [nonmember..., member...]
  drops.insert(drops.end(), member.begin(), member.end());
  std::vector<int> nonmember_label(drops.size(), 0);
  std::fill(nonmember_label.begin(), nonmember_label.begin() + nonmember.size(), 1);
  const auto ci =
      cb::ref::BootstrapAurocCi(drops, nonmember_label, ctx.ByProfile(300, 1000, 2000), ctx.seed(), 0.98);
  return harness::Estimate::Ci(cb::ref::Auroc(drops, nonmember_label), ci.low, ci.high,
                               harness::IntervalMethod::kPercentileBootstrap, int64_t(drops.size()));
}

}  // namespace cb::mia

#endif  // CB_SUITES_MIA_DROP_AUROC_H_
