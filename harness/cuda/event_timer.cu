// File: harness/cuda/event_timer.cu
// -----------------------------------------------------------------------------
// EventTimer and TimeKernel (harness/cuda/event_timer.cuh).
#include "harness/cuda/event_timer.cuh"

#include <optional>
#include <stdexcept>

#include "harness/cuda/check.h"
#include "harness/cuda/l2_flush.cuh"

namespace cb::harness::cuda_internal {

EventTimer::EventTimer() {
  CB_CUDA_CHECK(cudaEventCreate(&start_));
  const cudaError_t err = cudaEventCreate(&stop_);
  if (err != cudaSuccess) {
    // The destructor does not run for a throwing constructor.
    CB_CUDA_CHECK_NOEXCEPT(cudaEventDestroy(start_));
    cudaGetLastError();
    ThrowCudaError(__FILE__, __LINE__, "cudaEventCreate(&stop_)", err);
  }
}

EventTimer::~EventTimer() {
  if (start_ != nullptr) CB_CUDA_CHECK_NOEXCEPT(cudaEventDestroy(start_));
  if (stop_ != nullptr) CB_CUDA_CHECK_NOEXCEPT(cudaEventDestroy(stop_));
}

void EventTimer::Start(cudaStream_t stream) { CB_CUDA_CHECK(cudaEventRecord(start_, stream)); }

void EventTimer::Stop(cudaStream_t stream) { CB_CUDA_CHECK(cudaEventRecord(stop_, stream)); }

double EventTimer::ElapsedSeconds() {
  CB_CUDA_CHECK(cudaEventSynchronize(stop_));
  float ms = 0.0f;
  CB_CUDA_CHECK(cudaEventElapsedTime(&ms, start_, stop_));
  return static_cast<double>(ms) * 1e-3;
}

std::vector<double> TimeKernel(const std::function<void(cudaStream_t)>& fn, int warmup,
                               int repetitions, bool cold, cudaStream_t stream, int batch) {
  if (warmup < 0 || repetitions < 1 || batch < 1) {
    throw std::invalid_argument("TimeKernel: need warmup >= 0, repetitions >= 1, batch >= 1");
  }
  if (cold && batch != 1) {
    throw std::invalid_argument("TimeKernel: cold mode times one call per repetition (batch 1)");
  }
  std::optional<L2Flush> flush;
  if (cold) flush.emplace();

  for (int i = 0; i < warmup; ++i) fn(stream);
  CB_CUDA_CHECK_LAUNCH();
  CB_CUDA_CHECK(cudaStreamSynchronize(stream));

  EventTimer timer;
  std::vector<double> seconds;
  seconds.reserve(repetitions);
  for (int r = 0; r < repetitions; ++r) {
    if (flush) flush->Flush(stream);
    timer.Start(stream);
    for (int b = 0; b < batch; ++b) fn(stream);
    timer.Stop(stream);
    CB_CUDA_CHECK_LAUNCH();
    seconds.push_back(timer.ElapsedSeconds() / batch);
  }
  return seconds;
}

}  // namespace cb::harness::cuda_internal
