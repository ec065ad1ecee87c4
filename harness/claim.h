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
// Suites register claims statically from suites/<method>/<method>_claims.cpp:
//
//   CB_REGISTER_CLAIM(kLinearLoop, {.id = "harness.H2", .suite = "harness", ...},
//                     [](cb::harness::ClaimContext& ctx) { ...; return outcome; });
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
#include "harness/result.h"

namespace cb::harness {

enum class Verdict { kReproduced, kNotReproduced, kInconclusive, kUnmeasurable };
const char* VerdictName(Verdict v);  // "REPRODUCED", ...

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
  std::string suite;
  std::string paper;          // short citation
  std::string section;        // where in the paper: "§3.2, Table 4"
  std::string statement;      // the claim in one sentence
  std::string paper_value;    // the paper's number, as the paper gives it
  std::string paper_setting;  // the paper's setting (model, data, hardware)
  std::string metric;         // what `value` below measures
  std::string criterion;      // e.g. "exponent CI within [0.9, 1.1]"
  double confidence = 0.95;
  Scale scale = Scale::kMechanism;
  Requirements requirements;
};

// What a claim's run concluded.
struct Outcome {
  Verdict verdict = Verdict::kInconclusive;
  std::optional<double> value, ci_low, ci_high;
  std::string setting;  // our setting, e.g. "n = 2^6..2^14, operation counts"
  std::string reason;   // why (always for INCONCLUSIVE / UNMEASURABLE)
};

// Thrown out of ClaimContext::Record() once SIGINT/SIGTERM was received, so a
// claim stops at its next record point and the run is sealed "interrupted".
struct Interrupted {};

// What a claim body gets: the profile, a seed, the backends asked for, and
// the one path by which results reach the ledger.
class ClaimContext {
 public:
  using Sink = std::function<void(const Result&)>;
  using ProgressFn = std::function<void(double fraction, std::string_view what)>;

  ClaimContext(Profile profile, uint64_t seed, std::vector<Backend> backends, Sink sink,
               ProgressFn progress = {});

  Profile profile() const { return profile_; }
  uint64_t seed() const { return seed_; }
  // Backends the user asked for that are available here.
  const std::vector<Backend>& backends() const { return backends_; }

  // Records one result (suite filled in by the runner if empty).
  // Throws Interrupted after SIGINT/SIGTERM.
  void Record(const Result& r);
  // Progress within this claim, 0..1. Throws Interrupted after SIGINT/SIGTERM.
  void Progress(double fraction, std::string_view what = {});

  // Picks a size by profile.
  template <typename T>
  T ByProfile(T smoke, T quick, T full) const {
    return profile_ == Profile::kSmoke ? smoke : profile_ == Profile::kQuick ? quick : full;
  }

 private:
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

// Static registration; see CB_REGISTER_CLAIM.
struct ClaimRegistration {
  ClaimRegistration(ClaimSpec spec, ClaimFn run);
};

// Variadic so that a braced ClaimSpec initializer's commas need no parentheses.
#define CB_REGISTER_CLAIM(name, ...) \
  static const ::cb::harness::ClaimRegistration cb_claim_registration_##name(__VA_ARGS__)

// ---------------------------------------------------------------------------
// Verdicts from intervals. `ci` is the interval at the claim's confidence.

// Criterion "value >= threshold": REPRODUCED when the whole interval is at or
// above it, NOT_REPRODUCED when the whole interval is below, else INCONCLUSIVE.
Verdict AtLeast(double ci_low, double ci_high, double threshold);
// Criterion "value <= threshold", mirrored.
Verdict AtMost(double ci_low, double ci_high, double threshold);
// Criterion "value in [low, high]": REPRODUCED when the interval lies inside,
// NOT_REPRODUCED when it does not overlap, else INCONCLUSIVE.
Verdict Within(double ci_low, double ci_high, double low, double high);

// Whether the requirements hold here; empty when they do, else the reason
// ("no GPU: built without CUDA", "no energy meter: ...").
std::string UnmetRequirement(const Requirements& r);

// Process-wide interrupt flag set by the SIGINT/SIGTERM handler that
// InstallInterruptHandlers() installs.
void InstallInterruptHandlers();
bool InterruptRequested();
int InterruptSignal();  // the signal received, 0 if none

}  // namespace cb::harness

#endif  // CB_HARNESS_CLAIM_H_
