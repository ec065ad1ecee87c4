// File: suites/pf/pf.cu
// -----------------------------------------------------------------------------
// CUDA path of suites/pf/pf.h: fused keyed-noise argmax sampling and the
// watermark scoring terms. The noise is the reference's: Philox4x32-10 with
// key = `key`, counter = (token / 2, stream), word pair token % 2
// (reference/pf/prf.h), so with the same keys the tokens equal the CPU's.
//
//   sample_partial_kernel  grid (blocks_per_row, batch), 256 threads. Thread
//       = a grid-stride loop over PAIRS of tokens (one Philox block per pair);
//       each keeps its best (value, id); warp shuffles, then shared memory,
//       reduce to one candidate per block, written to partial[row][block].
//   sample_final_kernel    grid (batch), 256 threads: reduces a row's partials.
//   Order: larger value wins, equal values go to the lower id, so the result
//   does not depend on the reduction's shape.
//   score_terms_kernel     thread = one (text, position): context hash, r,
//       term (same formulas as ScoreTermsCpu).
// Napkin math: one row of V = 128k fp32 logits is 512 KiB read once; H200
// HBM3e ~4.8 TB/s -> ~0.11 us per row at the roofline; the Philox (10 rounds,
// ~20 integer multiplies per pair) and a log per surviving candidate are
// hidden behind it on a batch of rows.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "harness/cuda/check.h"
#include "harness/cuda/device_buffer.cuh"
#include "harness/cuda/event_timer.cuh"
#include "reference/pf/prf.h"
#include "suites/pf/pf.h"

namespace cb::pf {
namespace {

using cb::harness::DeviceBuffer;
using cb::harness::cuda_internal::EventTimer;

constexpr int kThreads = 256;
constexpr int kMaxBlocksPerRow = 64;
constexpr double kLn2 = 0.69314718055994530942;

struct Candidate {
  double value;
  long long index;  // -1: none
};

__device__ __forceinline__ bool Better(const Candidate& a, const Candidate& b) {
  if (a.index < 0) return false;
  if (b.index < 0) return true;
  return a.value > b.value || (a.value == b.value && a.index < b.index);
}

__device__ __forceinline__ int Exponent(double x) {
  return static_cast<int>((__double_as_longlong(x) >> 52) & 0x7FF) - 1023;
}

__device__ __forceinline__ void Consider(Candidate& best, long long i, float logit,
                                         double temperature, int noise, uint64_t word) {
  if (logit == -INFINITY) return;
  const double a = static_cast<double>(logit) / temperature;
  if (noise == 0) {
    const Candidate c{static_cast<double>(logit), i};
    if (Better(c, best)) best = c;
    return;
  }
  const double r = cb::harness::UniformFromBits(word);
  const int e = noise == 1 ? Exponent(r) : Exponent(1.0 - r);
  const double bound = a + (1 - e) * kLn2;
  if (best.index >= 0 && bound <= best.value) return;
  const double v = noise == 1 ? a + -log(r) : a + -log(-log(r));
  const Candidate c{v, i};
  if (Better(c, best)) best = c;
}

// Block-wide reduction of one candidate per thread; result in thread 0.
__device__ Candidate BlockReduce(Candidate c) {
  for (int offset = 16; offset > 0; offset >>= 1) {
    Candidate o;
    o.value = __shfl_down_sync(0xffffffffu, c.value, offset);
    o.index = __shfl_down_sync(0xffffffffu, c.index, offset);
    if (Better(o, c)) c = o;
  }
  __shared__ Candidate warp_best[kThreads / 32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) warp_best[warp] = c;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < static_cast<int>(blockDim.x / 32); ++w)
      if (Better(warp_best[w], c)) c = warp_best[w];
  }
  return c;
}

__global__ void sample_partial_kernel(const float* __restrict__ logits, long long vocab,
                                      double temperature, int noise, uint64_t key,
                                      const uint64_t* __restrict__ streams,
                                      Candidate* __restrict__ partial) {
  const long long row = blockIdx.y;
  const float* x = logits + row * vocab;
  const uint64_t stream = streams[row];
  const cb::harness::Philox4x32Key k = cb::harness::PhiloxKey(key);
  Candidate best{0.0, -1};
  const long long pairs = (vocab + 1) / 2;
  for (long long p = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; p < pairs;
       p += static_cast<long long>(gridDim.x) * blockDim.x) {
    const long long i = 2 * p;
    uint64_t w0 = 0, w1 = 0;
    if (noise != 0) {
      const cb::harness::Philox4x32Block b = cb::harness::Philox4x32_10::Generate(
          cb::harness::PhiloxCounter(static_cast<uint64_t>(p), stream), k);
      w0 = static_cast<uint64_t>(b.v[0]) | (static_cast<uint64_t>(b.v[1]) << 32);
      w1 = static_cast<uint64_t>(b.v[2]) | (static_cast<uint64_t>(b.v[3]) << 32);
    }
    Consider(best, i, x[i], temperature, noise, w0);
    if (i + 1 < vocab) Consider(best, i + 1, x[i + 1], temperature, noise, w1);
  }
  best = BlockReduce(best);
  if (threadIdx.x == 0) partial[row * gridDim.x + blockIdx.x] = best;
}

__global__ void sample_final_kernel(const Candidate* __restrict__ partial, int blocks_per_row,
                                    int* __restrict__ tokens) {
  Candidate best{0.0, -1};
  for (int j = threadIdx.x; j < blocks_per_row; j += blockDim.x) {
    const Candidate c = partial[static_cast<long long>(blockIdx.x) * blocks_per_row + j];
    if (Better(c, best)) best = c;
  }
  best = BlockReduce(best);
  if (threadIdx.x == 0) tokens[blockIdx.x] = static_cast<int>(best.index);
}

__global__ void score_terms_kernel(const int* __restrict__ texts, long long count, long long n,
                                   int m, uint64_t key, int mode, double gamma,
                                   double* __restrict__ terms) {
  const long long g = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (g >= count * n) return;
  const long long c = g / n, t = g % n;
  double term = 0;
  if (t >= m) {
    const int* text = texts + c * n;
    const uint64_t ctx = cb::ref::pf::ContextHashAt(text, t, m);
    const double r =
        cb::ref::pf::KeyedUniformAt(key, ctx, static_cast<uint64_t>(static_cast<uint32_t>(text[t])));
    term = mode == 1 ? -log(r) : mode == 2 ? -log1p(-r) : (r < gamma ? 1.0 : 0.0);
  }
  terms[g] = term;
}

int NoiseCode(Noise noise) {
  return noise == Noise::kNone ? 0 : noise == Noise::kExponential ? 1 : 2;
}

int BlocksPerRow(int64_t vocab) {
  const int64_t pairs = (vocab + 1) / 2;
  return static_cast<int>(std::clamp<int64_t>((pairs + kThreads * 4 - 1) / (kThreads * 4), 1,
                                              kMaxBlocksPerRow));
}

// Logits and streams resident on the device, with the partials and tokens.
struct DeviceSampler {
  DeviceSampler(const LogitsView& logits, std::span<const uint64_t> streams)
      : batch(logits.batch),
        vocab(logits.vocab),
        blocks(BlocksPerRow(logits.vocab)),
        x(std::span<const float>(logits.data, logits.batch * logits.vocab)),
        s(streams),
        partial(static_cast<size_t>(logits.batch * blocks)),
        tokens(static_cast<size_t>(logits.batch)) {}

  void Enqueue(double temperature, Noise noise, uint64_t key) {
    const dim3 grid(blocks, static_cast<unsigned>(batch));
    sample_partial_kernel<<<grid, kThreads>>>(x.data(), vocab, temperature, NoiseCode(noise), key,
                                              s.data(), partial.data());
    CB_CUDA_CHECK_LAUNCH();
    sample_final_kernel<<<static_cast<unsigned>(batch), kThreads>>>(partial.data(), blocks,
                                                                    tokens.data());
    CB_CUDA_CHECK_LAUNCH();
  }

  int64_t batch, vocab;
  int blocks;
  DeviceBuffer<float> x;
  DeviceBuffer<uint64_t> s;
  DeviceBuffer<Candidate> partial;
  DeviceBuffer<int> tokens;
};

}  // namespace

void SampleCuda(const LogitsView& logits, double temperature, Noise noise, uint64_t key,
                std::span<const uint64_t> streams, std::span<int32_t> tokens) {
  if (logits.batch > 65535) throw std::invalid_argument("CUDA sampling: batch above 65535");
  DeviceSampler dev(logits, streams);
  dev.tokens.Poison();
  dev.Enqueue(temperature, noise, key);
  std::vector<int> out = dev.tokens.ToHost();
  std::copy(out.begin(), out.end(), tokens.begin());
}

double TimeSampleCuda(const LogitsView& logits, double temperature, Noise noise, uint64_t key,
                      int repeats) {
  std::vector<uint64_t> streams(static_cast<size_t>(logits.batch));
  for (size_t b = 0; b < streams.size(); ++b) streams[b] = b;
  DeviceSampler dev(logits, streams);
  dev.Enqueue(temperature, noise, key);  // warm-up
  CB_CUDA_CHECK(cudaDeviceSynchronize());
  EventTimer timer;
  timer.Start(nullptr);
  for (int r = 0; r < repeats; ++r) dev.Enqueue(temperature, noise, key);
  timer.Stop(nullptr);
  return timer.ElapsedSeconds() / repeats;
}

void ScoreTermsCuda(cb::ref::pf::Watermark w, const cb::ref::pf::WatermarkParams& params,
                    std::span<const int32_t> texts, int64_t count, int64_t n,
                    std::span<double> terms) {
  const int mode = w == cb::ref::pf::Watermark::kPf ? 1 : w == cb::ref::pf::Watermark::kGumbel ? 2 : 3;
  DeviceBuffer<int> d_texts(std::span<const int>(texts.data(), texts.size()));
  DeviceBuffer<double> d_terms(terms.size());
  d_terms.Poison();
  const int64_t total = count * n;
  score_terms_kernel<<<static_cast<unsigned>((total + kThreads - 1) / kThreads), kThreads>>>(
      d_texts.data(), count, n, params.context, params.key, mode, params.gamma, d_terms.data());
  CB_CUDA_CHECK_LAUNCH();
  d_terms.CopyToHost(terms);
}

}  // namespace cb::pf
