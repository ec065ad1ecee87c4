// File: ledger/reporter.cpp
// -----------------------------------------------------------------------------
// LedgerReporter: Google Benchmark repetitions -> ledger Result rows (see
// reporter.h for the naming convention and the rows written).
#include "ledger/reporter.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "harness/stats.h"

namespace cb::ledger {
namespace {

using Run = benchmark::BenchmarkReporter::Run;

constexpr double kCiLevel = 0.95;
constexpr int kResamples = 2000;

// The benchmark's identity: function name and args, without run settings.
std::string IdentityName(const Run& run) {
  std::string name = run.run_name.function_name;
  if (!run.run_name.args.empty()) name += "/" + run.run_name.args;
  return name;
}

// A named axis value as JSON: an integer or a finite real when the whole text
// is one, else the text.
nlohmann::json AxisValue(const std::string& text) {
  if (text.empty()) return text;
  errno = 0;
  char* end = nullptr;
  const long long i = std::strtoll(text.c_str(), &end, 10);
  if (errno == 0 && end == text.c_str() + text.size()) return static_cast<int64_t>(i);
  errno = 0;
  end = nullptr;
  const double d = std::strtod(text.c_str(), &end);
  if (errno == 0 && end == text.c_str() + text.size() && std::isfinite(d)) return d;
  return text;
}

std::string StripBm(std::string s) {
  if (s.rfind("BM_", 0) == 0) s.erase(0, 3);
  return s;
}

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string BackendOf(const std::string& case_name) {
  size_t start = 0;
  while (start <= case_name.size()) {
    size_t end = case_name.find('/', start);
    if (end == std::string::npos) end = case_name.size();
    const std::string_view part(case_name.data() + start, end - start);
    if (part == "cpu" || part == "cuda") return std::string(part);
    start = end + 1;
  }
  return "";
}

// Nanoseconds per iteration of one repetition (manual time when the benchmark
// used it: Google Benchmark stores it as the real time).
double NsPerIteration(const Run& run) {
  return run.GetAdjustedRealTime() * (1e9 / benchmark::GetTimeUnitMultiplier(run.time_unit));
}

bool AnyNan(const std::vector<double>& v) {
  return std::any_of(v.begin(), v.end(), [](double x) { return std::isnan(x); });
}

// Fills value, n, samples and the CI of the median from per-repetition values.
void Summarise(const std::vector<double>& samples, uint64_t seed, Result* r) {
  r->samples = samples;
  r->n = static_cast<int64_t>(samples.size());
  if (samples.empty() || AnyNan(samples)) {
    r->value = std::numeric_limits<double>::quiet_NaN();  // stored as NULL
    return;
  }
  const cb::harness::Summary s = cb::harness::Summarize(samples, seed, kCiLevel, kResamples);
  r->value = s.median;
  if (samples.size() > 1) {  // one sample has no interval worth the name
    r->ci_low = s.ci.low;
    r->ci_high = s.ci.high;
  }
}

// Units per second in one unit of a ceiling (harness/ceilings.h: GB/s,
// GFLOP/s, Gblock/s; harness/cuda/ceilings_gpu.h: GB/s, TFLOP/s), or 0 for a
// unit this code does not know, which then gets no fraction rather than a
// wrong one.
double PerSecond(const std::string& unit) {
  if (unit == "GB/s" || unit == "GFLOP/s" || unit == "Gblock/s") return 1e9;
  if (unit == "TB/s" || unit == "TFLOP/s") return 1e12;
  return 0;
}

void CounterUnit(const std::string& name, const benchmark::Counter& c, Result* r) {
  if (name == "bytes_per_second") {
    r->unit = "B/s";
    r->direction = "higher";
  } else if (c.flags & benchmark::Counter::kIsRate) {
    r->unit = "1/s";
    r->direction = "higher";
  } else {
    r->unit = "";
    r->direction = "none";
  }
}

}  // namespace

std::pair<std::string, std::string> SplitBenchmarkName(const std::string& name) {
  const size_t slash = name.find('/');
  if (slash == std::string::npos) {
    std::string stripped = StripBm(name);
    return {Lower(stripped), stripped};
  }
  return {Lower(StripBm(name.substr(0, slash))), name.substr(slash + 1)};
}

BenchmarkAxes SplitBenchmarkAxes(const std::string& case_name) {
  BenchmarkAxes out;
  out.params = nlohmann::json::object();
  size_t start = 0;
  while (start <= case_name.size()) {
    size_t end = case_name.find('/', start);
    if (end == std::string::npos) end = case_name.size();
    const std::string part = case_name.substr(start, end - start);
    const size_t colon = part.find(':');
    const bool axis = colon != std::string::npos && colon > 0 &&
                      std::all_of(part.begin(), part.begin() + static_cast<long>(colon),
                                  [](unsigned char c) { return std::isalnum(c) || c == '_'; });
    const std::string key = axis ? part.substr(0, colon) : "";
    if (axis && key != "benchmark" && key != "error" && key != "ceiling" &&
        !out.params.contains(key)) {
      out.params[key] = AxisValue(part.substr(colon + 1));
    } else {
      out.case_name += (out.case_name.empty() ? "" : "/") + part;
    }
    start = end + 1;
  }
  return out;
}

std::vector<Result> BenchmarkResults(std::span<const Run> reps, uint64_t seed) {
  std::vector<Result> out;
  if (reps.empty()) return out;
  const Run& first = reps.front();
  const std::string identity = IdentityName(first);
  const auto [suite, full_case] = SplitBenchmarkName(identity);
  BenchmarkAxes axes = SplitBenchmarkAxes(full_case);

  Result base;
  base.suite = suite;
  base.case_name = axes.case_name;
  base.backend = BackendOf(full_case);
  base.params = std::move(axes.params);
  base.params["benchmark"] = first.benchmark_name();
  base.threads = static_cast<int>(first.threads);
  base.kind = cb::harness::ResultKind::kTiming;  // every row is read off a clock or meter

  const auto errored = std::find_if(reps.begin(), reps.end(),
                                    [](const Run& r) { return r.error_occurred; });
  if (errored != reps.end()) {
    Result r = base;
    r.metric = "error";
    r.unit = "";
    r.direction = "none";
    r.value = std::numeric_limits<double>::quiet_NaN();
    r.n = static_cast<int64_t>(reps.size());
    r.params["error"] = errored->error_message;
    out.push_back(std::move(r));
    return out;
  }

  std::vector<double> times;
  for (const Run& rep : reps) times.push_back(NsPerIteration(rep));
  Result time = base;
  time.metric = "real_time";
  time.unit = "ns";
  time.direction = "lower";
  Summarise(times, seed, &time);
  out.push_back(std::move(time));

  // Counters in name order (UserCounters is a std::map); a counter missing
  // from some repetition is summarised over those that have it.
  for (const auto& [name, counter] : first.counters) {
    std::vector<double> values;
    for (const Run& rep : reps) {
      auto it = rep.counters.find(name);
      if (it != rep.counters.end()) values.push_back(it->second.value);
    }
    Result r = base;
    r.metric = name;
    CounterUnit(name, counter, &r);
    Summarise(values, seed, &r);
    out.push_back(std::move(r));
  }
  return out;
}

namespace {

// "_1t" for a row that runs on one thread, "" for more (the all-core
// ceilings). The benchmark's own declaration (a "threads:N" name axis, for
// kernels that spawn their own workers) wins over Google Benchmark's count.
std::string ThreadSuffix(const Result& r) {
  int threads = r.threads;
  if (r.params.contains("threads") && r.params.at("threads").is_number_integer()) {
    threads = r.params.at("threads").get<int>();
  }
  return threads <= 1 ? "_1t" : "";
}

// The CPU ceiling a bandwidth row divides by (reporter.h AddCeilingFractions).
std::string CpuBandwidthCeiling(const Result& r) {
  const std::string access =
      r.params.contains("access") && r.params.at("access").is_string()
          ? r.params.at("access").get<std::string>()
          : "";
  if (access == "read") return "cpu_stream_read" + ThreadSuffix(r);
  if (access == "rw") return "cpu_stream_copy" + ThreadSuffix(r);
  return "cpu_copy_bandwidth" + ThreadSuffix(r);  // undeclared: the memcpy ceiling
}

}  // namespace

void AddCeilingFractions(std::span<const Ceiling> ceilings, std::vector<Result>* rows) {
  // Benchmark counters are in units per second; ceilings in their own unit.
  auto find = [&](const std::string& name) -> const Ceiling* {
    for (const Ceiling& c : ceilings) {
      if (c.name == name && c.value > 0 && PerSecond(c.unit) > 0) return &c;
    }
    return nullptr;
  };
  const size_t original = rows->size();
  for (size_t i = 0; i < original; ++i) {
    const Result& r = (*rows)[i];
    const bool gpu = r.backend == "cuda";
    std::string ceiling_name;
    if (r.metric == "bytes_per_second") ceiling_name = gpu ? "gpu_copy_bandwidth" : CpuBandwidthCeiling(r);
    if (r.metric == "flops") ceiling_name = gpu ? "gpu_sgemm" : "cpu_sgemm";
    if (r.metric == "philox_blocks_per_second" && !gpu) ceiling_name = "cpu_philox4x32_10" + ThreadSuffix(r);
    // No matching ceiling (e.g. a ledger measured before the thread-matched
    // ones existed): no row, rather than a fraction of the wrong limit.
    const Ceiling* c = ceiling_name.empty() ? nullptr : find(ceiling_name);
    if (c == nullptr) continue;
    const double limit = c->value * PerSecond(c->unit);
    Result f = r;
    f.metric = r.metric + "_fraction_of_" + c->name;
    f.unit = "1";
    f.direction = "higher";
    f.value = r.value / limit;
    if (r.ci_low) f.ci_low = *r.ci_low / limit;
    if (r.ci_high) f.ci_high = *r.ci_high / limit;
    for (double& s : f.samples) s /= limit;
    // The ceiling's name only: its value is measured, and a measured number
    // in params would make the row's identity differ from run to run.
    f.params["ceiling"] = {{"name", c->name}, {"unit", c->unit}};
    rows->push_back(std::move(f));
  }
}

LedgerReporter::LedgerReporter(Ledger& ledger, int64_t run_id,
                               benchmark::BenchmarkReporter* display, uint64_t seed)
    : ledger_(ledger), run_id_(run_id), display_(display), seed_(seed) {}

bool LedgerReporter::ReportContext(const Context& context) {
  if (display_ == nullptr) return true;
  display_->SetOutputStream(&GetOutputStream());
  display_->SetErrorStream(&GetErrorStream());
  return display_->ReportContext(context);
}

void LedgerReporter::ReportRuns(const std::vector<Run>& reports) {
  if (display_ != nullptr) display_->ReportRuns(reports);
  std::vector<std::string> complete;
  for (const Run& run : reports) {
    if (run.run_type != Run::RT_Iteration) continue;  // we compute our own aggregates
    const std::string key = run.benchmark_name();
    if (written_.count(key) != 0) continue;  // late repetition of a flushed benchmark
    auto [it, inserted] = pending_.try_emplace(key);
    if (inserted) order_.push_back(key);
    Pending& p = it->second;
    p.reps.push_back(run);
    p.expected = std::max<int64_t>(1, run.repetitions);
    if (static_cast<int64_t>(p.reps.size()) >= p.expected) {
      if (std::find(complete.begin(), complete.end(), key) == complete.end()) {
        complete.push_back(key);
      }
    }
  }
  for (const std::string& key : complete) Write(key);
}

void LedgerReporter::Finalize() {
  if (display_ != nullptr) display_->Finalize();
  for (const std::string& key : order_) {
    if (pending_.count(key) != 0) Write(key);
  }
}

namespace {
constexpr char kUnavailable[] = "unavailable: ";
}  // namespace

bool SkipUnlessAvailable(benchmark::State& state, cb::harness::Backend backend) {
  const auto status = cb::harness::Availability(backend);
  if (!status.ok) state.SkipWithError((kUnavailable + status.reason).c_str());
  return !status.ok;
}

void LedgerReporter::Write(const std::string& key) {
  auto it = pending_.find(key);
  if (it == pending_.end()) return;
  const auto& reps = it->second.reps;
  if (!reps.empty() && reps.front().error_occurred &&
      reps.front().error_message.rfind(kUnavailable, 0) == 0) {
    ++skipped_;  // a backend this machine lacks: no row, not an error
    pending_.erase(it);
    written_.insert(key);
    return;
  }
  std::vector<Result> rows = BenchmarkResults(it->second.reps, seed_);
  AddCeilingFractions(ceilings_, &rows);
  pending_.erase(it);
  written_.insert(key);
  ledger_.AddResults(run_id_, rows);
  rows_written_ += static_cast<int64_t>(rows.size());
  for (const Result& r : rows) {
    if (r.metric == "error") ++errors_;
  }
}

}  // namespace cb::ledger
