// File: harness/result.h
// -----------------------------------------------------------------------------
// Result: one measured or computed value, the unit of everything claimbench
// records. Claims and benchmarks produce them; the ledger (ledger/ledger.h)
// hashes and stores them. Defined here so that the harness does not depend on
// the ledger.
#ifndef CB_HARNESS_RESULT_H_
#define CB_HARNESS_RESULT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cb::harness {

// What kind of value a row holds; stored in the ledger, so that the gate
// reads it instead of guessing from units or metric names.
//   kExact     a deterministic function of (seed, params, build): a count, a
//              computed error, a hash; gated by equality (within the
//              policy's tolerance across platforms).
//   kEstimate  a statistic with an interval from seeded data (an AUROC and
//              its bootstrap CI); deterministic too, gated like kExact, and
//              never from a clock.
//   kTiming    read off a clock or a meter (seconds, rates, speedups,
//              energy, fractions of a ceiling); gated only statistically,
//              over raw samples, when the policy gates speed.
enum class ResultKind { kExact, kEstimate, kTiming };
inline const char* ResultKindName(ResultKind k) {
  switch (k) {
    case ResultKind::kExact: return "exact";
    case ResultKind::kEstimate: return "estimate";
    case ResultKind::kTiming: return "timing";
  }
  return "?";
}

struct Result {
  std::string suite;
  std::string case_name;
  std::string backend;                               // "cpu" | "cuda" | ""
  nlohmann::json params = nlohmann::json::object();  // canonicalised (sorted keys)
  std::string metric;
  std::string unit;
  std::string direction = "none";                    // which way is better: "lower" | "higher" | "none"
  double value = 0.0;
  std::optional<double> ci_low, ci_high;             // 95% unless params say otherwise
  int64_t n = 1;
  std::vector<double> samples;                       // raw samples (e.g. per-repetition seconds)
  std::string input_hash, output_hash;               // hex, empty when not applicable
  std::optional<double> energy_j;                    // NULL when no meter: never 0
  std::string energy_source;                         // "nvml", "rapl", or "unavailable: <reason>"
  std::optional<double> energy_window_s;
  int threads = 1;
  ResultKind kind = ResultKind::kExact;
};

}  // namespace cb::harness

#endif  // CB_HARNESS_RESULT_H_
