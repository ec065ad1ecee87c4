// File: ledger/cli/bench_command.cpp
// `claimbench bench`: runs the registered Google Benchmark cases (every
// suite's <method>_bench.cpp is linked into this binary) and records them
// through the ledger reporter — the one results path (DESIGN §9) — in a run
// with the platform, build and ceilings.
//
// Benchmark names follow "<suite>/<case>[/<args>]".
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "harness/blas_info.h"
#include "harness/claim.h"
#include "harness/cli/commands.h"
#include "ledger/cli/common.h"
#include "ledger/reporter.h"
#include "ledger/run_guard.h"

namespace cb::cli {
namespace {

// Seals the run "interrupted" and exits after the benchmark that was running
// when SIGINT/SIGTERM arrived: Google Benchmark has no way to stop a run
// midway, and every finished benchmark is already committed.
class InterruptibleReporter : public cb::ledger::LedgerReporter {
 public:
  InterruptibleReporter(cb::ledger::Ledger& ledger, int64_t run_id,
                        benchmark::BenchmarkReporter* display)
      : LedgerReporter(ledger, run_id, display), ledger_(ledger), run_id_(run_id) {}

  void ReportRuns(const std::vector<Run>& reports) override {
    LedgerReporter::ReportRuns(reports);
    if (!cb::harness::InterruptRequested()) return;
    Finalize();
    ledger_.FinishRun(run_id_, cb::ledger::RunStatus::kInterrupted);
    std::fprintf(stderr, "claimbench: interrupted by signal %d; run %lld sealed as interrupted\n",
                 cb::harness::InterruptSignal(), static_cast<long long>(run_id_));
    std::fflush(stdout);
    std::_Exit(kExitError);
  }

 private:
  cb::ledger::Ledger& ledger_;
  int64_t run_id_;
};

struct BenchOptions {
  std::string filter = ".";
  double min_time = 0.1;
  int repetitions = 5;
  std::string ledger;
  bool list = false;
  bool remeasure_ceilings = false;
};

// Google Benchmark takes its settings as command-line flags; build them from ours.
void InitializeBenchmark(const BenchOptions& o, bool list) {
  // Google Benchmark keeps argv[0] (it prints it in the context): it must
  // outlive this call. The flags it copies.
  static char program[] = "claimbench";
  std::vector<std::string> args = {"--benchmark_filter=" + o.filter,
                                   "--benchmark_repetitions=" + std::to_string(o.repetitions),
                                   "--benchmark_min_time=" + std::to_string(o.min_time),
                                   std::string("--benchmark_list_tests=") + (list ? "true" : "false")};
  std::vector<char*> argv = {program};
  for (auto& a : args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  benchmark::Initialize(&argc, argv.data());
}

int Bench(const BenchOptions& o, const CommandLine& cmdline) {
  try {
    std::regex re(o.filter);
  } catch (const std::regex_error&) {
    throw UsageError("--filter '" + o.filter + "': not a valid regular expression");
  }
  if (o.repetitions < 1) throw UsageError("--repetitions must be >= 1");
  if (!(o.min_time > 0)) throw UsageError("--min-time must be > 0 seconds");

  // Which benchmarks match, found silently before anything is written: a
  // filter that matches nothing is bad input and must change nothing.
  InitializeBenchmark(o, /*list=*/true);
  std::ostringstream names, ignored;
  benchmark::ConsoleReporter silent;
  silent.SetOutputStream(&names);
  silent.SetErrorStream(&ignored);
  benchmark::RunSpecifiedBenchmarks(&silent);
  if (names.str().empty()) {
    throw UsageError("--filter '" + o.filter + "': no benchmark matches (see bench --list)");
  }
  if (o.list) {
    std::fputs(names.str().c_str(), stdout);
    return kExitOk;
  }
  InitializeBenchmark(o, /*list=*/false);

  CeilingLoadOverride();  // a bad CB_CEILING_LOAD is refused before the ledger is touched
  cb::ledger::Ledger ledger = cb::ledger::Ledger::Open(ResolveLedgerPath(o.ledger));
  const auto meta = CollectRunMeta(JoinArgs(cmdline.argc, cmdline.argv), "bench", 0);
  // A warning only (issue 32): FLOP-bound rows and their cpu_sgemm fractions
  // are then of OpenBLAS's generic kernels, not of this CPU.
  if (const std::string w = cb::harness::BlasKernelWarning(meta.platform); !w.empty()) {
    std::printf("%s\n", w.c_str());
  }
  auto ceilings = EnsureCeilings(ledger, meta.platform_hash, o.remeasure_ceilings);
  cb::harness::ThrowIfInterrupted("before the run started");
  const int64_t run_id = ledger.BeginRun(meta);
  cb::ledger::RunGuard run(ledger, run_id);  // sealed "failed" if a benchmark throws

  // Colour only on a terminal, and never with NO_COLOR set.
  const bool color = isatty(STDOUT_FILENO) == 1 && std::getenv("NO_COLOR") == nullptr;
  benchmark::ConsoleReporter display(color ? benchmark::ConsoleReporter::OO_ColorTabular
                                           : benchmark::ConsoleReporter::OO_Tabular);
  InterruptibleReporter reporter(ledger, run_id, &display);
  reporter.SetCeilings(std::move(ceilings));
  const size_t ran = benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  run.Finish(reporter.errors() > 0 ? cb::ledger::RunStatus::kFailed : cb::ledger::RunStatus::kComplete);
  const auto summary = ledger.GetRun(run_id);
  if (reporter.skipped() > 0) {
    std::printf("skipped %d benchmarks whose backend is unavailable here (see `claimbench list`)\n",
                reporter.skipped());
  }
  std::printf("recorded %zu benchmarks in run %lld (%s), run_hash %s, ledger %s\n", ran,
              static_cast<long long>(run_id), summary.status.c_str(), summary.run_hash.c_str(),
              ledger.path().c_str());
  return reporter.errors() > 0 ? kExitError : kExitOk;
}

}  // namespace

void AddBenchCommand(CLI::App& app, const CommandLine& cmdline, int* exit_code) {
  auto options = std::make_shared<BenchOptions>();
  CLI::App* cmd = app.add_subcommand("bench", "Run the registered benchmarks and record them");
  cmd->add_option("--filter", options->filter, "Regex over benchmark names")->capture_default_str();
  cmd->add_option("--min-time", options->min_time, "Minimum seconds per repetition")
      ->capture_default_str();
  cmd->add_option("--repetitions", options->repetitions, "Repetitions (raw samples) per benchmark")
      ->capture_default_str();
  AddLedgerOption(cmd, &options->ledger);
  cmd->add_flag("--list", options->list, "List the matching benchmarks; run nothing");
  cmd->add_flag("--remeasure-ceilings", options->remeasure_ceilings,
                "Measure the machine's ceilings again; keep each stored one unless beaten");
  cmd->callback([options, cmdline, exit_code] { *exit_code = Bench(*options, cmdline); });
}

CB_REGISTER_COMMAND(bench, AddBenchCommand);

}  // namespace cb::cli
