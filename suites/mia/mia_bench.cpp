// File: suites/mia/mia_bench.cpp
// Benchmarks of the MIA suite, recorded by `claimbench bench --filter mia/`:
//   mia/lm_logprob        KN 4-gram log p(x_t | ctx), tokens/s (target >= 1M/s/core)
//   mia/lm_distribution   full next-token distribution at V = 4096, positions/s
//                         (target >= 20k/s)
//   mia/lm_moments        the O(|S|) moments (mu, E[(log p)^2]) used by the claims
//   mia/score_cpu_{f32,bf16}/V   the CPU scoring kernel, bytes read per second
//                         (the best instruction-set path; counter avx512 says
//                         which); mia/score_cpu_f32_avx2* force the AVX2 path
//   mia/copy/V            memcpy of the same bytes in the same run (bytes read +
//                         written per second): the bandwidth the kernel is
//                         compared with (target: kernel >= 50% of it at V = 128k)
//   mia/score_cuda_{f32,bf16}/V  the fused CUDA kernel (skipped without a GPU;
//                         target >= 70% of HBM bandwidth)
// Every case is single-threaded unless its name says otherwise
// (mia/score_cpu_f32_all_cores uses every core, timed by wall clock).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "generators/corpora.h"
#include "harness/backend.h"
#include "harness/random.h"
#include "ledger/reporter.h"
#include "reference/lm/kn_lm.h"
#include "suites/mia/score_kernel.h"
#include "suites/mia/score_kernel_cuda.h"

#if CB_HAVE_CUDA
#include <cuda_runtime.h>
#endif

namespace cb::mia {
namespace {

using cb::ref::lm::KneserNeyLm;

// A 4-gram model on ~1M tokens of teacher text (V = 4096), built once.
struct LmFixture {
  cb::gen::MiaCorpus corpus;
  KneserNeyLm lm{4, 4096};
  int64_t probe_tokens = 0;
};

const LmFixture& Fixture() {
  static const std::unique_ptr<LmFixture> f = [] {
    cb::gen::CorpusParams p;
    p.background_docs = 2000;
    p.background_words = 500;
    p.per_class = 200;
    p.length = 256;
    auto fx = std::make_unique<LmFixture>(LmFixture{cb::gen::MakeMiaCorpus(p), KneserNeyLm(4, 4096), 0});
    fx->lm.Train(fx->corpus.TrainingSet());
    for (const auto& d : fx->corpus.nonmembers) fx->probe_tokens += int64_t(d.size());
    return fx;
  }();
  return *f;
}

void LmLogProb(benchmark::State& state) {
  const auto& f = Fixture();
  for (auto _ : state) {
    double sum = 0;
    for (const auto& d : f.corpus.nonmembers) {
      for (size_t t = 0; t < d.size(); ++t) sum += f.lm.LogProb(d, t);
    }
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * f.probe_tokens);
  state.counters["ngrams"] = double(f.lm.NgramCount());
}
BENCHMARK(LmLogProb)->Name("mia/lm_logprob")->Unit(benchmark::kMillisecond);

void LmDistribution(benchmark::State& state) {
  const auto& f = Fixture();
  std::vector<double> p(4096);
  const auto& d = f.corpus.nonmembers[0];
  for (auto _ : state) {
    for (size_t t = 0; t < d.size(); ++t) {
      f.lm.Distribution(d, t, p);
      benchmark::DoNotOptimize(p.data());
    }
  }
  // napkin math: ~4 passes over 4096 doubles per position (scale + add per order).
  state.SetItemsProcessed(state.iterations() * int64_t(d.size()));
}
BENCHMARK(LmDistribution)->Name("mia/lm_distribution")->Unit(benchmark::kMicrosecond);

void LmMoments(benchmark::State& state) {
  const auto& f = Fixture();
  for (auto _ : state) {
    double sum = 0;
    for (const auto& d : f.corpus.nonmembers) {
      for (size_t t = 0; t < d.size(); ++t) sum += f.lm.NextTokenMoments(d, t).mu;
    }
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(state.iterations() * f.probe_tokens);
}
BENCHMARK(LmMoments)->Name("mia/lm_moments")->Unit(benchmark::kMillisecond);

// Logits (rows, V): rows chosen so the buffer (>= 64 MiB) is far beyond the LLC.
struct Logits {
  int64_t rows, vocab;
  std::vector<float> f32;
  std::vector<uint16_t> bf16;
  std::vector<int32_t> targets;
};

Logits MakeLogits(int64_t vocab, LogitType type) {
  Logits l{std::max<int64_t>(8, (int64_t{64} << 20) / (vocab * 4)), vocab, {}, {}, {}};
  cb::harness::Rng rng(7, 0);
  const size_t n = size_t(l.rows * vocab);
  if (type == LogitType::kF32) {
    l.f32.resize(n);
    for (auto& x : l.f32) x = float(3.0 * (rng.Uniform() - 0.5));
  } else {
    l.bf16.resize(n);
    for (auto& x : l.bf16) x = FloatToBf16(float(3.0 * (rng.Uniform() - 0.5)));
  }
  for (int64_t r = 0; r < l.rows; ++r) l.targets.push_back(int32_t(rng.UniformInt(0, vocab - 1)));
  return l;
}

void ScoreCpu(benchmark::State& state, LogitType type, int threads, CpuPath path = CpuPath::kAuto) {
  if (!CpuPathAvailable(path)) {
    // "unavailable: " makes the ledger reporter skip the case, not fail it.
    state.SkipWithError((std::string("unavailable: this CPU cannot run the ") + CpuPathName(path) + " path").c_str());
    return;
  }
  const Logits l = MakeLogits(state.range(0), type);
  const LogitsView view{type == LogitType::kF32 ? static_cast<const void*>(l.f32.data()) : l.bf16.data(),
                        l.rows, l.vocab, type};
  for (auto _ : state) {
    auto s = ScorePositionsCpu(view, l.targets, threads, path);
    benchmark::DoNotOptimize(s.logp.data());
  }
  // napkin math: each logit is read once from DRAM (the chunk's second visit hits L1).
  state.SetBytesProcessed(state.iterations() * l.rows * l.vocab * int64_t(view.ElementBytes()));
  state.SetItemsProcessed(state.iterations() * l.rows);
  state.counters["threads"] = threads;
  state.counters["avx512"] = (path == CpuPath::kAuto ? BestCpuPath() : path) == CpuPath::kAvx512;
}
int AllCores() { return std::max(1u, std::thread::hardware_concurrency()); }
BENCHMARK_CAPTURE(ScoreCpu, f32, LogitType::kF32, 1)->Name("mia/score_cpu_f32/access:read/threads:1")->ArgNames({"vocab"})->Arg(4096)->Arg(131072)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(ScoreCpu, bf16, LogitType::kBf16, 1)->Name("mia/score_cpu_bf16/access:read/threads:1")->ArgNames({"vocab"})->Arg(131072)->UseRealTime()->Unit(benchmark::kMillisecond);
// Access and threads in the name (issue 32): the fraction row divides by the
// read-only ceiling at the same thread count; every rate from wall time (CPU
// time of the calling thread would flatter the multi-threaded cases).
// All cores:
BENCHMARK_CAPTURE(ScoreCpu, f32_mt, LogitType::kF32, AllCores())->Name("mia/score_cpu_f32_all_cores/access:read/threads:" + std::to_string(AllCores()))->ArgNames({"vocab"})->Arg(131072)->UseRealTime()->Unit(benchmark::kMillisecond);
// The AVX2 path forced (what a CPU without AVX-512 runs), one and all cores.
BENCHMARK_CAPTURE(ScoreCpu, f32_avx2, LogitType::kF32, 1, CpuPath::kAvx2)->Name("mia/score_cpu_f32_avx2/access:read/threads:1")->ArgNames({"vocab"})->Arg(131072)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(ScoreCpu, f32_avx2_mt, LogitType::kF32, AllCores(), CpuPath::kAvx2)->Name("mia/score_cpu_f32_avx2_all_cores/access:read/threads:" + std::to_string(AllCores()))->ArgNames({"vocab"})->Arg(131072)->UseRealTime()->Unit(benchmark::kMillisecond);

void Copy(benchmark::State& state) {
  const Logits l = MakeLogits(state.range(0), LogitType::kF32);
  std::vector<float> dst(l.f32.size());
  for (auto _ : state) {
    std::memcpy(dst.data(), l.f32.data(), l.f32.size() * sizeof(float));
    benchmark::ClobberMemory();
  }
  // bytes read + written, as the platform's copy-bandwidth ceiling counts them.
  state.SetBytesProcessed(state.iterations() * int64_t(l.f32.size() * sizeof(float)) * 2);
}
BENCHMARK(Copy)->Name("mia/copy/access:rw/threads:1")->ArgNames({"vocab"})->Arg(131072)->UseRealTime()->Unit(benchmark::kMillisecond);

void ScoreCuda(benchmark::State& state, LogitType type) {
#if CB_HAVE_CUDA
  if (cb::ledger::SkipUnlessAvailable(state, cb::harness::Backend::kCuda)) return;
  const int64_t vocab = state.range(0), rows = 512;
  const size_t elem = type == LogitType::kF32 ? 4 : 2, bytes = size_t(rows * vocab) * elem;
  void* d_logits = nullptr;
  int32_t* d_targets = nullptr;
  float* d_out = nullptr;
  auto release = [&] {
    cudaFree(d_logits);
    cudaFree(d_targets);
    cudaFree(d_out);
  };
  cudaError_t err = cudaMalloc(&d_logits, bytes);
  if (err == cudaSuccess) err = cudaMalloc(reinterpret_cast<void**>(&d_targets), rows * sizeof(int32_t));
  if (err == cudaSuccess) err = cudaMalloc(reinterpret_cast<void**>(&d_out), 3 * rows * sizeof(float));
  // finite values (0x3c3c... is ~0.0115 in fp32, ~0.0115 in bf16)
  if (err == cudaSuccess) err = cudaMemset(d_logits, 0x3c, bytes);
  if (err == cudaSuccess) err = cudaMemset(d_targets, 0, rows * sizeof(int32_t));
  if (err != cudaSuccess) {
    release();
    state.SkipWithError((std::string("cuda setup failed: ") + cudaGetErrorString(err)).c_str());
    return;
  }
  for (auto _ : state) {
    const double ms = TimeScorePositionsCuda(d_logits, rows, vocab, type, d_targets, d_out, d_out + rows,
                                             d_out + 2 * rows, 10);
    state.SetIterationTime(ms / 1e3);
  }
  state.SetBytesProcessed(state.iterations() * int64_t(bytes));
  release();
#else
  (void)type;
  state.SkipWithError("built without CUDA");
#endif
}
// Registered only where an NVIDIA driver is present (checked by its files, not
// by a CUDA call, which is unsafe during static initialisation), so that
// `claimbench bench` on a machine without a GPU does not fail on them; with a
// driver but no usable device they run and fail loudly.
const bool kCudaBenchmarksRegistered = [] {
  if (!std::filesystem::exists("/dev/nvidiactl") && !std::filesystem::exists("/proc/driver/nvidia/version")) {
    return false;
  }
  for (const LogitType type : {LogitType::kF32, LogitType::kBf16}) {
    benchmark::RegisterBenchmark(type == LogitType::kF32 ? "mia/score_cuda_f32" : "mia/score_cuda_bf16",
                                 [type](benchmark::State& st) { ScoreCuda(st, type); })
        ->ArgNames({"vocab"})
        ->Arg(131072)
        ->Arg(262144)
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
  }
  return true;
}();

}  // namespace
}  // namespace cb::mia
