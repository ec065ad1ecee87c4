// File: harness/criterion.cpp
// Criterion text, verdict rules and reasons (harness/criterion.h).
#include "harness/criterion.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace cb::harness {

const char* VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kReproduced: return "REPRODUCED";
    case Verdict::kNotReproduced: return "NOT_REPRODUCED";
    case Verdict::kInconclusive: return "INCONCLUSIVE";
    case Verdict::kUnmeasurable: return "UNMEASURABLE";
  }
  return "?";
}

namespace {

int Severity(Verdict v) {
  switch (v) {
    case Verdict::kReproduced: return 0;
    case Verdict::kInconclusive: return 1;
    case Verdict::kNotReproduced: return 2;
    case Verdict::kUnmeasurable: return 3;
  }
  return 3;
}

std::string Prefixed(const std::string& quantity, const std::string& rest) {
  return quantity.empty() ? rest : quantity + " " + rest;
}

std::string Measured(const Estimate& e) {
  std::string s = FormatNumber(e.value);
  if (e.has_ci()) s += " [" + FormatNumber(*e.ci_low) + ", " + FormatNumber(*e.ci_high) + "]";
  return s;
}

}  // namespace

Verdict WorstOf(Verdict a, Verdict b) { return Severity(a) >= Severity(b) ? a : b; }

const char* IntervalMethodName(IntervalMethod m) {
  switch (m) {
    case IntervalMethod::kPercentileBootstrap: return "percentile-bootstrap";
    case IntervalMethod::kStudentT: return "student-t";
    case IntervalMethod::kWilson: return "wilson";
    case IntervalMethod::kFitBootstrap: return "fit-bootstrap";
  }
  return "?";
}

// The fewest trials at which each method's 95% interval covers within 3
// points of nominal; harness/interval_coverage_test.cpp measures each at this
// n (2000 simulated replications) and fails if it does not. Measured there
// (2026-12-08): bootstrap of a mean at n = 20 0.93, of a median 0.95;
// Student t at n = 3 0.96 (exact under normal errors); Wilson at n = 30 and
// p 0.2 / 0.5 / 0.8 0.96 / 0.96 / 0.96. The pairs bootstrap of a log-log
// slope undercovers at few sizes: 0.91 at 8 sizes, 0.90 at 12, 0.92 at 16
// and 20, 0.94 at 24, so it needs 24.
int64_t MinTrials(IntervalMethod m) {
  switch (m) {
    case IntervalMethod::kPercentileBootstrap: return 20;
    case IntervalMethod::kStudentT: return 3;
    case IntervalMethod::kWilson: return 30;
    case IntervalMethod::kFitBootstrap: return 24;
  }
  return std::numeric_limits<int64_t>::max();
}

std::string FormatNumber(double v) {
  char buf[32];
  if (v == std::nearbyint(v) && std::fabs(v) < 1e7) {
    std::snprintf(buf, sizeof buf, "%.0f", v);  // counts and sizes in full
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%.4g", v);
  std::string s = buf;
  // "1e-05" -> "1e-5", "1e+06" -> "1e6".
  const auto e = s.find('e');
  if (e != std::string::npos) {
    std::string mantissa = s.substr(0, e), exp = s.substr(e + 1);
    const bool negative = !exp.empty() && exp[0] == '-';
    if (!exp.empty() && (exp[0] == '-' || exp[0] == '+')) exp.erase(0, 1);
    while (exp.size() > 1 && exp[0] == '0') exp.erase(0, 1);
    s = mantissa + "e" + (negative ? "-" : "") + exp;
  }
  return s;
}

Criterion AtLeast(double threshold, std::string quantity) {
  Criterion c;
  c.op_ = Criterion::Op::kAtLeast;
  c.a_ = threshold;
  c.quantity_ = std::move(quantity);
  return c;
}

Criterion AtMost(double threshold, std::string quantity) {
  Criterion c;
  c.op_ = Criterion::Op::kAtMost;
  c.a_ = threshold;
  c.quantity_ = std::move(quantity);
  return c;
}

Criterion Above(double threshold, std::string quantity) {
  Criterion c = AtLeast(threshold, std::move(quantity));
  c.op_ = Criterion::Op::kAbove;
  return c;
}

Criterion Below(double threshold, std::string quantity) {
  Criterion c = AtMost(threshold, std::move(quantity));
  c.op_ = Criterion::Op::kBelow;
  return c;
}

Criterion Within(double low, double high, std::string quantity) {
  if (!(low <= high)) throw std::logic_error("Within: low > high");
  Criterion c;
  c.op_ = Criterion::Op::kWithin;
  c.a_ = low;
  c.b_ = high;
  c.quantity_ = std::move(quantity);
  return c;
}

Criterion Equals(double expected, std::string quantity) {
  Criterion c;
  c.op_ = Criterion::Op::kEquals;
  c.a_ = expected;
  c.quantity_ = std::move(quantity);
  return c;
}

Criterion Holds(std::string condition) {
  Criterion c;
  c.op_ = Criterion::Op::kHolds;
  c.quantity_ = std::move(condition);
  return c;
}

Criterion AllOf(std::vector<Criterion> parts) {
  Criterion c;
  c.op_ = Criterion::Op::kAllOf;
  c.parts_ = std::move(parts);
  return c;
}

std::string Criterion::Bound() const {
  switch (op_) {
    case Op::kAtLeast: return ">= " + FormatNumber(a_);
    case Op::kAtMost: return "<= " + FormatNumber(a_);
    case Op::kAbove: return "> " + FormatNumber(a_);
    case Op::kBelow: return "< " + FormatNumber(a_);
    case Op::kWithin: return "within [" + FormatNumber(a_) + ", " + FormatNumber(b_) + "]";
    case Op::kEquals: return "== " + FormatNumber(a_);
    case Op::kHolds:
    case Op::kAllOf: break;
  }
  return "";
}

std::string Criterion::LeafText() const {
  return op_ == Op::kHolds ? quantity_ : Prefixed(quantity_, Bound());
}

std::string Criterion::Text() const {
  if (op_ != Op::kAllOf) return LeafText();
  std::string s;
  for (const Criterion& p : parts_) s += (s.empty() ? "" : "; ") + p.Text();
  return s;
}

size_t Criterion::Leaves() const {
  if (op_ != Op::kAllOf) return 1;
  size_t n = 0;
  for (const Criterion& p : parts_) n += p.Leaves();
  return n;
}

Verdict Criterion::DecideLeaf(const Estimate& e) const {
  if (op_ != Op::kHolds && std::isnan(e.value)) return Verdict::kInconclusive;
  if (op_ != Op::kHolds && e.has_ci() && e.n < MinTrials(e.method)) return Verdict::kInconclusive;
  const double lo = e.has_ci() ? *e.ci_low : e.value;
  const double hi = e.has_ci() ? *e.ci_high : e.value;
  switch (op_) {
    case Op::kAtLeast:
      if (lo >= a_) return Verdict::kReproduced;
      if (hi < a_) return Verdict::kNotReproduced;
      return Verdict::kInconclusive;
    case Op::kAtMost:
      if (hi <= a_) return Verdict::kReproduced;
      if (lo > a_) return Verdict::kNotReproduced;
      return Verdict::kInconclusive;
    case Op::kAbove:
      if (lo > a_) return Verdict::kReproduced;
      if (hi <= a_) return Verdict::kNotReproduced;
      return Verdict::kInconclusive;
    case Op::kBelow:
      if (hi < a_) return Verdict::kReproduced;
      if (lo >= a_) return Verdict::kNotReproduced;
      return Verdict::kInconclusive;
    case Op::kWithin:
      if (lo >= a_ && hi <= b_) return Verdict::kReproduced;
      if (hi < a_ || lo > b_) return Verdict::kNotReproduced;
      return Verdict::kInconclusive;
    case Op::kEquals:
      if (lo == a_ && hi == a_) return Verdict::kReproduced;
      if (hi < a_ || lo > a_) return Verdict::kNotReproduced;
      return Verdict::kInconclusive;
    case Op::kHolds: return e.value != 0.0 ? Verdict::kReproduced : Verdict::kNotReproduced;
    case Op::kAllOf: break;
  }
  throw std::logic_error("DecideLeaf on AllOf");
}

Verdict Criterion::Decide(const std::vector<Estimate>& measured, std::string* reason) const {
  if (measured.size() != Leaves()) {
    throw std::logic_error("criterion '" + Text() + "' takes " + std::to_string(Leaves()) +
                           " measured values, got " + std::to_string(measured.size()));
  }
  if (reason != nullptr) reason->clear();
  // Leaves in order, with the first non-REPRODUCED leaf of the worst
  // severity giving the reason.
  const std::vector<const Criterion*> leaves = LeafList();
  Verdict v = Verdict::kReproduced;
  for (size_t i = 0; i < leaves.size(); ++i) {
    const Verdict leaf = leaves[i]->DecideLeaf(measured[i]);
    if (leaf == Verdict::kReproduced || Severity(leaf) <= Severity(v)) {
      continue;
    }
    v = leaf;
    if (reason != nullptr) {
      const Criterion& c = *leaves[i];
      const Estimate& e = measured[i];
      if (c.op_ == Op::kHolds) {
        *reason = "not: " + c.quantity_;
      } else if (std::isnan(e.value)) {
        *reason = Prefixed(c.quantity_, "was not measured (NaN)");
      } else if (e.has_ci() && e.n < MinTrials(e.method)) {
        *reason = Prefixed(c.quantity_, "= " + Measured(e) + ": too few trials: n = " +
                                            std::to_string(e.n) + " (a " +
                                            IntervalMethodName(e.method) + " interval needs " +
                                            std::to_string(MinTrials(e.method)) + ")");
      } else {
        *reason = Prefixed(c.quantity_, "= " + Measured(e) + ", not " + c.Bound());
      }
    }
  }
  return v;
}

}  // namespace cb::harness

namespace cb::harness {

std::vector<const Criterion*> Criterion::LeafList() const {
  std::vector<const Criterion*> leaves;
  auto collect = [&](auto& self, const Criterion& c) -> void {
    if (c.op_ != Op::kAllOf) {
      leaves.push_back(&c);
      return;
    }
    for (const Criterion& p : c.parts_) self(self, p);
  };
  collect(collect, *this);
  return leaves;
}

namespace {

// Exact values around a leaf's finite bounds and far from them: a leaf that
// can fail fails at one, and one that can hold holds at one.
std::vector<double> Probes(double a, double b) {
  std::vector<double> probes = {0.0, 1.0, -1.0, 1e300, -1e300};
  for (double bound : {a, b}) {
    if (!std::isfinite(bound)) continue;
    const double step = std::max(1e-9, std::fabs(bound) * 1e-9);
    for (double p : {bound, bound - step, bound + step}) probes.push_back(p);
  }
  return probes;
}

}  // namespace

std::optional<std::vector<Estimate>> Criterion::Witness(Verdict target) const {
  const std::vector<const Criterion*> leaves = LeafList();
  if (leaves.empty() || target == Verdict::kUnmeasurable) return std::nullopt;
  // For each leaf, an estimate that holds and one that gives `target`.
  std::vector<Estimate> holding(leaves.size());
  std::vector<std::optional<Estimate>> hitting(leaves.size());
  for (size_t i = 0; i < leaves.size(); ++i) {
    const Criterion& c = *leaves[i];
    std::optional<Estimate> holds;
    std::vector<Estimate> candidates;
    for (double p : c.op_ == Op::kHolds ? std::vector<double>{0.0, 1.0} : Probes(c.a_, c.b_)) {
      candidates.push_back(Estimate::Exact(p));
    }
    if (c.op_ != Op::kHolds) {
      // Intervals straddling each finite bound.
      const int64_t n = MinTrials(IntervalMethod::kPercentileBootstrap);
      for (double bound : {c.a_, c.b_}) {
        if (!std::isfinite(bound)) continue;
        const double half = std::max(1.0, std::fabs(bound));
        candidates.push_back(
            Estimate::Ci(bound, bound - half, bound + half, IntervalMethod::kPercentileBootstrap, n));
      }
    }
    for (const Estimate& e : candidates) {
      const Verdict v = c.DecideLeaf(e);
      if (v == Verdict::kReproduced && !holds) holds = e;
      if (v == target && !hitting[i]) hitting[i] = e;
    }
    if (!holds) return std::nullopt;  // a leaf that never holds: nothing can be REPRODUCED
    holding[i] = *holds;
  }
  if (target == Verdict::kReproduced) return holding;
  // Every other leaf holds, and one leaf gives the target.
  for (size_t i = 0; i < leaves.size(); ++i) {
    if (!hitting[i]) continue;
    std::vector<Estimate> w = holding;
    w[i] = *hitting[i];
    return w;
  }
  return std::nullopt;
}

std::string Criterion::CannotFail() const {
  if (Leaves() == 0) return "it has no leaf";
  const std::vector<const Criterion*> leaves = LeafList();
  for (size_t i = 0; i < leaves.size(); ++i) {
    const Criterion& c = *leaves[i];
    const std::string name = "leaf " + std::to_string(i + 1) + " '" + c.LeafText() + "'";
    bool holds = false, fails = false;
    for (double p : c.op_ == Op::kHolds ? std::vector<double>{0.0, 1.0} : Probes(c.a_, c.b_)) {
      const Verdict v = c.DecideLeaf(Estimate::Exact(p));
      holds = holds || v == Verdict::kReproduced;
      fails = fails || v == Verdict::kNotReproduced;
    }
    if (!fails) return name + " holds for every value";
    if (!holds) return name + " fails for every value";
    const bool bounded = c.op_ == Op::kHolds || (std::isfinite(c.a_) && (c.op_ != Op::kWithin || std::isfinite(c.b_)));
    if (!bounded) return name + " has a bound that is not finite";
  }
  if (!Witness(Verdict::kNotReproduced)) return "no measurement gives NOT_REPRODUCED";
  if (!Witness(Verdict::kReproduced)) return "no measurement gives REPRODUCED";
  return "";
}

std::string Criterion::Fingerprint() const {
  auto hex = [](double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%a", v);
    return std::string(buf);
  };
  if (op_ == Op::kAllOf) {
    std::string s = "all(";
    for (const Criterion& p : parts_) s += p.Fingerprint() + ";";
    return s + ")";
  }
  static constexpr const char* kOps[] = {"atleast", "atmost", "above", "below",
                                         "within",  "equals", "holds", "all"};
  std::string s = std::string(kOps[static_cast<int>(op_)]) + "(" + std::to_string(quantity_.size()) +
                  ":" + quantity_;
  if (op_ != Op::kHolds) s += "," + hex(a_);
  if (op_ == Op::kWithin) s += "," + hex(b_);
  return s + ")";
}

}  // namespace cb::harness
