// File: harness/claim.cpp
// Claim registry, verdict rules and the interrupt flag.
#include "harness/claim.h"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <stdexcept>

#include "harness/energy.h"

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

ClaimContext::ClaimContext(Profile profile, uint64_t seed, std::vector<Backend> backends,
                           Sink sink, ProgressFn progress)
    : profile_(profile),
      seed_(seed),
      backends_(std::move(backends)),
      sink_(std::move(sink)),
      progress_(std::move(progress)) {}

void ClaimContext::Record(const Result& r) {
  if (InterruptRequested()) throw Interrupted{};
  if (sink_) sink_(r);
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

ClaimRegistration::ClaimRegistration(ClaimSpec spec, ClaimFn run) {
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

// ---------------------------------------------------------------------------
// Verdict rules

Verdict AtLeast(double ci_low, double ci_high, double threshold) {
  if (ci_low >= threshold) return Verdict::kReproduced;
  if (ci_high < threshold) return Verdict::kNotReproduced;
  return Verdict::kInconclusive;
}

Verdict AtMost(double ci_low, double ci_high, double threshold) {
  if (ci_high <= threshold) return Verdict::kReproduced;
  if (ci_low > threshold) return Verdict::kNotReproduced;
  return Verdict::kInconclusive;
}

Verdict Within(double ci_low, double ci_high, double low, double high) {
  if (ci_low >= low && ci_high <= high) return Verdict::kReproduced;
  if (ci_high < low || ci_low > high) return Verdict::kNotReproduced;
  return Verdict::kInconclusive;
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

// ---------------------------------------------------------------------------
// Interrupts

namespace {

std::atomic<int> g_signal{0};

extern "C" void OnInterrupt(int sig) {
  // A second signal means "stop now": restore the default and re-raise.
  if (g_signal.exchange(sig) != 0) {
    std::signal(sig, SIG_DFL);
    std::raise(sig);
  }
}

}  // namespace

void InstallInterruptHandlers() {
  std::signal(SIGINT, OnInterrupt);
  std::signal(SIGTERM, OnInterrupt);
}

bool InterruptRequested() { return g_signal.load() != 0; }
int InterruptSignal() { return g_signal.load(); }

}  // namespace cb::harness
