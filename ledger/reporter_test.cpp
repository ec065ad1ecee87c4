// File: ledger/reporter_test.cpp
// -----------------------------------------------------------------------------
// LedgerReporter: the naming convention, the rows computed from repetitions
// (our own median and CI, aggregates ignored, counters, errors), and a real
// Google Benchmark run recorded through it into a verifiable ledger.
#include "ledger/reporter.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "ledger/ledger_test_util.h"

namespace cb::ledger {
namespace {

using BmRun = benchmark::BenchmarkReporter::Run;
using testutil::TempDir;

BmRun Repetition(double ns_per_iteration, int64_t index, int64_t repetitions) {
  BmRun r;
  r.run_name.function_name = "BM_Harness/loop/cpu";
  r.run_name.args = "1024";
  r.run_name.repetitions = "repeats:" + std::to_string(repetitions);
  r.run_type = BmRun::RT_Iteration;
  r.iterations = 1000;
  r.real_accumulated_time = ns_per_iteration * 1000 * 1e-9;  // seconds for all iterations
  r.cpu_accumulated_time = r.real_accumulated_time;
  r.time_unit = benchmark::kMicrosecond;  // display unit; must not change what is stored
  r.repetition_index = index;
  r.repetitions = repetitions;
  r.threads = 2;
  r.counters["items_per_second"] = benchmark::Counter(1e6 / ns_per_iteration, benchmark::Counter::kIsRate);
  r.counters["keys"] = benchmark::Counter(42.0 + static_cast<double>(index));
  return r;
}

TEST(ReporterTest, SplitBenchmarkNameFollowsTheConvention) {
  using P = std::pair<std::string, std::string>;
  EXPECT_EQ(SplitBenchmarkName("harness/ledger_insert"), P("harness", "ledger_insert"));
  EXPECT_EQ(SplitBenchmarkName("BM_Harness/loop/1024"), P("harness", "loop/1024"));
  EXPECT_EQ(SplitBenchmarkName("flashattn/forward/cuda/4096"), P("flashattn", "forward/cuda/4096"));
  EXPECT_EQ(SplitBenchmarkName("BM_Lonely"), P("lonely", "Lonely"));
}

TEST(ReporterTest, NamedAxesBecomeParamsNumbersAsNumbers) {
  BenchmarkAxes a = SplitBenchmarkAxes("ledger_insert/rows:1000/mode:fast/alpha:0.5/cpu");
  EXPECT_EQ(a.case_name, "ledger_insert/cpu");
  EXPECT_EQ(a.params, nlohmann::json({{"rows", 1000}, {"mode", "fast"}, {"alpha", 0.5}}));
  EXPECT_TRUE(a.params["rows"].is_number_integer());
  // Unnamed args stay in the case; reserved keys are not taken from a name.
  a = SplitBenchmarkAxes("loop/cpu/1024/benchmark:x");
  EXPECT_EQ(a.case_name, "loop/cpu/1024/benchmark:x");
  EXPECT_TRUE(a.params.empty());
}

TEST(ReporterTest, RowsFromRepetitions) {
  const std::vector<BmRun> reps = {Repetition(3000, 0, 3), Repetition(1000, 1, 3),
                                 Repetition(2000, 2, 3)};
  const std::vector<Result> rows = BenchmarkResults(reps, 7);
  ASSERT_EQ(rows.size(), 3u);  // real_time + 2 counters
  const Result& time = rows[0];
  EXPECT_EQ(time.suite, "harness");
  EXPECT_EQ(time.case_name, "loop/cpu/1024");
  EXPECT_EQ(time.backend, "cpu");
  EXPECT_EQ(time.metric, "real_time");
  EXPECT_EQ(time.unit, "ns");
  EXPECT_EQ(time.direction, "lower");
  EXPECT_NEAR(time.value, 2000.0, 1e-6);
  EXPECT_EQ(time.n, 3);
  ASSERT_EQ(time.samples.size(), 3u);
  EXPECT_NEAR(time.samples[0], 3000.0, 1e-6);  // raw, in repetition order
  EXPECT_NEAR(time.samples[1], 1000.0, 1e-6);
  ASSERT_TRUE(time.ci_low && time.ci_high);
  EXPECT_LE(*time.ci_low, time.value);
  EXPECT_GE(*time.ci_high, time.value);
  EXPECT_GE(*time.ci_low, 1000.0 - 1e-6);
  EXPECT_LE(*time.ci_high, 3000.0 + 1e-6);
  EXPECT_EQ(time.threads, 2);
  EXPECT_EQ(time.params["benchmark"], reps[0].benchmark_name());
  for (const Result& r : rows) EXPECT_EQ(r.kind, cb::harness::ResultKind::kTiming) << r.metric;

  const Result& items = rows[1];
  EXPECT_EQ(items.metric, "items_per_second");
  EXPECT_EQ(items.unit, "1/s");
  EXPECT_EQ(items.direction, "higher");
  EXPECT_NEAR(items.value, 500.0, 1e-9);
  const Result& keys = rows[2];
  EXPECT_EQ(keys.metric, "keys");
  EXPECT_EQ(keys.direction, "none");
  EXPECT_EQ(keys.value, 43.0);
  // The same input and seed give the same interval.
  EXPECT_EQ(BenchmarkResults(reps, 7)[0].ci_low, time.ci_low);
}

TEST(ReporterTest, ErroredBenchmarkIsOneErrorRow) {
  std::vector<BmRun> reps = {Repetition(1000, 0, 2), Repetition(1000, 1, 2)};
  reps[1].error_occurred = true;
  reps[1].error_message = "out of memory";
  const std::vector<Result> rows = BenchmarkResults(reps, 0);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].metric, "error");
  EXPECT_TRUE(std::isnan(rows[0].value));
  EXPECT_EQ(rows[0].params["error"], "out of memory");
}

// A benchmark whose backend this machine lacks (SkipUnlessAvailable) leaves
// no row and is no error; any other error is one error row.
TEST(ReporterTest, UnavailableBackendIsSkippedNotAnError) {
  TempDir dir;
  Ledger ledger = Ledger::Open(dir.File("r.db"));
  const int64_t run = ledger.BeginRun(testutil::SampleMeta());
  LedgerReporter reporter(ledger, run);
  BmRun skipped = Repetition(1000, 0, 1);
  skipped.error_occurred = true;
  skipped.error_message = "unavailable: no GPU";
  reporter.ReportRuns({skipped});
  EXPECT_EQ(ledger.GetRun(run).results, 0);
  EXPECT_EQ(reporter.skipped(), 1);
  EXPECT_EQ(reporter.errors(), 0);
  BmRun failed = Repetition(1000, 0, 1);
  failed.run_name.function_name = "BM_Harness/other/cpu";
  failed.error_occurred = true;
  failed.error_message = "out of memory";
  reporter.ReportRuns({failed});
  EXPECT_EQ(ledger.GetRun(run).results, 1);
  EXPECT_EQ(reporter.errors(), 1);
}

TEST(ReporterTest, AggregatesAreIgnoredAndRowsWrittenWhenRepetitionsAreIn) {
  TempDir dir;
  Ledger ledger = Ledger::Open(dir.File("r.db"));
  const int64_t run = ledger.BeginRun(testutil::SampleMeta());
  LedgerReporter reporter(ledger, run);
  BmRun mean = Repetition(99999, 0, 2);
  mean.run_type = BmRun::RT_Aggregate;
  mean.aggregate_name = "mean";
  reporter.ReportRuns({Repetition(1000, 0, 2)});
  EXPECT_EQ(ledger.GetRun(run).results, 0) << "written before all repetitions were in";
  reporter.ReportRuns({Repetition(3000, 1, 2), mean});
  EXPECT_EQ(ledger.GetRun(run).results, 3);
  reporter.Finalize();
  EXPECT_EQ(ledger.GetRun(run).results, 3) << "Finalize wrote a benchmark twice";
  EXPECT_NEAR(ledger.GetResults(run)[0].value, 2000.0, 1e-6);
  EXPECT_EQ(reporter.rows_written(), 3);
  EXPECT_EQ(reporter.errors(), 0);
}

// Issue 32: a bandwidth row divides by the ceiling of its own access
// pattern and thread count, never by the 2-thread copy ceiling by default.
TEST(ReporterTest, BandwidthFractionsMatchAccessAndThreadsByConstruction) {
  const std::vector<Ceiling> ceilings = {
      {"cpu_copy_bandwidth", 40, "GB/s"},      {"cpu_copy_bandwidth_1t", 20, "GB/s"},
      {"cpu_stream_read", 50, "GB/s"},         {"cpu_stream_read_1t", 25, "GB/s"},
      {"cpu_stream_copy", 30, "GB/s"},         {"cpu_stream_copy_1t", 15, "GB/s"}};
  auto row = [](nlohmann::json params, int threads) {
    return Result{.suite = "s", .case_name = "k", .backend = "cpu", .params = std::move(params),
                  .metric = "bytes_per_second", .value = 10e9, .threads = threads};
  };
  auto ceiling_of = [&](const Result& r) {
    std::vector<Result> rows = {r};
    AddCeilingFractions(ceilings, &rows);
    EXPECT_EQ(rows.size(), 2u);
    return rows.size() == 2 ? rows[1].params.at("ceiling").at("name").get<std::string>() : "";
  };
  // A 1-thread benchmark divides by a 1-thread ceiling; a read-only kernel by the read ceiling.
  EXPECT_EQ(ceiling_of(row({{"access", "read"}, {"threads", 1}}, 1)), "cpu_stream_read_1t");
  EXPECT_EQ(ceiling_of(row({{"access", "read"}, {"threads", 2}}, 1)), "cpu_stream_read");
  EXPECT_EQ(ceiling_of(row({{"access", "rw"}, {"threads", 1}}, 1)), "cpu_stream_copy_1t");
  EXPECT_EQ(ceiling_of(row({{"access", "rw"}}, 4)), "cpu_stream_copy")
      << "Google Benchmark's own thread count when no threads axis";
  // Undeclared access: the memcpy ceiling, still thread-matched.
  EXPECT_EQ(ceiling_of(row(nlohmann::json::object(), 1)), "cpu_copy_bandwidth_1t");
  EXPECT_EQ(ceiling_of(row(nlohmann::json::object(), 2)), "cpu_copy_bandwidth");
  std::vector<Result> rows = {row({{"access", "read"}, {"threads", 1}}, 1)};
  AddCeilingFractions(ceilings, &rows);
  EXPECT_DOUBLE_EQ(rows[1].value, 10.0 / 25);
  EXPECT_EQ(rows[1].metric, "bytes_per_second_fraction_of_cpu_stream_read_1t");
  // A declared ceiling the ledger lacks (one measured before it existed): no
  // row, rather than a fraction of another limit.
  std::vector<Result> old = {row({{"access", "read"}, {"threads", 1}}, 1)};
  AddCeilingFractions(std::vector<Ceiling>{{"cpu_copy_bandwidth", 40, "GB/s"}}, &old);
  EXPECT_EQ(old.size(), 1u);
}

// The names as registered carry the axes the reporter reads.
TEST(ReporterTest, AccessAndThreadsAxesAreParsedFromTheName) {
  const auto axes = SplitBenchmarkAxes("cpu/dense/access:read/threads:2/tokens:262144/real_time");
  EXPECT_EQ(axes.case_name, "cpu/dense/real_time");
  EXPECT_EQ(axes.params.at("access"), "read");
  EXPECT_EQ(axes.params.at("threads"), 2);
}

TEST(ReporterTest, BandwidthAndFlopRowsGetCeilingFractions) {
  Result bw{.suite = "s", .case_name = "copy/cpu", .backend = "cpu", .metric = "bytes_per_second",
            .value = 20e9, .ci_low = 19e9, .ci_high = 21e9, .samples = {19e9, 20e9, 21e9},
            .threads = 2};  // two threads, access undeclared: the all-core memcpy ceiling
  Result gpu_flops{.suite = "s", .case_name = "gemm/cuda", .backend = "cuda", .metric = "flops",
                   .value = 5e12};
  Result time{.suite = "s", .case_name = "copy/cpu", .metric = "real_time", .value = 100};
  std::vector<Result> rows = {bw, gpu_flops, time};
  const std::vector<Ceiling> ceilings = {{"cpu_copy_bandwidth", 40, "GB/s"},
                                         {"gpu_sgemm", 50000, "GFLOP/s"}};
  AddCeilingFractions(ceilings, &rows);
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[3].metric, "bytes_per_second_fraction_of_cpu_copy_bandwidth");
  EXPECT_DOUBLE_EQ(rows[3].value, 0.5);
  EXPECT_DOUBLE_EQ(*rows[3].ci_low, 19.0 / 40);
  EXPECT_DOUBLE_EQ(rows[3].samples[2], 21.0 / 40);
  EXPECT_EQ(rows[3].params.at("ceiling"),
            nlohmann::json({{"name", "cpu_copy_bandwidth"}, {"unit", "GB/s"}}))
      << "a measured ceiling value in params would change the row's identity every run";
  EXPECT_EQ(rows[4].metric, "flops_fraction_of_gpu_sgemm");
  EXPECT_DOUBLE_EQ(rows[4].value, 0.1);

  // No matching ceiling (a GPU bandwidth row on a CPU-only platform): no row.
  std::vector<Result> gpu_bw = {Result{.backend = "cuda", .metric = "bytes_per_second", .value = 1}};
  AddCeilingFractions(ceilings, &gpu_bw);
  EXPECT_EQ(gpu_bw.size(), 1u);
}

TEST(ReporterTest, PhiloxBlockRatesDivideByTheThreadMatchedPhiloxCeiling) {
  // A sampler that declares two threads in its name, one on Google
  // Benchmark's single thread, and a CUDA row (no CPU Philox ceiling for it).
  Result two{.case_name = "sample_pf/cpu", .backend = "cpu", .params = {{"threads", 2}},
             .metric = "philox_blocks_per_second", .value = 3e9};
  Result one{.case_name = "sample_pf/cpu", .backend = "cpu", .metric = "philox_blocks_per_second",
             .value = 1e9, .threads = 1};
  Result gpu{.case_name = "sample_pf/cuda", .backend = "cuda", .metric = "philox_blocks_per_second",
             .value = 1e12};
  std::vector<Result> rows = {two, one, gpu};
  const std::vector<Ceiling> ceilings = {{"cpu_philox4x32_10", 4, "Gblock/s"},
                                         {"cpu_philox4x32_10_1t", 2, "Gblock/s"}};
  AddCeilingFractions(ceilings, &rows);
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[3].metric, "philox_blocks_per_second_fraction_of_cpu_philox4x32_10");
  EXPECT_DOUBLE_EQ(rows[3].value, 0.75);
  EXPECT_EQ(rows[4].metric, "philox_blocks_per_second_fraction_of_cpu_philox4x32_10_1t");
  EXPECT_DOUBLE_EQ(rows[4].value, 0.5);
}

TEST(ReporterTest, CeilingFractionsFollowTheCeilingsUnit) {
  // harness/cuda/ceilings_gpu.cu stores gpu_sgemm in TFLOP/s: 5e12 flop/s
  // against 50 TFLOP/s is 0.1, not 100. A unit we cannot convert gets no row
  // rather than a guessed one.
  std::vector<Result> rows = {Result{.case_name = "gemm/cuda", .backend = "cuda",
                                     .metric = "flops", .value = 5e12}};
  const std::vector<Ceiling> tflops = {{"gpu_sgemm", 50, "TFLOP/s"}};
  AddCeilingFractions(tflops, &rows);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_DOUBLE_EQ(rows[1].value, 0.1);

  std::vector<Result> odd = {rows[0]};
  const std::vector<Ceiling> furlongs = {{"gpu_sgemm", 50, "furlongs/fortnight"}};
  AddCeilingFractions(furlongs, &odd);
  EXPECT_EQ(odd.size(), 1u);
}

TEST(ReporterTest, RealBenchmarkRunIsRecorded) {
  benchmark::RegisterBenchmark("reportertest/manual/cpu", [](benchmark::State& state) {
    for (auto _ : state) state.SetIterationTime(0.001);  // exactly 1 ms per iteration
    state.counters["widgets"] = 7;
  })->UseManualTime()->Iterations(10)->Repetitions(3);
  benchmark::RegisterBenchmark("reportertest/broken", [](benchmark::State& state) {
    state.SkipWithError("boom");
    for (auto _ : state) {
    }
  })->Iterations(1)->Repetitions(2);

  TempDir dir;
  Ledger ledger = Ledger::Open(dir.File("bench.db"));
  const int64_t run = ledger.BeginRun(testutil::SampleMeta("claimbench bench"));
  benchmark::ConsoleReporter display(benchmark::ConsoleReporter::OO_None);
  LedgerReporter reporter(ledger, run, &display);
  std::ostringstream out, err;
  reporter.SetOutputStream(&out);
  reporter.SetErrorStream(&err);
  const size_t ran = benchmark::RunSpecifiedBenchmarks(&reporter, "^reportertest/");
  EXPECT_EQ(ran, 2u);
  ledger.FinishRun(run, RunStatus::kComplete);

  EXPECT_NE(out.str().find("reportertest/manual/cpu"), std::string::npos)
      << "the display reporter did not get the runs: " << out.str();
  EXPECT_EQ(reporter.errors(), 1);
  std::vector<std::optional<cb::harness::ResultKind>> kinds;
  const auto rows = ledger.GetResults(run, &kinds);
  ASSERT_EQ(rows.size(), 3u);  // real_time + widgets, and one error row
  for (const auto& k : kinds) EXPECT_EQ(k, cb::harness::ResultKind::kTiming);
  EXPECT_EQ(rows[0].suite, "reportertest");
  EXPECT_EQ(rows[0].case_name, "manual/cpu");
  EXPECT_EQ(rows[0].backend, "cpu");
  EXPECT_EQ(rows[0].metric, "real_time");
  EXPECT_NEAR(rows[0].value, 1e6, 1e-3);
  EXPECT_EQ(rows[0].n, 3);
  EXPECT_EQ(rows[0].samples.size(), 3u);
  EXPECT_TRUE(rows[0].ci_low.has_value());
  EXPECT_EQ(rows[1].metric, "widgets");
  EXPECT_EQ(rows[1].value, 7.0);
  EXPECT_EQ(rows[2].case_name, "broken");
  EXPECT_EQ(rows[2].metric, "error");
  EXPECT_EQ(rows[2].params["error"], "boom");
  const VerifyReport v = ledger.Verify();
  EXPECT_TRUE(v.ok) << v.first_error;
}

}  // namespace
}  // namespace cb::ledger
