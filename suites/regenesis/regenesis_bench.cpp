// File: suites/regenesis/regenesis_bench.cpp
// Google Benchmark cases for ReGenesis' CPU part: answer extraction (a
// ~200-byte GSM8K-style path: one scan for the marker, one for the numbers)
// and the per-item filter over 8 sampled paths (de-duplication, 8
// extractions, the vote).
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "reference/regenesis/extract.h"
#include "reference/regenesis/vote.h"

namespace cb::regenesis {
namespace {

namespace rr = cb::ref::regenesis;

void BM_ExtractNumber(benchmark::State& state) {
  const std::string path =
      "Natalia sold 48/2 = 24 clips in May. Natalia sold 48+24 = 72 clips altogether in April and May. "
      "So she sold 72 clips, and 3 of her friends helped. The answer is 72.";
  for (auto _ : state) benchmark::DoNotOptimize(rr::ExtractAnswer(path, rr::Family::kNumber));
  state.counters["paths_per_s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["bytes_per_path"] = static_cast<double>(path.size());
}
BENCHMARK(BM_ExtractNumber)->Name("regenesis/extract_number");

void BM_FilterItem(benchmark::State& state) {
  std::vector<std::string> paths;
  for (int s = 0; s < 8; ++s)
    paths.push_back("Step " + std::to_string(s % 5) + ": add the parts. The answer is " + std::to_string(40 + s % 3) + ".");
  for (auto _ : state) benchmark::DoNotOptimize(rr::FilterPaths(paths, std::string("41"), rr::Family::kNumber));
  state.counters["items_per_s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["samples"] = 8;
}
BENCHMARK(BM_FilterItem)->Name("regenesis/filter_item");

}  // namespace
}  // namespace cb::regenesis
