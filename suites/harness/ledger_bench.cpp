// File: suites/harness/ledger_bench.cpp
// -----------------------------------------------------------------------------
// Benchmarks of the ledger itself (ledger/ledger.h): how fast results are
// recorded and verified. Named "<suite>/<case>" per ledger/reporter.h.
//
//   harness/ledger_insert      rows/s appending realistic result rows inside
//                              one explicit transaction (canonical encoding
//                              and XXH3-128 hashing included), 1000 per commit
//   harness/ledger_record_one  latency of one ClaimContext::Record() through the
//                              ledger sink that `claimbench run` uses,
//                              i.e. BEGIN IMMEDIATE + INSERT + COMMIT in WAL
//                              mode with synchronous=NORMAL (no fsync per
//                              commit; the WAL is fsynced at checkpoints)
//   harness/ledger_verify      rows/s of Verify() over a 200k-row ledger
//                              (every content_hash, run_hash and the chain)
//
// Napkin math for a realistic row (~20 fields, 3 params, 10 samples): the
// canonical encoding is ~400 bytes, XXH3-128 over it ~25 ns at ~16 GB/s, so
// hashing is noise next to SQLite's per-row b-tree work (~2-5 us insert,
// ~1 us read). Targets on 2 cores: >= 100k rows/s insert, >= 500k rows/s
// verify, < 20 us per single recorded result.
//
// All three use real (wall) time, so items_per_second is rows per wall-clock
// second: for I/O-bound work CPU time would flatter the result.
//
// Files live in a fresh directory under $TMPDIR, removed afterwards.
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "harness/claim.h"
#include "ledger/claim_sink.h"
#include "ledger/ledger.h"

namespace cb::harness_bench {
namespace {

using cb::ledger::Ledger;
using cb::ledger::Result;
using cb::ledger::RunMeta;

constexpr int kInsertBatch = 1000;
constexpr int kVerifyRows = 200'000;
constexpr int kVerifyRowsPerRun = 20'000;

// A directory under $TMPDIR that removes itself.
class ScratchDir {
 public:
  ScratchDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "cb-ledger-bench-XXXXXX").string();
    if (mkdtemp(pattern.data()) != nullptr) path_ = pattern;
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  bool ok() const { return !path_.empty(); }
  std::string File(const char* name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

RunMeta BenchMeta() {
  RunMeta m;
  m.command = "claimbench bench (ledger benchmark)";
  m.profile = "bench";
  m.seed = 1;
  m.platform = {{"purpose", "ledger benchmark"}};
  return m;
}

// A realistic row: 3 params, 10 raw samples, energy on every third row.
Result BenchRow(int i) {
  Result r;
  r.suite = "harness";
  r.case_name = "case_" + std::to_string(i % 97);
  r.backend = (i & 1) != 0 ? "cuda" : "cpu";
  r.params = {{"n", 1024 + i % 4096}, {"dtype", "fp32"}, {"alpha", 0.125 * (i % 8)}};
  r.metric = "real_time";
  r.unit = "ns";
  r.direction = "lower";
  r.value = 1000.0 + 0.5 * i;
  r.ci_low = r.value - 3.0;
  r.ci_high = r.value + 3.5;
  r.n = 10;
  r.samples.reserve(10);
  for (int k = 0; k < 10; ++k) r.samples.push_back(r.value + 0.25 * (k - 5));
  r.input_hash = "0f0e0d0c0b0a09080706050403020100";
  r.output_hash = "00112233445566778899aabbccddeeff";
  if (i % 3 == 0) {
    r.energy_j = 0.75 + 0.001 * i;
    r.energy_source = "rapl";
    r.energy_window_s = 1.0;
  } else {
    r.energy_source = "unavailable: no meter";
  }
  r.threads = 2;
  return r;
}

// Runs `body(ledger, run)` on a fresh ledger holding one open run. Failing to
// set it up, or a write failing, is reported as the benchmark's error rather
// than ending the whole benchmark binary.
template <typename Body>
void WithOpenRun(benchmark::State& state, const char* file, Body&& body) {
  ScratchDir dir;
  if (!dir.ok()) {
    state.SkipWithError("cannot create a temporary directory");
    return;
  }
  try {
    Ledger ledger = Ledger::Open(dir.File(file));
    body(ledger, ledger.BeginRun(BenchMeta()));
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  } catch (const cb::harness::Interrupted&) {
    // SIGINT during ctx.RecordExact(): `claimbench bench` seals the run after this benchmark.
    state.SkipWithError("interrupted");
  }
}

void BM_LedgerInsert(benchmark::State& state) {
  std::vector<Result> rows;
  for (int i = 0; i < kInsertBatch; ++i) rows.push_back(BenchRow(i));
  WithOpenRun(state, "insert.db", [&](Ledger& ledger, int64_t run) {
    for (auto _ : state) {
      ledger.BeginTransaction();
      for (const Result& r : rows) ledger.AddResult(run, r);
      ledger.Commit();
    }
  });
  state.SetItemsProcessed(state.iterations() * kInsertBatch);
}
BENCHMARK(BM_LedgerInsert)->Name("harness/ledger_insert")->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_LedgerRecordOne(benchmark::State& state) {
  const Result row = BenchRow(7);
  WithOpenRun(state, "record.db", [&](Ledger& ledger, int64_t run) {
    // The path a claim's ctx.RecordExact() takes in `claimbench run`: context,
    // sink, its own transaction and commit.
    cb::harness::ClaimContext ctx(cb::harness::Profile::kQuick, 1, {cb::harness::Backend::kCpu},
                                  cb::ledger::LedgerSink(ledger, run, "harness"));
    for (auto _ : state) ctx.RecordExact(row);
  });
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_LedgerRecordOne)->Name("harness/ledger_record_one")->Unit(benchmark::kMicrosecond)->UseRealTime();

// The 200k-row ledger that BM_LedgerVerify reads. Built once, on first use,
// and shared by every repetition; destroyed at exit, the ledger closing
// before its directory goes.
class VerifyFixture {
 public:
  VerifyFixture() {
    if (!dir_.ok()) {
      error_ = "cannot create a temporary directory";
      return;
    }
    try {
      auto ledger = std::make_unique<Ledger>(Ledger::Open(dir_.File("verify.db")));
      std::vector<Result> rows;
      for (int i = 0; i < kVerifyRowsPerRun; ++i) rows.push_back(BenchRow(i));
      for (int done = 0; done < kVerifyRows; done += kVerifyRowsPerRun) {
        const int64_t run = ledger->BeginRun(BenchMeta());
        ledger->AddResults(run, rows);
        ledger->FinishRun(run, cb::ledger::RunStatus::kComplete);
      }
      ledger_ = std::move(ledger);
    } catch (const std::exception& e) {
      error_ = e.what();
    }
  }

  static VerifyFixture& Shared() {
    static VerifyFixture fixture;
    return fixture;
  }

  Ledger* ledger() const { return ledger_.get(); }  // null when it could not be built
  const std::string& error() const { return error_; }

 private:
  ScratchDir dir_;
  std::unique_ptr<Ledger> ledger_;
  std::string error_;
};

void BM_LedgerVerify(benchmark::State& state) {
  Ledger* ledger = VerifyFixture::Shared().ledger();
  if (ledger == nullptr) {
    state.SkipWithError(VerifyFixture::Shared().error().c_str());
    return;
  }
  for (auto _ : state) {
    const cb::ledger::VerifyReport rep = ledger->Verify();
    if (!rep.ok || rep.results != kVerifyRows) {
      state.SkipWithError(("verify failed: " + rep.first_error).c_str());
      break;
    }
  }
  state.SetItemsProcessed(state.iterations() * kVerifyRows);
}
BENCHMARK(BM_LedgerVerify)->Name("harness/ledger_verify")->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace cb::harness_bench
