// File: ledger/analysis/perf_main.cpp
// -----------------------------------------------------------------------------
// `analysis_perf`: measures the issue-4 performance targets on synthetic
// ledgers (not a test: timings belong in a measured command, not in ctest).
//   analysis_perf gate ROWS SPEED_FRACTION   two runs of ROWS rows each, the
//       given fraction with 10 raw samples (speed rows), the rest exact values;
//       times loading both runs, Gate() and StoreDecisions() (target < 5 s for
//       100k rows). With KEEP_PATH the ledger stays there (runs 1 and 2), to
//       time `claimbench gate --ledger KEEP_PATH --baseline 1 --run 2`.
//   analysis_perf report RUNS CHARTJS     RUNS runs of 50 rows; times the HTML
//       report (target < 10 s for 1000 runs).
//   analysis_perf history RUNS               RUNS runs of 50 rows; times
//       History() over all of them for 10 series (the report's data path).
// Prints one line per phase with its wall time.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <unistd.h>

#include "harness/random.h"
#include "ledger/analysis/gate.h"
#include "ledger/analysis/history.h"
#include "ledger/analysis/report.h"
#include "ledger/analysis/run_data.h"

namespace {

namespace lg = cb::ledger;
using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

int64_t AddRun(lg::Ledger& ledger, int rows, double speed_fraction, uint64_t seed, double slow) {
  lg::RunMeta meta;
  meta.platform_hash = "perf";
  const int64_t id = ledger.BeginRun(meta);
  cb::harness::Rng rng(seed, 0);
  std::vector<lg::Result> batch;
  for (int i = 0; i < rows; ++i) {
    lg::Result r;
    r.suite = "perf" + std::to_string(i % 20);
    r.case_name = "case" + std::to_string(i);
    r.backend = i % 2 ? "cpu" : "cuda";
    r.params = {{"n", i % 97}};
    if (i < rows * speed_fraction) {
      r.metric = "seconds";
      r.unit = "s";
      r.direction = "lower";
      for (int k = 0; k < 10; ++k) r.samples.push_back((i % 100 == 0 ? slow : 1.0) * (1 + 0.02 * rng.Normal()));
      r.n = 10;
      r.value = r.samples[0];
    } else {
      r.metric = "operations";
      r.value = double(i);
    }
    batch.push_back(std::move(r));
  }
  ledger.AddResults(id, batch);
  ledger.FinishRun(id, lg::RunStatus::kComplete);
  return id;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  const std::string path =
      (std::filesystem::temp_directory_path() / ("cb_perf_" + std::to_string(getpid()) + ".db")).string();
  const bool keep = argc == 5;  // gate ROWS FRACTION KEEP_PATH: leave the ledger there
  const std::string db = keep ? std::string(argv[4]) : path;
  if (mode == "gate" && (argc == 4 || argc == 5)) {
    const int rows = std::atoi(argv[2]);
    const double fraction = std::atof(argv[3]);
    int64_t base = 0, cand = 0;
    {
      lg::Ledger ledger = lg::Ledger::Open(db);
      auto t0 = Clock::now();
      base = AddRun(ledger, rows, fraction, 1, 1.0);
      cand = AddRun(ledger, rows, fraction, 2, 1.10);
      std::printf("setup: 2 runs x %d rows written in %.2f s\n", rows, Since(t0));
    }
    lg::Ledger ledger = lg::Ledger::Open(db);
    auto t0 = Clock::now();
    const lg::RunData b = lg::LoadRun(ledger, base);
    const lg::RunData c = lg::LoadRun(ledger, cand);
    const double load = Since(t0);
    auto t1 = Clock::now();
    const lg::GateReport rep = lg::Gate(b, c, lg::GatePolicy{}, false);
    const double gate = Since(t1);
    auto t2 = Clock::now();
    lg::StoreDecisions(ledger, rep);
    const double store = Since(t2);
    std::printf("gate %d vs %d rows (%.0f%% speed rows, n=10): load %.2f s, gate %.2f s, "
                "store %zu decisions %.2f s, total %.2f s; exit code %d, %lld SLOWER\n",
                rows, rows, 100 * fraction, load, gate, rep.rows.size(), store, load + gate + store,
                rep.exit_code, static_cast<long long>(rep.counts.count("SLOWER") ? rep.counts.at("SLOWER") : 0));
  } else if (mode == "report" && argc == 4) {
    const int runs = std::atoi(argv[2]);
    {
      lg::Ledger ledger = lg::Ledger::Open(path);
      auto t0 = Clock::now();
      ledger.BeginTransaction();
      for (int r = 0; r < runs; ++r) AddRun(ledger, 50, 0.2, 100 + r, r >= runs / 2 ? 1.3 : 1.0);
      ledger.Commit();
      std::printf("setup: %d runs x 50 rows written in %.2f s\n", runs, Since(t0));
    }
    lg::Ledger ledger = lg::Ledger::OpenReadOnly(path);
    auto t0 = Clock::now();
    lg::ReportOptions opt;
    opt.run_id = lg::NewestSealedRun(ledger);
    opt.chartjs_path = argv[3];
    lg::ReportStats stats;
    const std::string html = lg::HtmlReport(ledger, opt, &stats);
    std::printf("HTML report over %d runs: %.2f s, %zu bytes, %d charts\n", stats.runs, Since(t0),
                html.size(), stats.charts);
  } else if (mode == "history" && argc == 3) {
    const int runs = std::atoi(argv[2]);
    {
      lg::Ledger ledger = lg::Ledger::Open(path);
      auto t0 = Clock::now();
      ledger.BeginTransaction();
      for (int r = 0; r < runs; ++r) AddRun(ledger, 50, 0.2, 100 + r, r >= runs / 2 ? 1.3 : 1.0);
      ledger.Commit();
      std::printf("setup: %d runs x 50 rows written in %.2f s\n", runs, Since(t0));
    }
    lg::Ledger ledger = lg::Ledger::OpenReadOnly(path);
    auto t0 = Clock::now();
    size_t steps = 0;
    for (int k = 0; k < 10; ++k) {
      for (const auto& s : lg::History(ledger, "perf0", "case" + std::to_string(k * 20), "seconds")) {
        steps += s.steps.size();
      }
    }
    std::printf("history of 10 series over %d runs: %.2f s, %zu change points\n", runs, Since(t0), steps);
  } else {
    std::fprintf(stderr, "usage: analysis_perf gate ROWS SPEED_FRACTION [KEEP_PATH] | history RUNS\n");
    return 3;
  }
  if (!keep) {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  }
  return 0;
}
