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
//
// Every criterion must be able to fail: a leaf's failure is NOT_REPRODUCED
// (there is no "fails softly" leaf), and CannotFail() names a criterion no
// measurement could fail (an unbounded range, a bound that is not finite);
// registration refuses such a claim (harness/claim.h).
//
// An interval says how it was made and from how many trials (IntervalMethod,
// n). Below MinTrials(method) its coverage is not what it claims (measured in
// harness/interval_coverage_test.cpp), so a leaf judged on it is INCONCLUSIVE
// with the reason "too few trials: n = 2".
#ifndef CB_HARNESS_CRITERION_H_
#define CB_HARNESS_CRITERION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cb::harness {

enum class Verdict { kReproduced, kNotReproduced, kInconclusive, kUnmeasurable };
const char* VerdictName(Verdict v);  // "REPRODUCED", ...

// The combined verdict of several conditions that must all hold:
// UNMEASURABLE > NOT_REPRODUCED > INCONCLUSIVE > REPRODUCED.
Verdict WorstOf(Verdict a, Verdict b);

// How an interval was made; each has the fewest trials at which its 95%
// coverage is within 3 points of nominal (MinTrials, tested by simulation).
enum class IntervalMethod {
  kPercentileBootstrap,  // BootstrapCi / MeanBootstrapCi / Summarize over n values
  kStudentT,             // TMeanCi over n seeds (exact under normal errors)
  kWilson,               // WilsonInterval of a proportion over n items
  kFitBootstrap,         // FitPowerLaw's pairs bootstrap of a log-log slope over n sizes (or points)
};
const char* IntervalMethodName(IntervalMethod m);  // "percentile-bootstrap", ...
int64_t MinTrials(IntervalMethod m);

// One measured quantity: a value, with its interval when it is an estimate.
struct Estimate {
  double value = 0.0;
  std::optional<double> ci_low, ci_high;
  IntervalMethod method = IntervalMethod::kPercentileBootstrap;  // with an interval only
  int64_t n = 0;                                                 // trials behind the interval

  static Estimate Exact(double v) { return {v, std::nullopt, std::nullopt}; }
  // An interval from `n` trials made by `method`.
  static Estimate Ci(double v, double low, double high, IntervalMethod method, int64_t n) {
    return {v, low, high, method, n};
  }
  // A yes/no condition (for Holds leaves): 1 when it holds.
  static Estimate Check(bool holds) { return Exact(holds ? 1.0 : 0.0); }
  bool has_ci() const { return ci_low.has_value() && ci_high.has_value(); }
};

class Criterion {
 public:
  enum class Op { kAtLeast, kAtMost, kAbove, kBelow, kWithin, kEquals, kHolds, kAllOf };

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

  // Synthetic measurements (one per leaf) for which Decide() gives `target`,
  // found by driving each leaf with probes around and far from its bounds;
  // nullopt when none gives it (no REPRODUCED or NOT_REPRODUCED witness: the
  // criterion is constant; no INCONCLUSIVE one: no leaf takes an interval).
  // The interval witnesses say n = MinTrials of a percentile bootstrap.
  std::optional<std::vector<Estimate>> Witness(Verdict target) const;

  // Why no measurement could make this criterion fail ("leaf 2 'x >= -inf'
  // holds for every value"), or empty when it can both hold and fail and
  // every bound is finite.
  std::string CannotFail() const;

  // Every bound and quantity in an exact, canonical text (bounds as
  // hexadecimal floats), for the criterion hash (harness/claim.h): two
  // criteria that decide alike on every input have the same fingerprint.
  std::string Fingerprint() const;

 private:
  friend Criterion AtLeast(double, std::string);
  friend Criterion AtMost(double, std::string);
  friend Criterion Above(double, std::string);
  friend Criterion Below(double, std::string);
  friend Criterion Within(double, double, std::string);
  friend Criterion Equals(double, std::string);
  friend Criterion Holds(std::string);
  friend Criterion AllOf(std::vector<Criterion>);

  std::string Bound() const;     // ">= 0.95", without the quantity
  std::string LeafText() const;
  Verdict DecideLeaf(const Estimate& e) const;
  std::vector<const Criterion*> LeafList() const;

  Op op_ = Op::kAllOf;
  double a_ = 0.0, b_ = 0.0;
  std::string quantity_;          // what is compared; may be empty
  std::vector<Criterion> parts_;  // AllOf
};

// value >= threshold.
Criterion AtLeast(double threshold, std::string quantity = "");
// value <= threshold.
Criterion AtMost(double threshold, std::string quantity = "");
// value > threshold, strictly ("the difference's CI lies wholly above 0").
Criterion Above(double threshold, std::string quantity = "");
// value < threshold, strictly.
Criterion Below(double threshold, std::string quantity = "");
// value in [low, high].
Criterion Within(double low, double high, std::string quantity = "");
// value == expected exactly (counts, bit-identical outputs).
Criterion Equals(double expected, std::string quantity = "");
// A named yes/no condition, measured as Estimate::Check(bool); NOT_REPRODUCED
// when it does not hold. A condition that is really an interval ("the CI
// excludes 0") is an Above/Below leaf instead, so that straddling reads as
// INCONCLUSIVE and lying wholly on the wrong side as NOT_REPRODUCED.
Criterion Holds(std::string condition);
// Every part must hold; the verdict is WorstOf the parts'.
Criterion AllOf(std::vector<Criterion> parts);

// A number as the criterion text and reasons print it: integers below 1e7 in
// full, anything else to 4 significant digits with unpadded exponents
// ("0.95", "0.4667", "1e-5", "1e12").
std::string FormatNumber(double v);

}  // namespace cb::harness

#endif  // CB_HARNESS_CRITERION_H_
