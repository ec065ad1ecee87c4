// File: harness/timer.h
// -----------------------------------------------------------------------------
// CPU wall-time measurement (DESIGN §5): a google/benchmark-style batch
// calibration, warm-up, r timed repetitions whose every sample is kept, a
// Summary (median, MAD, bootstrap CI of the median), and the paired A/B ratio
// used for speedup claims (interleaved repetitions, per-pair ratios, median
// ratio with a seeded bootstrap CI).
//
// Clock: std::chrono::steady_clock (monotonic; on Linux/glibc it is
// CLOCK_MONOTONIC with ns resolution). Times are wall time of the calling
// thread's loop, so an op that uses several threads is timed end to end; the
// caller states its thread count in TimingOptions::threads, which is recorded
// and never inferred.
//
// Nothing here asserts that a machine is fast or slow; the CUDA timer (events)
// lives in harness/cuda/.
#ifndef CB_HARNESS_TIMER_H_
#define CB_HARNESS_TIMER_H_

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "harness/stats.h"

namespace cb::harness {

struct TimingOptions {
  int warmup = 1;                   // Untimed batches after calibration.
  int repetitions = 10;             // Timed batches; each gives one sample.
  double min_batch_seconds = 0.02;  // Calibrate until one batch takes this long.
  int64_t max_batch = int64_t{1} << 30;  // Upper bound on ops per batch.
  uint64_t seed = 0;                // Seed of the bootstrap CI in the summary.
  int threads = 1;                  // Threads the op itself uses (recorded only).
};

struct Timing {
  std::vector<double> seconds_per_op;  // One sample per repetition: elapsed / batch.
  int64_t batch = 0;                   // Ops per timed batch.
  int threads = 1;                     // TimingOptions::threads, as given.
  Summary summary;                     // Summarize(seconds_per_op, seed).
  double calibration_seconds = 0.0;    // Elapsed time of the accepted calibration batch.
};

// MeasureCpu()
//
// Times `op`:
//   1. Calibration, as google/benchmark does it: run batches of 1, then
//      batch' = max(batch + 1, batch * m), m = 1.4 * min_batch_seconds / t (or
//      m = 10 while t < 10% of min_batch_seconds), capped at max_batch, until
//      a batch takes >= min_batch_seconds. The accepted size is then run once
//      more and must take >= min_batch_seconds / 2; otherwise growth resumes
//      (one preempted batch would otherwise leave the batch far too small).
//   2. `warmup` untimed batches.
//   3. `repetitions` timed batches; sample i = elapsed_i / batch.
// summary = Summarize(seconds_per_op, options.seed).
// REQUIRES: op non-empty; repetitions >= 1; warmup >= 0;
//           min_batch_seconds >= 0; max_batch >= 1 (throws std::invalid_argument).
Timing MeasureCpu(const std::function<void()>& op, const TimingOptions& options);

struct PairedRatio {
  std::vector<double> ratios;  // time_a / time_b for each pair, in run order.
  double median = 0.0;         // Median of ratios (> 1: A is slower than B).
  Interval ci;                 // Percentile-bootstrap CI of the median ratio.
  // The raw samples behind the ratios (seconds per op, as measured or as
  // given) and the batch sizes (0 when built by PairedRatioFromSamples).
  std::vector<double> a_seconds_per_op;
  std::vector<double> b_seconds_per_op;
  int64_t a_batch = 0;
  int64_t b_batch = 0;
};

// MeasurePaired()
//
// A/B timing on the same inputs (the caller binds them into a and b). Each of
// a and b is calibrated and warmed up as in MeasureCpu, then the
// `repetitions` pairs are run interleaved, alternating which goes first
// (pair i runs A first when i is even), so drift in clock speed or load hits
// both sides alike. ratio_i = (a's seconds per op) / (b's seconds per op);
// median and ci as PairedRatioFromSamples(..., options.seed).
// A speedup of B over A is median > 1. DESIGN §5: the caller must also check
// both outputs for correctness in the same run before using the ratio.
// REQUIRES: as MeasureCpu, for both a and b.
PairedRatio MeasurePaired(const std::function<void()>& a, const std::function<void()>& b,
                          const TimingOptions& options);

// PairedRatioFromSamples()
//
// The ratio statistics for already-measured pairs (a[i], b[i]):
// ratios[i] = a[i] / b[i]; median and ci are Summarize(ratios, seed, level,
// resamples)'s median and ci (the bootstrap CI of the median ratio). Pairs are
// resampled together (as ratios), which keeps the pairing that removes shared
// noise.
// REQUIRES: a.size() == b.size() >= 1; every a[i] >= 0 and b[i] > 0, finite;
//           0 < level < 1; resamples >= 2.
PairedRatio PairedRatioFromSamples(std::span<const double> a, std::span<const double> b,
                                   uint64_t seed, double level = 0.95, int resamples = 2000);

// DoNotOptimize()
//
// Makes the compiler assume `value` is read (and memory clobbered), so work
// whose result is otherwise unused is not removed from a timed op. GCC/Clang
// only (an empty asm statement).
template <class T>
inline void DoNotOptimize(const T& value) {
  asm volatile("" : : "g"(&value) : "memory");
}

}  // namespace cb::harness

#endif  // CB_HARNESS_TIMER_H_
