// File: suites/radar/radar_cuda.h
// -----------------------------------------------------------------------------
// Host-only declarations of the CUDA pieces of the Radar path (radar.cu),
// called by the backend-neutral organisation in radar_cpu.cpp. Every
// function throws cb::harness::CudaError on a CUDA failure.
#ifndef CB_SUITES_RADAR_RADAR_CUDA_H_
#define CB_SUITES_RADAR_RADAR_CUDA_H_

#if CB_HAVE_CUDA
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace cb::radar::cuda {

struct State;  // K, V, Omega, summaries on the device
struct StateDeleter {
  void operator()(State* s) const;
};
using StatePtr = std::unique_ptr<State, StateDeleter>;

StatePtr Create(const float* omega, int d, int D);
void Append(State& s, const float* keys, const float* values, int64_t n);
// Max over keys [first, first + n) and features of both exponent halves.
std::pair<double, double> Stabilisers(State& s, int64_t first, int64_t n);
// Appends `count` summaries of c-token segments starting at token `first`.
void Summarise(State& s, int64_t first, int64_t count, int64_t c, float s_plus, float s_minus);
void ClearSummaries(State& s);
std::vector<float> Summaries(const State& s);  // (n_seg, 2D)
// phi(q) on the device, scores phi(q).R_j, top-k by a block-wide argmax
// repeated k times (ties: lower index). Returns the k segment indices.
std::vector<int64_t> TopSegments(State& s, const float* q, int64_t k);
// Exact attention over spans (split-K, merged on the device).
void AttendSpans(State& s, const float* q, const std::vector<std::pair<int64_t, int64_t>>& spans,
                 float* out);
// Dense decode from host arrays (uploads, then the split-K kernel).
void DenseDecode(const float* q, const float* keys, const float* values, int64_t t, int d,
                 float* out);

}  // namespace cb::radar::cuda
#endif

#endif  // CB_SUITES_RADAR_RADAR_CUDA_H_
