// File: ledger/analysis/gbench_json.h
// -----------------------------------------------------------------------------
// Google Benchmark JSON interoperability (issue 4; harness-anchors §1 "GB JSON
// schema"), so compare.py and continuous-benchmarking services read claimbench
// results and claimbench reads Google Benchmark output.
//
// Export, one sealed run:
//   {"context": {date, host_name, executable, num_cpus, mhz_per_cpu,
//                cpu_scaling_enabled, caches, load_avg, library_build_type,
//                json_schema_version: 1, claimbench: {run_uuid, run_hash,
//                platform_hash, profile, command}},
//    "benchmarks": [...]}
// A row whose unit is a time (s, ms, us, ns) becomes one family: an
// "iteration" entry per raw sample (repetition_index i of repetitions n,
// iterations 1, real_time = cpu_time = the sample in ns) followed by the
// aggregates mean, median, stddev (aggregate_unit "time") and cv
// ("percentage"), as --benchmark_repetitions writes them; a row without
// samples is one iteration entry. Any other row is an entry with real_time =
// cpu_time = 0 and its value as a user counter named after its metric.
// Names are "<suite>/<case>[/<param>:<value>...][/backend:<b>]" plus
// "/metric:<m>" unless the metric is real_time.
//
// Import: every non-aggregate, non-error entry of one run_name (or name)
// becomes a row "real_time" (ns, lower is better) whose samples are the
// repetitions' real times per iteration, plus one row per user counter;
// when the file holds only aggregates, the "median" aggregate is the value.
// Suite and case come from the name split at its first '/' (suite "gbench"
// when there is none). The run is recorded with profile "gbench", the file's
// context as its platform JSON and a platform hash over the context's host,
// CPU count, clock and caches.
#ifndef CB_LEDGER_ANALYSIS_GBENCH_JSON_H_
#define CB_LEDGER_ANALYSIS_GBENCH_JSON_H_

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "ledger/ledger.h"

namespace cb::ledger {

nlohmann::json ExportGbenchJson(Ledger& ledger, int64_t run_id);

// Returns the new run's id. Throws std::runtime_error naming `source` and
// the entry when the JSON is not Google Benchmark output; nothing is written then.
int64_t ImportGbenchJson(Ledger& ledger, const nlohmann::json& j, const std::string& source,
                         const std::string& command);

}  // namespace cb::ledger

#endif  // CB_LEDGER_ANALYSIS_GBENCH_JSON_H_
