// File: harness/criterion.cpp
// Criterion text, verdict rules and reasons (harness/criterion.h).
#include "harness/criterion.h"

#include <cmath>
#include <cstdio>
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

Criterion Holds(std::string condition, Verdict on_fail) {
  if (on_fail == Verdict::kReproduced) throw std::logic_error("Holds: on_fail must not be REPRODUCED");
  Criterion c;
  c.op_ = Criterion::Op::kHolds;
  c.quantity_ = std::move(condition);
  c.on_fail_ = on_fail;
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
    case Op::kWithin:
      if (lo >= a_ && hi <= b_) return Verdict::kReproduced;
      if (hi < a_ || lo > b_) return Verdict::kNotReproduced;
      return Verdict::kInconclusive;
    case Op::kEquals:
      if (lo == a_ && hi == a_) return Verdict::kReproduced;
      if (hi < a_ || lo > a_) return Verdict::kNotReproduced;
      return Verdict::kInconclusive;
    case Op::kHolds: return e.value != 0.0 ? Verdict::kReproduced : on_fail_;
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
  std::vector<const Criterion*> leaves;
  auto collect = [&](auto& self, const Criterion& c) -> void {
    if (c.op_ != Op::kAllOf) {
      leaves.push_back(&c);
      return;
    }
    for (const Criterion& p : c.parts_) self(self, p);
  };
  collect(collect, *this);
  Verdict v = Verdict::kReproduced;
  for (size_t i = 0; i < leaves.size(); ++i) {
    const Verdict leaf = leaves[i]->DecideLeaf(measured[i]);
    if (leaf == Verdict::kReproduced || Severity(leaf) <= Severity(v)) {
      continue;
    }
    v = leaf;
    if (reason != nullptr) {
      const Criterion& c = *leaves[i];
      *reason = c.op_ == Op::kHolds
                    ? "not: " + c.quantity_
                    : Prefixed(c.quantity_, "= " + Measured(measured[i]) + ", not " + c.Bound());
    }
  }
  return v;
}

}  // namespace cb::harness
