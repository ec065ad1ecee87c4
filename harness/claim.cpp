// File: harness/claim.cpp
// Claim registry and verdict rules (the interrupt flag: harness/interrupt.cpp).
#include "harness/claim.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#include "harness/energy.h"

namespace cb::harness {

const char* ScaleName(Scale s) { return s == Scale::kPaperScale ? "paper-scale" : "mechanism"; }

const char* ProfileName(Profile p) {
  switch (p) {
    case Profile::kSmoke: return "smoke";
    case Profile::kQuick: return "quick";
    case Profile::kFull: return "full";
  }
  return "?";
}

std::optional<Profile> ParseProfile(std::string_view name) {
  if (name == "smoke") return Profile::kSmoke;
  if (name == "quick") return Profile::kQuick;
  if (name == "full") return Profile::kFull;
  return std::nullopt;
}

// ---------------------------------------------------------------------------
// Context

ClaimContext::ClaimContext(const ClaimSpec& spec, Profile profile, uint64_t seed,
                           std::vector<Backend> backends, Sink sink, ProgressFn progress)
    : ClaimContext(profile, seed, std::move(backends), std::move(sink), std::move(progress)) {
  spec_ = &spec;
}

ClaimContext::ClaimContext(Profile profile, uint64_t seed, std::vector<Backend> backends,
                           Sink sink, ProgressFn progress)
    : profile_(profile),
      seed_(seed),
      backends_(std::move(backends)),
      sink_(std::move(sink)),
      progress_(std::move(progress)) {}

void ClaimContext::Record(Result r, ResultKind kind) {
  if (InterruptRequested()) throw Interrupted{};
  r.kind = kind;
  if (sink_) sink_(r);
}

Outcome ClaimContext::Judge(const std::vector<Estimate>& measured, std::string setting) const {
  if (spec_ == nullptr) throw std::logic_error("ClaimContext::Judge without a claim spec");
  Outcome o;
  o.verdict = spec_->criterion.Decide(measured, &o.reason);
  if (!measured.empty()) {
    o.value = measured.front().value;
    o.ci_low = measured.front().ci_low;
    o.ci_high = measured.front().ci_high;
  }
  o.setting = std::move(setting);
  return o;
}

Outcome Unmeasurable(std::string reason, std::string setting) {
  Outcome o;
  o.verdict = Verdict::kUnmeasurable;
  o.reason = std::move(reason);
  o.setting = std::move(setting);
  return o;
}

void ClaimContext::Progress(double fraction, std::string_view what) {
  if (InterruptRequested()) throw Interrupted{};
  if (progress_) progress_(fraction, what);
}

// ---------------------------------------------------------------------------
// Registry

namespace {

std::vector<ClaimDef>& Registry() {
  static std::vector<ClaimDef> claims;  // function-local: safe during static init
  return claims;
}

}  // namespace

const std::vector<ClaimDef>& RegisteredClaims() { return Registry(); }

ClaimRegistration::ClaimRegistration(const ClaimDefaults& defaults, ClaimSpec spec, ClaimFn run) {
  const auto dot = spec.id.find('.');
  if (dot == std::string::npos || dot == 0) {
    throw std::logic_error("claim id '" + spec.id + "' has no '<suite>.' prefix");
  }
  const std::string suite = spec.id.substr(0, dot);
  if (!spec.suite.empty() && spec.suite != suite) {
    throw std::logic_error("claim " + spec.id + ": suite '" + spec.suite + "' disagrees with its id");
  }
  spec.suite = suite;
  if (spec.criterion.empty()) throw std::logic_error("claim " + spec.id + " has no criterion");
  auto fill = [](std::string& field, const std::string& value) {
    if (field.empty()) field = value;
  };
  fill(spec.paper, defaults.paper);
  fill(spec.section, defaults.section);
  fill(spec.paper_setting, defaults.paper_setting);
  if (spec.paper.empty()) throw std::logic_error("claim " + spec.id + " names no paper");
  auto& claims = Registry();
  // Kept sorted by id as registered, so every listing and run has one order.
  const auto at = std::lower_bound(
      claims.begin(), claims.end(), spec.id,
      [](const ClaimDef& c, const std::string& id) { return c.spec.id < id; });
  // Two claims with one id would make ledger history ambiguous: fail at start-up.
  if (at != claims.end() && at->spec.id == spec.id) {
    throw std::logic_error("duplicate claim id " + spec.id);
  }
  claims.insert(at, {std::move(spec), std::move(run)});
}

std::string UnmetRequirement(const Requirements& r) {
  if (r.gpu) {
    const auto status = Availability(Backend::kCuda);
    if (!status.ok) return "no GPU: " + status.reason;
  }
  if (r.energy_meter) {
    // Either meter will do: a claim about energy records which one it used.
    // Probed once per process (opening NVML is a dlopen).
    static const std::string unmet = [] {
      const std::string cpu = MakeEnergyMeter(Backend::kCpu)->Unavailable();
      const std::string gpu = MakeEnergyMeter(Backend::kCuda)->Unavailable();
      return cpu.empty() || gpu.empty() ? std::string()
                                        : "no energy meter: rapl " + cpu + "; nvml " + gpu;
    }();
    if (!unmet.empty()) return unmet;
  }
  if (r.endpoint) {
    const char* endpoint = std::getenv("CLAIMBENCH_ENDPOINT");
    if (endpoint == nullptr || *endpoint == '\0') return "no model endpoint: CLAIMBENCH_ENDPOINT is not set";
  }
  return "";
}

}  // namespace cb::harness
