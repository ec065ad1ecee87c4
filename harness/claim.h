// File: harness/claim.h
// -----------------------------------------------------------------------------
// The claim model (DESIGN §6). A claim is a statement from a paper with the
// paper's own value and setting, a metric and a criterion; running it in our
// setting gives a verdict:
//
//   REPRODUCED      the criterion holds with the stated confidence here;
//   NOT_REPRODUCED  it fails with that confidence;
//   INCONCLUSIVE    the interval straddles the threshold;
//   UNMEASURABLE    a requirement (GPU, energy meter, endpoint) is missing.
//
// Suites register claims statically from suites/<method>/<method>_claims.cpp,
// in one style: the file's defaults once, then each claim with its
// criterion as an object (harness/criterion.h) that renders the criterion
// text and decides the verdict, so neither can drift from the other:
//
//   CB_CLAIM_DEFAULTS({.paper = "claimbench harness", .paper_setting = "by construction"});
//
//   h::Outcome LinearOps(h::ClaimContext& ctx) {
//     ...
//     ctx.RecordExact({.case_name = "linear_loop", .metric = "operations", ...});
//     return ctx.Judge({h::Estimate::Ci(fit.exponent, fit.ci.low, fit.ci.high)}, setting);
//   }
//
//   CB_REGISTER_CLAIM(h2, {.id = "harness.H2",
//                          .statement = "A linear scan costs O(n) operations",
//                          .paper_value = "exponent 1",
//                          .metric = "log-log exponent of operation counts",
//                          .criterion = h::Within(0.9, 1.1, "exponent 95% CI")},
//                     LinearOps);
//
// The suite is the id's prefix ("harness" of "harness.H2"). A claim whose
// verdict rests on a clock or a meter (wall-time exponents, measured
// speedups, energy) says so with `.depends_on_clock = true`: the gate then
// reports its verdict and does not gate it. Rows are recorded with their
// kind (RecordExact / RecordEstimate / RecordTiming, harness/result.h).
//
// Each claim states its scale honestly: "paper-scale" only when our setting
// matches the paper's, otherwise "mechanism".
#ifndef CB_HARNESS_CLAIM_H_
#define CB_HARNESS_CLAIM_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/backend.h"
#include "harness/criterion.h"
#include "harness/interrupt.h"  // Interrupted: thrown out of Record() and Progress() after SIGINT/SIGTERM
#include "harness/result.h"

namespace cb::harness {

enum class Scale { kPaperScale, kMechanism };
const char* ScaleName(Scale s);  // "paper-scale" | "mechanism"

// How much work a run does (DESIGN §5): smoke = seconds (ctest), quick = the
// default, a few minutes on 2 cores in all, full = paper-scale sizes.
enum class Profile { kSmoke, kQuick, kFull };
const char* ProfileName(Profile p);
std::optional<Profile> ParseProfile(std::string_view name);

struct Requirements {
  bool gpu = false;           // a usable CUDA device
  bool energy_meter = false;  // NVML or RAPL readable
  bool endpoint = false;      // a model endpoint (CLAIMBENCH_ENDPOINT)
};

struct ClaimSpec {
  std::string id;             // "<suite>.<tag>", unique, e.g. "harness.H2"
  std::string suite;          // filled from the id at registration; leave it empty
  std::string paper;          // short citation (usually from CB_CLAIM_DEFAULTS)
  std::string section;        // where in the paper: "§3.2, Table 4"
  std::string statement;      // the claim in one sentence
  std::string paper_value;    // the paper's number, as the paper gives it
  std::string paper_setting;  // the paper's setting (model, data, hardware)
  std::string metric;         // what the headline value measures
  Criterion criterion;        // decides the verdict; its Text() is what the tables show
  double confidence = 0.95;
  Scale scale = Scale::kMechanism;
  Requirements requirements;
  bool depends_on_clock = false;  // verdict rests on a clock or meter: reported, not gated
};

// A claims file's defaults, applied to every field its claims leave empty.
struct ClaimDefaults {
  std::string paper;
  std::string section;
  std::string paper_setting;
};

// What a claim's run concluded.
struct Outcome {
  Verdict verdict = Verdict::kInconclusive;
  std::optional<double> value, ci_low, ci_high;
  std::string setting;  // our setting, e.g. "n = 2^6..2^14, operation counts"
  std::string reason;   // why (always for INCONCLUSIVE / UNMEASURABLE)
};

// What a claim body gets: the profile, a seed, the backends asked for, and
// the one path by which results reach the ledger.
class ClaimContext {
 public:
  using Sink = std::function<void(const Result&)>;
  using ProgressFn = std::function<void(double fraction, std::string_view what)>;

  // The runner's context for `spec` (Judge() decides by its criterion).
  ClaimContext(const ClaimSpec& spec, Profile profile, uint64_t seed,
               std::vector<Backend> backends, Sink sink, ProgressFn progress = {});
  // A context without a spec, for tests and benchmarks that call a claim's
  // parts directly (Judge() then throws).
  ClaimContext(Profile profile, uint64_t seed, std::vector<Backend> backends, Sink sink,
               ProgressFn progress = {});

  Profile profile() const { return profile_; }
  uint64_t seed() const { return seed_; }
  // Backends the user asked for that are available here.
  const std::vector<Backend>& backends() const { return backends_; }
  // The spec this context runs (nullptr when made without one).
  const ClaimSpec* spec() const { return spec_; }

  // Records one result of the stated kind (suite filled in by the runner if
  // empty). Each throws Interrupted after SIGINT/SIGTERM.
  void RecordExact(Result r) { Record(std::move(r), ResultKind::kExact); }
  void RecordEstimate(Result r) { Record(std::move(r), ResultKind::kEstimate); }
  void RecordTiming(Result r) { Record(std::move(r), ResultKind::kTiming); }
  void Record(Result r, ResultKind kind);

  // The outcome that the claim's criterion gives `measured` (one Estimate per
  // criterion leaf, in order); the first Estimate is the headline value.
  // REQUIRES: the context was made with the claim's spec.
  Outcome Judge(const std::vector<Estimate>& measured, std::string setting) const;

  // Progress within this claim, 0..1. Throws Interrupted after SIGINT/SIGTERM.
  void Progress(double fraction, std::string_view what = {});

  // Picks a size by profile.
  template <typename T>
  T ByProfile(T smoke, T quick, T full) const {
    return profile_ == Profile::kSmoke ? smoke : profile_ == Profile::kQuick ? quick : full;
  }

 private:
  const ClaimSpec* spec_ = nullptr;
  Profile profile_;
  uint64_t seed_;
  std::vector<Backend> backends_;
  Sink sink_;
  ProgressFn progress_;
};

using ClaimFn = std::function<Outcome(ClaimContext&)>;

struct ClaimDef {
  ClaimSpec spec;
  ClaimFn run;
};

// Every registered claim, in id order.
const std::vector<ClaimDef>& RegisteredClaims();

// An UNMEASURABLE outcome with its reason (a requirement the claim checks
// itself, beyond ClaimSpec::requirements).
Outcome Unmeasurable(std::string reason, std::string setting = "");

// Static registration; see CB_REGISTER_CLAIM. The suite is taken from the
// id; empty fields are filled from `defaults`. Throws std::logic_error (at
// start-up) on a duplicate id, an id without a suite prefix, a claim with no
// criterion, or a spec whose suite disagrees with its id.
struct ClaimRegistration {
  ClaimRegistration(const ClaimDefaults& defaults, ClaimSpec spec, ClaimFn run);
};

}  // namespace cb::harness

// No defaults: what CB_REGISTER_CLAIM sees in a file without
// CB_CLAIM_DEFAULTS (whose file-local object shadows this one).
inline const ::cb::harness::ClaimDefaults cb_claim_defaults_file_{};

namespace cb::harness {

// The defaults of the claims registered below it in this file (in the same
// namespace).
#define CB_CLAIM_DEFAULTS(...) \
  static const ::cb::harness::ClaimDefaults cb_claim_defaults_file_(__VA_ARGS__)

// Registers a claim. Variadic so that a braced ClaimSpec initializer's commas
// need no parentheses: CB_REGISTER_CLAIM(name, {spec}, function).
#define CB_REGISTER_CLAIM(name, ...)                                    \
  static const ::cb::harness::ClaimRegistration cb_claim_registration_##name( \
      cb_claim_defaults_file_, __VA_ARGS__)

// Whether the requirements hold here; empty when they do, else the reason
// ("no GPU: built without CUDA", "no energy meter: ...").
std::string UnmetRequirement(const Requirements& r);

}  // namespace cb::harness

#endif  // CB_HARNESS_CLAIM_H_
