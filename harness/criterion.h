// File: harness/criterion.h
// -----------------------------------------------------------------------------
// A claim's criterion, stated once: the same object renders the criterion
// text that the claims table and the ledger show, decides the verdict from
// what the claim measured, and writes the reason when it does not hold. So
// the text, the comparison and the reason cannot drift apart (DESIGN §6).
//
//   .criterion = h::AllOf({h::AtLeast(0.95, "recall CI"),
//                          h::Holds("recall non-decreasing in D within 2 SE")})
//   ...
//   return ctx.Judge({h::Estimate::Ci(mean, ci), h::Estimate::Check(monotone)}, setting);
//
// A leaf compares one measured quantity with a bound. An Estimate with an
// interval is judged by the interval (REPRODUCED when all of it satisfies the
// bound, NOT_REPRODUCED when none of it does, else INCONCLUSIVE); an exact
// value (no interval) is REPRODUCED or NOT_REPRODUCED.
#ifndef CB_HARNESS_CRITERION_H_
#define CB_HARNESS_CRITERION_H_

#include <optional>
#include <string>
#include <vector>

namespace cb::harness {

enum class Verdict { kReproduced, kNotReproduced, kInconclusive, kUnmeasurable };
const char* VerdictName(Verdict v);  // "REPRODUCED", ...

// The combined verdict of several conditions that must all hold:
// UNMEASURABLE > NOT_REPRODUCED > INCONCLUSIVE > REPRODUCED.
Verdict WorstOf(Verdict a, Verdict b);

// One measured quantity: a value, with its interval when it is an estimate.
struct Estimate {
  double value = 0.0;
  std::optional<double> ci_low, ci_high;

  static Estimate Exact(double v) { return {v, std::nullopt, std::nullopt}; }
  static Estimate Ci(double v, double low, double high) { return {v, low, high}; }
  // A yes/no condition (for Holds leaves): 1 when it holds.
  static Estimate Check(bool holds) { return Exact(holds ? 1.0 : 0.0); }
  bool has_ci() const { return ci_low.has_value() && ci_high.has_value(); }
};

class Criterion {
 public:
  enum class Op { kAtLeast, kAtMost, kWithin, kEquals, kHolds, kAllOf };

  Criterion() = default;

  // The text shown in the claims table, e.g. "recall CI >= 0.95".
  std::string Text() const;

  // How many Estimates Decide() takes: one per leaf, in order.
  size_t Leaves() const;

  // The verdict for `measured` (one Estimate per leaf, in order). Sets
  // `*reason` to the first failing part ("recall CI = 0.93 [0.91, 0.95], not
  // >= 0.95") when the verdict is not REPRODUCED, else clears it.
  // REQUIRES: measured.size() == Leaves() (else std::logic_error).
  Verdict Decide(const std::vector<Estimate>& measured, std::string* reason) const;

  bool empty() const { return op_ == Op::kAllOf && parts_.empty(); }

 private:
  friend Criterion AtLeast(double, std::string);
  friend Criterion AtMost(double, std::string);
  friend Criterion Within(double, double, std::string);
  friend Criterion Equals(double, std::string);
  friend Criterion Holds(std::string, Verdict);
  friend Criterion AllOf(std::vector<Criterion>);

  std::string Bound() const;     // ">= 0.95", without the quantity
  std::string LeafText() const;
  Verdict DecideLeaf(const Estimate& e) const;

  Op op_ = Op::kAllOf;
  double a_ = 0.0, b_ = 0.0;
  std::string quantity_;                           // what is compared; may be empty
  Verdict on_fail_ = Verdict::kNotReproduced;      // Holds: verdict when it does not hold
  std::vector<Criterion> parts_;                   // AllOf
};

// value >= threshold.
Criterion AtLeast(double threshold, std::string quantity = "");
// value <= threshold.
Criterion AtMost(double threshold, std::string quantity = "");
// value in [low, high].
Criterion Within(double low, double high, std::string quantity = "");
// value == expected exactly (counts, bit-identical outputs).
Criterion Equals(double expected, std::string quantity = "");
// A named yes/no condition, measured as Estimate::Check(bool). When it does
// not hold the verdict is `on_fail` (NOT_REPRODUCED unless the condition only
// casts doubt, as a model-selection disagreement does: then INCONCLUSIVE).
Criterion Holds(std::string condition, Verdict on_fail = Verdict::kNotReproduced);
// Every part must hold; the verdict is WorstOf the parts'.
Criterion AllOf(std::vector<Criterion> parts);

// A number as the criterion text and reasons print it: integers below 1e7 in
// full, anything else to 4 significant digits with unpadded exponents
// ("0.95", "0.4667", "1e-5", "1e12").
std::string FormatNumber(double v);

}  // namespace cb::harness

#endif  // CB_HARNESS_CRITERION_H_
