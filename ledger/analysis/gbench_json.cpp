// File: ledger/analysis/gbench_json.cpp
// -----------------------------------------------------------------------------
// Google Benchmark JSON export and import (see gbench_json.h).
#include "ledger/analysis/gbench_json.h"

#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

#include "harness/hash.h"
#include "harness/stats.h"
#include "ledger/canonical.h"

namespace cb::ledger {
namespace {

namespace h = cb::harness;

// Nanoseconds per unit, 0 for a unit that is not a time.
double NsPer(const std::string& unit) {
  if (unit == "s") return 1e9;
  if (unit == "ms") return 1e6;
  if (unit == "us") return 1e3;
  if (unit == "ns") return 1.0;
  return 0.0;
}

std::string ParamText(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

std::string BenchName(const Result& r) {
  std::string name = r.suite + "/" + r.case_name;
  for (const auto& [k, v] : r.params.items()) name += "/" + k + ":" + ParamText(v);
  if (!r.backend.empty()) name += "/backend:" + r.backend;
  if (r.metric != "real_time") name += "/metric:" + r.metric;
  return name;
}

nlohmann::json Entry(const std::string& name, int family, const char* run_type, int64_t reps) {
  return {{"name", name}, {"family_index", family}, {"per_family_instance_index", 0},
          {"run_name", name}, {"run_type", run_type}, {"repetitions", reps}, {"threads", 1}};
}

double Stddev(const std::vector<double>& x, double mean) {
  if (x.size() < 2) return 0.0;
  double ss = 0;
  for (double v : x) ss += (v - mean) * (v - mean);
  return std::sqrt(ss / double(x.size() - 1));
}

const std::set<std::string>& StandardKeys() {
  static const std::set<std::string> keys = {
      "name", "family_index", "per_family_instance_index", "run_name", "run_type", "repetitions",
      "repetition_index", "threads", "iterations", "real_time", "cpu_time", "time_unit",
      "aggregate_name", "aggregate_unit", "error_occurred", "error_message", "skipped",
      "skip_message", "big_o", "rms", "cpu_coefficient", "real_coefficient", "complexity",
      "allocs_per_iter", "max_bytes_used", "label", "total_allocated_bytes", "net_heap_growth",
      "memory_iterations"};
  return keys;
}

}  // namespace

nlohmann::json ExportGbenchJson(Ledger& ledger, int64_t run_id) {
  const RunSummary run = ledger.GetRun(run_id);
  if (run.run_hash.empty()) throw LedgerError("run " + std::to_string(run_id) + " is not sealed");
  nlohmann::json context = {{"date", run.started_at},
                            {"host_name", run.host},
                            {"executable", "claimbench"},
                            {"num_cpus", 0},
                            {"mhz_per_cpu", 0},
                            {"cpu_scaling_enabled", false},
                            {"caches", nlohmann::json::array()},
                            {"load_avg", nlohmann::json::array()},
                            {"library_build_type", "release"},
                            {"json_schema_version", 1},
                            {"claimbench", {{"run_uuid", run.run_uuid}, {"run_hash", run.run_hash},
                                            {"platform_hash", run.platform_hash},
                                            {"profile", run.profile}, {"command", run.command}}}};
  nlohmann::json benches = nlohmann::json::array();
  int family = 0;
  for (const Result& r : ledger.GetResults(run_id)) {
    const std::string name = BenchName(r);
    const double ns = NsPer(r.unit);
    if (ns == 0) {
      nlohmann::json e = Entry(name, family, "iteration", 1);
      e["repetition_index"] = 0;
      e["iterations"] = 1;
      e["real_time"] = 0.0;
      e["cpu_time"] = 0.0;
      e["time_unit"] = "ns";
      e[r.metric] = std::isfinite(r.value) ? nlohmann::json(r.value) : nlohmann::json();
      benches.push_back(std::move(e));
      ++family;
      continue;
    }
    std::vector<double> samples_ns;
    for (double s : r.samples.empty() ? std::vector<double>{r.value} : r.samples) samples_ns.push_back(s * ns);
    const int64_t reps = static_cast<int64_t>(samples_ns.size());
    for (int64_t i = 0; i < reps; ++i) {
      nlohmann::json e = Entry(name, family, "iteration", reps);
      e["repetition_index"] = i;
      e["iterations"] = 1;
      e["real_time"] = samples_ns[i];
      e["cpu_time"] = samples_ns[i];
      e["time_unit"] = "ns";
      benches.push_back(std::move(e));
    }
    if (reps > 1) {
      const double mean = h::Mean(samples_ns), median = h::Median(samples_ns);
      const double sd = Stddev(samples_ns, mean);
      const std::pair<const char*, double> aggs[] = {{"mean", mean}, {"median", median},
                                                     {"stddev", sd}, {"cv", mean != 0 ? sd / mean : 0}};
      for (const auto& [agg, v] : aggs) {
        nlohmann::json e = Entry(name + "_" + agg, family, "aggregate", reps);
        e["run_name"] = name;
        e["aggregate_name"] = agg;
        e["aggregate_unit"] = std::string(agg) == "cv" ? "percentage" : "time";
        e["iterations"] = reps;
        e["real_time"] = v;
        e["cpu_time"] = v;
        e["time_unit"] = "ns";
        benches.push_back(std::move(e));
      }
    }
    ++family;
  }
  return {{"context", std::move(context)}, {"benchmarks", std::move(benches)}};
}

namespace {

int64_t ImportGbenchJsonUnchecked(Ledger& ledger, const nlohmann::json& j, const std::string& source,
                                  const std::string& command) {
  auto fail = [&](const std::string& what) -> void {
    throw std::runtime_error("gbench-json '" + source + "': " + what);
  };
  if (!j.is_object() || !j.contains("benchmarks") || !j["benchmarks"].is_array()) {
    fail("not Google Benchmark JSON (no \"benchmarks\" array)");
  }
  const nlohmann::json context = j.value("context", nlohmann::json::object());
  if (!context.is_object()) fail("\"context\" is not an object");

  struct Family {
    std::vector<double> real_ns;                          // per iteration entry
    std::map<std::string, std::vector<double>> counters;  // user counters per entry
    std::optional<double> median_ns;                      // the median aggregate
    int64_t repetitions = 0;
    int threads = 1;
  };
  std::map<std::string, Family> families;
  std::vector<std::string> order;
  size_t index = 0;
  for (const auto& e : j["benchmarks"]) {
    const std::string where = "benchmarks[" + std::to_string(index++) + "]";
    if (!e.is_object() || !e.contains("name") || !e["name"].is_string()) fail(where + ": no name");
    if (e.value("error_occurred", false) || e.value("skipped", false)) continue;
    const std::string run_name = e.value("run_name", e["name"].get<std::string>());
    if (!families.count(run_name)) order.push_back(run_name);
    Family& f = families[run_name];
    const double unit_ns = NsPer(e.value("time_unit", std::string("ns")));
    if (unit_ns == 0) fail(where + ": unknown time_unit");
    const std::string run_type = e.value("run_type", std::string("iteration"));
    if (!e.contains("real_time") || !e["real_time"].is_number()) fail(where + ": no numeric real_time");
    const double real_ns = e["real_time"].get<double>() * unit_ns;  // already per iteration
    for (const char* k : {"repetitions", "threads"})  // a float here would convert out of range (UB)
      if (e.contains(k) && !e[k].is_number_integer()) fail(where + ": '" + k + "' is not an integer");
    f.repetitions = std::max<int64_t>(f.repetitions, e.value("repetitions", int64_t{1}));
    f.threads = e.value("threads", 1);
    if (run_type == "aggregate") {
      if (e.value("aggregate_name", std::string()) == "median") f.median_ns = real_ns;
      continue;
    }
    f.real_ns.push_back(real_ns);
    for (const auto& [k, v] : e.items()) {
      if (StandardKeys().count(k) || !v.is_number()) continue;
      f.counters[k].push_back(v.get<double>());
    }
  }
  if (order.empty()) fail("no benchmark entries");

  RunMeta meta;
  meta.command = command;
  meta.profile = "gbench";
  meta.platform = context;
  for (const char* k : {"num_cpus", "mhz_per_cpu"})  // read as int below: a float could be out of range (UB)
    if (context.contains(k) && !context[k].is_number_integer())
      fail(std::string("context: '") + k + "' is not an integer");
  const nlohmann::json fingerprint = {{"host_name", context.value("host_name", "")},
                                      {"num_cpus", context.value("num_cpus", 0)},
                                      {"mhz_per_cpu", context.value("mhz_per_cpu", 0)},
                                      {"caches", context.value("caches", nlohmann::json::array())}};
  meta.platform_hash = h::Xxh3_128(CanonicalJson(fingerprint)).Hex();
  meta.build = {{"source", "google-benchmark"},
                {"library_version", context.value("library_version", "")},
                {"library_build_type", context.value("library_build_type", "")}};

  std::vector<Result> rows;
  for (const std::string& run_name : order) {
    const Family& f = families[run_name];
    const auto slash = run_name.find('/');
    Result base;
    base.suite = slash == std::string::npos ? "gbench" : run_name.substr(0, slash);
    base.case_name = slash == std::string::npos ? run_name : run_name.substr(slash + 1);
    base.backend = "cpu";
    base.threads = f.threads;
    base.kind = h::ResultKind::kTiming;  // every row of a benchmark run is read off a clock
    Result time = base;
    time.metric = "real_time";
    time.unit = "ns";
    time.direction = "lower";
    if (!f.real_ns.empty()) {
      time.samples = f.real_ns;
      time.n = static_cast<int64_t>(f.real_ns.size());
      const h::Summary s = h::Summarize(f.real_ns, /*seed=*/20250101);
      time.value = s.median;
      if (f.real_ns.size() > 1) {
        time.ci_low = s.ci.low;
        time.ci_high = s.ci.high;
      }
    } else if (f.median_ns) {
      time.value = *f.median_ns;
      time.n = f.repetitions;
    } else {
      continue;
    }
    rows.push_back(time);
    for (const auto& [counter, values] : f.counters) {
      Result c = base;
      c.metric = counter;
      c.samples = values.size() > 1 ? values : std::vector<double>{};
      c.n = static_cast<int64_t>(values.size());
      c.value = h::Median(values);
      rows.push_back(std::move(c));
    }
  }
  if (rows.empty()) fail("no usable benchmark entries (all errors or skipped)");
  ledger.BeginTransaction();
  int64_t id = 0;
  try {
    id = ledger.BeginRun(meta);
    ledger.AddResults(id, rows);
    ledger.FinishRun(id, RunStatus::kComplete);
    ledger.Commit();
  } catch (...) {
    ledger.Rollback();
    throw;
  }
  return id;
}

}  // namespace

int64_t ImportGbenchJson(Ledger& ledger, const nlohmann::json& j, const std::string& source,
                         const std::string& command) {
  try {
    return ImportGbenchJsonUnchecked(ledger, j, source, command);
  } catch (const nlohmann::json::exception& e) {
    // A field of the wrong type (.value() of a string as a number): every
    // field is read before the run is begun, so nothing was written.
    throw std::runtime_error("gbench-json '" + source + "': a field has the wrong type: " + e.what());
  }
}

}  // namespace cb::ledger
