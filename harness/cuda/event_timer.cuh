// File: harness/cuda/event_timer.cuh
// -----------------------------------------------------------------------------
// GPU timing with CUDA events (DESIGN §5 "CUDA time"), for .cu files.
//
//   EventTimer   a start/stop event pair recorded on a stream; the elapsed
//                time is measured by the GPU, so host launch overhead before
//                the start event is not counted.
//   TimeKernel   warm-up, then `repetitions` timed repetitions, each its own
//                sample (the statistics layer wants every sample, not a mean).
//                Cold mode flushes L2 before each repetition (L2Flush), outside
//                the timed interval.
//
// Deliberate omission: nvbench also queues work behind a "blocking kernel" so
// launch latency is hidden even for tiny kernels. We use `batch` instead (time
// k back-to-back calls, report the mean), which is enough for the >= tens of
// microseconds kernels the suites time, and keeps this file small.
#ifndef CB_HARNESS_CUDA_EVENT_TIMER_CUH_
#define CB_HARNESS_CUDA_EVENT_TIMER_CUH_

#include <cuda_runtime.h>

#include <functional>
#include <vector>

namespace cb::harness::cuda_internal {

class EventTimer {
 public:
  // Creates the two events (with timing enabled). Throws CudaError.
  EventTimer();
  ~EventTimer();
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  void Start(cudaStream_t stream);
  void Stop(cudaStream_t stream);
  // Waits for the stop event, then returns stop - start in seconds.
  // REQUIRES: Start() and Stop() were recorded, in that order.
  double ElapsedSeconds();

 private:
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

// Runs `fn(stream)` `warmup` times untimed, then `repetitions` timed
// repetitions; returns one sample per repetition, in seconds per call of fn.
// Each repetition times `batch` back-to-back calls and divides by `batch`.
// Cold mode enqueues an L2 flush on `stream` before every repetition.
// fn must enqueue all its work on the stream it is given. Launch errors are
// checked after every repetition, so a bad launch inside fn throws CudaError
// even if fn forgot its own CB_CUDA_CHECK_LAUNCH().
// REQUIRES: warmup >= 0, repetitions >= 1, batch >= 1, and batch == 1 when
// cold (a flush between calls of one batch would be timed).
std::vector<double> TimeKernel(const std::function<void(cudaStream_t)>& fn, int warmup,
                               int repetitions, bool cold, cudaStream_t stream = nullptr,
                               int batch = 1);

}  // namespace cb::harness::cuda_internal

#endif  // CB_HARNESS_CUDA_EVENT_TIMER_CUH_
