// File: harness/claim.cpp
// Claim registry and verdict rules (the interrupt flag: harness/interrupt.cpp).
#include "harness/claim.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>

#include "harness/energy.h"
#include "harness/hash.h"

namespace cb::harness {

const char* ClaimKindName(ClaimKind k) { return k == ClaimKind::kPaper ? "paper" : "prerequisite"; }

const char* ScaleName(Scale s) {
  switch (s) {
    case Scale::kMechanism: return "mechanism";
    case Scale::kReal: return "real";
    case Scale::kPaperScale: return "paper-scale";
  }
  return "?";
}

std::string CriterionHash(const ClaimSpec& spec) {
  // Length-prefixed fields, so no two specs share an encoding.
  std::string bytes = "criterion/1";
  auto field = [&](std::string_view name, std::string_view value) {
    bytes += "\n" + std::string(name) + " " + std::to_string(value.size()) + ":";
    bytes += value;
  };
  char confidence[40];
  std::snprintf(confidence, sizeof confidence, "%a", spec.confidence);
  const Requirements& r = spec.requirements;
  field("criterion", spec.criterion.Fingerprint());
  field("kind", ClaimKindName(spec.kind));
  field("confidence", confidence);
  field("requires", std::string(r.gpu ? "gpu," : "") + (r.energy_meter ? "energy," : "") +
                        (r.endpoint ? "endpoint," : "") + (r.cpu_only ? "cpu-only," : "") +
                        "profile>=" + ProfileName(r.min_profile));
  field("setting", spec.criterion_setting);
  field("clock", spec.depends_on_clock ? "1" : "0");
  return Xxh3_128(bytes).Hex();
}

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

namespace {

// The hashes a deterministic row gets when its claim gave none: of what the
// row states it was computed from, and of what it holds. They are what the
// gate compares ("same input, different output"), so both cover every field
// that could differ between two runs of one build.
std::string RowInputHash(const Result& r, uint64_t seed, Profile profile) {
  return Xxh3_128("row-input/1\n" + r.case_name + "\n" + r.backend + "\n" + r.params.dump() + "\n" +
                  r.metric + "\n" + std::to_string(seed) + "\n" + ProfileName(profile))
      .Hex();
}

std::string RowOutputHash(const Result& r) {
  constexpr double kNone = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> values = {r.value, r.ci_low.value_or(kNone), r.ci_high.value_or(kNone),
                                static_cast<double>(r.n)};
  values.insert(values.end(), r.samples.begin(), r.samples.end());
  return HashDoubles(values).Hex();
}

}  // namespace

void ClaimContext::Record(Result r, ResultKind kind) {
  if (InterruptRequested()) throw Interrupted{};
  r.kind = kind;
  if (kind != ResultKind::kTiming) {
    if (r.input_hash.empty()) r.input_hash = RowInputHash(r, seed_, profile_);
    if (r.output_hash.empty()) r.output_hash = RowOutputHash(r);
  }
  if (sink_) sink_(r);
}

void ClaimContext::UseInput(ClaimInput input) {
  if (input.content_hash.empty()) {
    throw std::logic_error("ClaimContext::UseInput: input '" + input.name + "' has no content hash");
  }
  inputs_.push_back(std::move(input));
}

Scale ClaimContext::scale() const {
  if (inputs_.empty()) return Scale::kMechanism;
  if (spec_ == nullptr || spec_->paper_inputs.empty()) return Scale::kReal;
  for (const std::string& wanted : spec_->paper_inputs) {
    const bool declared = std::any_of(inputs_.begin(), inputs_.end(),
                                      [&](const ClaimInput& in) { return in.declared == wanted; });
    if (!declared) return Scale::kReal;
  }
  return Scale::kPaperScale;
}

Outcome ClaimContext::Finish(Outcome o) const {
  o.scale = scale();
  o.inputs = inputs_;
  return o;
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
  // The scope is part of the criterion: below its profile the setting is too
  // small to judge the statement, whatever the comparison said.
  const Profile min_profile = spec_->requirements.min_profile;
  if (profile_ < min_profile) {
    o.reason = std::string("judged only at profile >= ") + ProfileName(min_profile) +
               " (this run: " + ProfileName(profile_) + "); measured: " +
               (o.reason.empty() ? std::string(VerdictName(o.verdict)) : o.reason);
    o.verdict = Verdict::kUnmeasurable;
  }
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

// Whether the checks' paper fields are filled since the last registration.
// Registrations happen during static initialisation (in tests, on one
// thread), so no lock; constant-initialised, so safe before any of them.
constinit bool checks_filled = false;

// A check's kind and paper fields are those of the claim it checks; filled
// after static initialisation (a check may register before that claim).
void FillChecks(std::vector<ClaimDef>& claims) {
  for (ClaimDef& c : claims) {
    if (c.spec.check_of.empty()) continue;
    const auto at = std::find_if(claims.begin(), claims.end(),
                                 [&](const ClaimDef& p) { return p.spec.id == c.spec.check_of; });
    if (at == claims.end() || !at->spec.check_of.empty()) {
      throw std::logic_error("claim " + c.spec.id + " checks '" + c.spec.check_of +
                             "', which is not a registered claim of its own");
    }
    c.spec.kind = at->spec.kind;
    c.spec.paper = at->spec.paper;
    c.spec.section = at->spec.section;
    c.spec.statement = at->spec.statement;
    c.spec.paper_value = at->spec.paper_value;
    c.spec.paper_setting = at->spec.paper_setting;
    if (c.spec.paper_inputs.empty()) c.spec.paper_inputs = at->spec.paper_inputs;
  }
}

}  // namespace

const std::vector<ClaimDef>& RegisteredClaims() {
  if (!checks_filled) {
    FillChecks(Registry());
    checks_filled = true;
  }
  return Registry();
}

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
  if (const std::string why = spec.criterion.CannotFail(); !why.empty()) {
    throw std::logic_error("claim " + spec.id + ": its criterion cannot fail: " + why);
  }
  if (!spec.check_of.empty()) {
    // The paper's words live once, in the claim checked.
    if (!spec.statement.empty() || !spec.paper_value.empty() || !spec.section.empty() ||
        !spec.paper_setting.empty()) {
      throw std::logic_error("claim " + spec.id + " checks " + spec.check_of +
                             " and restates its paper fields; leave them to that claim");
    }
    if (spec.kind != ClaimKind::kPaper) {
      throw std::logic_error("claim " + spec.id + " takes its kind from " + spec.check_of + "; leave it unset");
    }
  }
  auto fill = [](std::string& field, const std::string& value) {
    if (field.empty()) field = value;
  };
  fill(spec.paper, defaults.paper);
  spec.requirements.cpu_only = spec.requirements.cpu_only || defaults.cpu_only;
  if (spec.check_of.empty()) {
    fill(spec.section, defaults.section);
    fill(spec.paper_setting, defaults.paper_setting);
  }
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
  checks_filled = false;
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

ClaimInput EndpointInput() {
  const char* endpoint = std::getenv("CLAIMBENCH_ENDPOINT");
  const char* model = std::getenv("CLAIMBENCH_MODEL");
  std::string url = endpoint != nullptr ? endpoint : "";
  // What identifies the endpoint without what must stay secret: user:password@
  // in the authority, and any query or fragment (API keys travel there).
  url = url.substr(0, url.find_first_of("?#"));
  const size_t authority = url.find("://");
  const size_t start = authority == std::string::npos ? 0 : authority + 3;
  const size_t at = url.find('@', start);
  if (at != std::string::npos && at < url.find('/', start)) url.erase(start, at + 1 - start);
  ClaimInput in;
  in.role = "endpoint";
  in.name = std::string(model != nullptr && *model != '\0' ? model : "(default model)") + " at " + url;
  in.content_hash = Xxh3_128(in.name).Hex();
  return in;
}

}  // namespace cb::harness
