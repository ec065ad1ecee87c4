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
// Two kinds of claim (ClaimKind): `paper`, a statement the paper makes, and
// `prerequisite`, a check of our own code that the paper claims rest on
// (determinism, oracles, scorer parity, CPU-vs-CUDA agreement, properties
// that hold by construction). Tables list paper claims per paper and the
// prerequisites as one line per suite; a failing prerequisite marks its
// suite's paper claims.
//
// A claim's criterion is pre-registered: CriterionHash() covers the
// criterion, its scope (requirements, profile), kind and decisive setting,
// and is recorded with every verdict, so the gate and `history` see when it
// changed. A criterion changes only with a one-line `criterion_reason`.
//
// The scale of a verdict comes from its evidence, never from the spec: a
// claim run on built-in synthetic data or the shipped small models is
// `mechanism`; one run on inputs a user supplied (a checkpoint, a prediction
// file, an endpoint; ClaimContext::UseInput, with their content hashes) is
// `real`; and a real one whose inputs were declared to be the paper's own
// (every entry of ClaimSpec::paper_inputs) is `paper-scale`.
//
// The suite is the id's prefix ("harness" of "harness.H2"). A claim whose
// verdict rests on a clock or a meter (wall-time exponents, measured
// speedups, energy) says so with `.depends_on_clock = true`: the gate then
// reports its verdict and does not gate it. Rows are recorded with their
// kind (RecordExact / RecordEstimate / RecordTiming, harness/result.h); a
// deterministic row (exact, estimate) always carries input and output hashes:
// those the claim gives, else ones computed from what the row states.
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

enum class ClaimKind { kPaper, kPrerequisite };
const char* ClaimKindName(ClaimKind k);  // "paper" | "prerequisite"

enum class Scale { kMechanism, kReal, kPaperScale };
const char* ScaleName(Scale s);  // "mechanism" | "real" | "paper-scale"

// How much work a run does (DESIGN §5): smoke = seconds (ctest), quick = the
// default, a few minutes on 2 cores in all, full = paper-scale sizes.
enum class Profile { kSmoke, kQuick, kFull };
const char* ProfileName(Profile p);
std::optional<Profile> ParseProfile(std::string_view name);

struct Requirements {
  bool gpu = false;           // a usable CUDA device
  bool energy_meter = false;  // NVML or RAPL readable
  bool endpoint = false;      // a model endpoint (CLAIMBENCH_ENDPOINT)
  // The method has no CUDA path: the claim measures the CPU whatever
  // --backend asks (what statements used to say as "[CPU only]").
  bool cpu_only = false;
  // The claim still runs and records below this profile, but its verdict is
  // UNMEASURABLE there ("judged only at profile >= quick"): its setting is
  // too small to say anything about the paper's statement.
  Profile min_profile = Profile::kSmoke;
};

// One input a user supplied to a claim (ClaimContext::UseInput).
struct ClaimInput {
  std::string role;          // "endpoint", "checkpoint", "predictions", "dataset", ...
  std::string name;          // what it is: a file's name, a model name, a URL without credentials
  std::string content_hash;  // XXH3-128 hex of its bytes (an endpoint: of its URL and model)
  std::string declared;      // what the user declared it to be ("model=Llama-2-7b"), or empty
};

struct ClaimSpec {
  std::string id;             // "<suite>.<tag>", unique, e.g. "harness.H2"
  std::string suite;          // filled from the id at registration; leave it empty
  ClaimKind kind = ClaimKind::kPaper;
  // Another check of the claim with this id ("mia.K1-wikimia" for
  // "mia.K1-wikimia-lm"): kind, paper, section, statement, paper value and
  // setting are that claim's, so leave them empty (and kind unset) here.
  std::string check_of;
  std::string paper;          // short citation (usually from CB_CLAIM_DEFAULTS)
  std::string section;        // where in the paper: "§3.2, Table 4"
  std::string statement;      // the claim in one sentence
  std::string paper_value;    // the paper's number, as the paper gives it
  std::string paper_setting;  // the paper's setting (model, data, hardware)
  std::string metric;         // what the headline value measures
  Criterion criterion;        // decides the verdict; its Text() is what the tables show
  // The parameters of our setting that decide the verdict, where the code
  // fixes them ("d 128, alpha 0.1, t 2^14..2^18"); part of the criterion hash.
  std::string criterion_setting;
  // Why the criterion (or its setting) is what it is, once it has changed
  // after a committed run: one line, shown beside it. Empty for a criterion
  // unchanged since it was first registered.
  std::string criterion_reason;
  double confidence = 0.95;
  Requirements requirements;
  // Declarations ("model=Llama-2-7b", "data=WikiMIA") that make a run on
  // real inputs paper-scale when the user's inputs declare all of them.
  std::vector<std::string> paper_inputs;
  bool depends_on_clock = false;  // verdict rests on a clock or meter: reported, not gated
};

// The pre-registration hash of a claim's criterion: XXH3-128 (hex) of its
// fingerprint, scope (requirements), kind, confidence, decisive setting and
// whether it rests on a clock. Stable across runs and builds; any change to
// what decides the verdict changes it.
std::string CriterionHash(const ClaimSpec& spec);

// A claims file's defaults, applied to every field its claims leave empty.
struct ClaimDefaults {
  std::string paper;
  std::string section;
  std::string paper_setting;
  bool cpu_only = false;  // every claim of the file: Requirements::cpu_only
};

// What a claim's run concluded.
struct Outcome {
  Verdict verdict = Verdict::kInconclusive;
  std::optional<double> value, ci_low, ci_high;
  std::string setting;  // our setting, e.g. "n = 2^6..2^14, operation counts"
  std::string reason;   // why (always for INCONCLUSIVE / UNMEASURABLE)
  // From the context's evidence (ClaimContext::Finish), not from the claim.
  Scale scale = Scale::kMechanism;
  std::vector<ClaimInput> inputs;
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

  // Notes an input the user supplied: the verdict's scale becomes `real`
  // (or `paper-scale`, see the file comment) and the input is recorded with
  // the verdict. REQUIRES: a content hash.
  void UseInput(ClaimInput input);
  const std::vector<ClaimInput>& inputs() const { return inputs_; }
  // The scale the evidence so far supports.
  Scale scale() const;
  // `o` with the context's scale and inputs: what the runner records.
  Outcome Finish(Outcome o) const;

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
  std::vector<ClaimInput> inputs_;
};

using ClaimFn = std::function<Outcome(ClaimContext&)>;

struct ClaimDef {
  ClaimSpec spec;
  ClaimFn run;
};

// Every registered claim, in id order, with the kind and paper fields of each
// check filled from the claim it checks (ClaimSpec::check_of).
// Throws std::logic_error when a check_of names no registered claim, or a
// claim that is itself a check.
const std::vector<ClaimDef>& RegisteredClaims();

// An UNMEASURABLE outcome with its reason (a requirement the claim checks
// itself, beyond ClaimSpec::requirements).
Outcome Unmeasurable(std::string reason, std::string setting = "");

// Static registration; see CB_REGISTER_CLAIM. The suite is taken from the
// id; empty fields are filled from `defaults`. Throws std::logic_error (at
// start-up) on a duplicate id, an id without a suite prefix, a claim with no
// criterion or one that cannot fail (Criterion::CannotFail), a spec whose
// suite disagrees with its id, or a check (check_of) that restates the
// paper's fields.
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

// The model endpoint a claim with requirements.endpoint queries, as a user
// input: role "endpoint", name "<model> at <scheme://host[:port]/path>" (no
// credentials, query or fragment), content hash of that name.
// REQUIRES: UnmetRequirement({.endpoint = true}) is empty.
ClaimInput EndpointInput();

}  // namespace cb::harness

#endif  // CB_HARNESS_CLAIM_H_
