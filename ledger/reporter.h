// File: ledger/reporter.h
// -----------------------------------------------------------------------------
// LedgerReporter: the one path by which Google Benchmark results reach the
// ledger (DESIGN §9, after google/benchmark's reporter design). It collects
// every repetition of every benchmark, recomputes the statistics itself
// (Google Benchmark's mean/median/stddev aggregates are skipped: we keep raw
// samples and a bootstrap CI instead) and writes Result rows into a run.
//
// Naming convention: benchmarks are named "<suite>/<case>[/<args>...]", e.g.
// BENCHMARK(BM_LedgerInsert)->Name("harness/ledger_insert"). From the
// benchmark's function name plus its args ("harness/ledger_insert/1000"):
//   suite      = the text before the first '/', a "BM_" prefix removed,
//                lower-cased ("harness");
//   case_name  = the rest ("ledger_insert/1000"); for a name without '/',
//                the name itself with "BM_" removed;
//   backend    = "cuda" or "cpu" when one of the case's '/'-separated parts
//                is exactly that word, else "".
// Named axes (ArgNames: "ledger_insert/rows:1000") are params, not part of
// the case: {"rows": 1000} (a number when the value is one, else the text),
// case_name "ledger_insert", so compare and history select by axis with
// --param. Unnamed args stay in case_name.
// Run settings (min_time, repetitions, threads, real/manual time) are not part
// of the case: they do not change what is measured. The full Google Benchmark
// name is kept in params {"benchmark": ...}. Every row is a timing
// (ResultKind::kTiming): read off a clock or a meter, counters included.
// No param depends on a measurement (so a row's identity is the same in
// every run).
//
// Rows written per benchmark:
//   metric "real_time", unit "ns", direction "lower": value = median over
//     repetitions of the per-iteration real (or manual) time, ci = seeded
//     percentile-bootstrap 95% CI of that median (harness/stats.h),
//     n = repetitions, samples = the per-repetition times;
//   one row per user counter (metric = counter name, value = median over
//     repetitions, samples = per-repetition values; unit "1/s" and direction
//     "higher" for rate counters such as items_per_second, "B/s" for
//     bytes_per_second);
//   a benchmark that reported an error instead gets one row with metric
//     "error", value NULL and params {"benchmark": ..., "error": message}.
// A benchmark's rows are written (in one transaction) as soon as all its
// repetitions are in, so a run killed half way keeps the finished ones;
// Finalize() writes whatever is left.
#ifndef CB_LEDGER_REPORTER_H_
#define CB_LEDGER_REPORTER_H_

#include <benchmark/benchmark.h>

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "harness/backend.h"
#include "ledger/ledger.h"

namespace cb::ledger {

// (suite, case_name) of a benchmark name, by the convention above.
std::pair<std::string, std::string> SplitBenchmarkName(const std::string& name);

// A case name's named axes ("name:value" parts, name of [A-Za-z0-9_]) as
// params; the other parts, '/'-joined, as the case.
struct BenchmarkAxes {
  std::string case_name;
  nlohmann::json params;
};
BenchmarkAxes SplitBenchmarkAxes(const std::string& case_name);

// The Result rows for one benchmark's repetitions (all of one benchmark
// instance, aggregates excluded). `seed` seeds the bootstrap.
std::vector<Result> BenchmarkResults(std::span<const benchmark::BenchmarkReporter::Run> reps,
                                     uint64_t seed);

// For every bandwidth or FLOP-rate row, adds a row that states it as a
// fraction of the platform's ceiling (DESIGN §5), so "how close to the limit"
// is a number in the ledger: counter "bytes_per_second" against the CPU
// bandwidth ceiling that matches the benchmark by construction (issue 32),
// picked from its named axes: "access:read" -> cpu_stream_read, "access:rw"
// -> cpu_stream_copy, undeclared -> cpu_copy_bandwidth (memcpy); with the
// "_1t" ceiling when its threads (a "threads:N" axis, else Google
// Benchmark's thread count) are 1, the all-core one otherwise
// (gpu_copy_bandwidth for backend "cuda"), counter
// "flops" (a rate) against cpu_sgemm (gpu_sgemm), counter
// "philox_blocks_per_second" (CPU rows only) against cpu_philox4x32_10, with
// "_1t" as above; each ceiling converted to per second by its unit (GB/s,
// TB/s, GFLOP/s, TFLOP/s, Gblock/s). The new row's metric
// is "<counter>_fraction_of_<ceiling>", unit "1", params + {"ceiling":
// {name, unit}} (not its measured value, which would change the row's identity from
// run to run). Rows without a matching
// ceiling, or whose ceiling has another unit, get none.
void AddCeilingFractions(std::span<const Ceiling> ceilings, std::vector<Result>* rows);

// SkipUnlessAvailable()
//
// For a benchmark of one backend: when `backend` cannot run here, skips
// `state` with "unavailable: <reason>" and returns true. The reporter records
// no row for such a benchmark and does not count it as an error, so
// `claimbench bench` on a machine without a GPU completes.
bool SkipUnlessAvailable(benchmark::State& state, cb::harness::Backend backend);

class LedgerReporter : public benchmark::BenchmarkReporter {
 public:
  // REQUIRES: `ledger` and `display` (when not null) outlive the reporter;
  // `run_id` is an open run of `ledger`. `display` (e.g. a ConsoleReporter)
  // receives every call too, so the user still sees the usual table.
  LedgerReporter(Ledger& ledger, int64_t run_id, benchmark::BenchmarkReporter* display = nullptr,
                 uint64_t seed = 0);

  bool ReportContext(const Context& context) override;
  void ReportRuns(const std::vector<Run>& reports) override;
  void Finalize() override;

  // Ceilings of this platform; rows written after this get fraction rows.
  void SetCeilings(std::vector<Ceiling> ceilings) { ceilings_ = std::move(ceilings); }

  // Benchmarks recorded with metric "error" so far.
  int errors() const { return errors_; }
  // Benchmarks skipped because their backend is unavailable here.
  int skipped() const { return skipped_; }
  // Result rows written so far.
  int64_t rows_written() const { return rows_written_; }

 private:
  struct Pending {
    std::vector<Run> reps;
    int64_t expected = 1;  // repetitions the benchmark will report
  };
  void Write(const std::string& name);

  Ledger& ledger_;
  int64_t run_id_;
  benchmark::BenchmarkReporter* display_;
  uint64_t seed_;
  std::vector<std::string> order_;        // benchmark names, first seen first
  std::map<std::string, Pending> pending_;  // not yet written
  std::set<std::string> written_;
  std::vector<Ceiling> ceilings_;
  int errors_ = 0;
  int64_t rows_written_ = 0;
  int skipped_ = 0;
};

}  // namespace cb::ledger

#endif  // CB_LEDGER_REPORTER_H_
