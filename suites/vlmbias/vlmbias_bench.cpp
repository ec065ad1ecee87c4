// File: suites/vlmbias/vlmbias_bench.cpp
// Google Benchmark cases for the cultural-bias statistics: parse_selection on
// a mapper-style answer (4 options: 4 lower-cased substring searches), and
// the bias ratio's bootstrap (`resamples` replicates over `units` units per
// region: each replicate draws every unit once with replacement and tallies
// its cells, O(resamples x units)).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "reference/vlmbias/bias.h"
#include "reference/vlmbias/parse_selection.h"

namespace cb::vlmbias {
namespace {

namespace rv = cb::ref::vlmbias;

void BM_ParseSelection(benchmark::State& state) {
  const std::vector<std::string> choices = {"Rose", "Lotus", "Jasmine", "Hibiscus"};
  const std::string out = "The closest answer is 2) Lotus, since the flower in the text is a lotus.";
  uint64_t s = 0;
  for (auto _ : state) benchmark::DoNotOptimize(rv::ParseSelection(out, choices, 1, ++s));
  state.counters["answers_per_s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ParseSelection)->Name("vlmbias/parse_selection");

void BM_BiasRatio(benchmark::State& state) {
  const int units = static_cast<int>(state.range(0)), resamples = static_cast<int>(state.range(1));
  std::vector<rv::Observation> obs;
  for (int i = 0; i < units; ++i) {
    obs.push_back({"w" + std::to_string(i), "", rv::Region::kWest, i % 3 ? 1.0 : 0.0});
    obs.push_back({"e" + std::to_string(i), "", rv::Region::kEastAsia, i % 2 ? 1.0 : 0.0});
  }
  for (auto _ : state) benchmark::DoNotOptimize(rv::BiasRatio(obs, "", resamples, 7));
  state.counters["unit_draws_per_s"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * 2.0 * units * resamples, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_BiasRatio)->Name("vlmbias/bias_ratio")->ArgNames({"units", "resamples"})->Args({1000, 2000})->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace cb::vlmbias
