// File: suites/sgp/sgp_bench.cpp
// Google Benchmark cases for SGP: program generation (the target is
// >= 1000 programs/s), librsvg rendering at 256x256 (target >= 200 renders/s
// on 2 cores; one thread and two threads), and the raster oracle.
//
// Napkin math: a program is ~1-2 KB of SVG text and ~4 questions whose rows
// each repeat the code (~6-8 KB of JSON); a 256x256 RGBA render is 256 KiB.
#include <benchmark/benchmark.h>

#include <string>
#include <thread>
#include <vector>

#include "generators/sgp.h"
#include "suites/sgp/raster_oracle.h"
#include "suites/sgp/svg_render.h"

namespace cb::sgp {
namespace {

namespace gs = cb::gen::sgp;

// One program with its questions, its SVG text and its 10 invariance variants.
void BM_GenerateProgram(benchmark::State& state) {
  const int variants = static_cast<int>(state.range(0));
  int i = 0;
  for (auto _ : state) {
    gs::Program p = gs::MakeProgram(20250101, i);
    for (int rot = 0; rot < 2; ++rot)
      for (int k = 0; k < variants; ++k) {
        const std::string svg = gs::ToSvg(gs::Transform(p.scene, gs::VariantMotion(20250101, i, k, rot == 1)));
        benchmark::DoNotOptimize(svg.data());
      }
    benchmark::DoNotOptimize(p.svg.data());
    ++i;
  }
  state.counters["programs_per_s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["threads"] = 1;
}
BENCHMARK(BM_GenerateProgram)->Name("sgp/generate_program/variants")->ArgNames({"variants"})->Arg(0)->Arg(5)->UseRealTime();

// Rendering with librsvg at 256x256: one iteration renders a batch of 64
// programs, split over `threads` std::threads (1 or 2), so renders_per_s is
// the wall-clock throughput of the whole machine at that thread count.
void BM_RenderBatch(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  std::vector<std::string> svgs;
  for (int i = 0; i < 64; ++i) svgs.push_back(gs::MakeProgram(7, i).svg);
  for (auto _ : state) {
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        for (size_t k = static_cast<size_t>(t); k < svgs.size(); k += static_cast<size_t>(threads)) {
          const Raster r = RenderSvg(svgs[k], 256, 256);
          benchmark::DoNotOptimize(r.rgba.data());
        }
      });
    for (auto& th : pool) th.join();
  }
  state.counters["renders_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations() * svgs.size()), benchmark::Counter::kIsRate);
  state.counters["threads"] = threads;
}
BENCHMARK(BM_RenderBatch)->Name("sgp/render_batch64/256x256/threads")->ArgNames({"threads"})->Arg(1)->Arg(2)->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// The oracle's count query (classification, erosion, components) on one render.
void BM_OracleCount(benchmark::State& state) {
  const gs::Program p = gs::MakeProgram(7, 0);
  const Raster r = RenderSvg(p.svg);
  const gs::OracleQuery q{"count_color", gs::Palette()[0].hex, 0, 0};
  for (auto _ : state) benchmark::DoNotOptimize(AskOracle(r, q).measure);
  state.counters["queries_per_s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_OracleCount)->Name("sgp/oracle_count/256x256")->UseRealTime();

}  // namespace
}  // namespace cb::sgp
