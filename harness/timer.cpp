// File: harness/timer.cpp
// -----------------------------------------------------------------------------
// Implementation of harness/timer.h: batch calibration, repetitions and the
// paired A/B ratio. The protocol is described in the header.
#include "harness/timer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>

namespace cb::harness {
namespace {

// Seconds taken by `batch` back-to-back calls of op.
double TimeBatch(const std::function<void()>& op, int64_t batch) {
  const auto start = std::chrono::steady_clock::now();
  for (int64_t i = 0; i < batch; ++i) op();
  const auto stop = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(stop - start).count();
}

void Validate(const std::function<void()>& op, const TimingOptions& o, const char* fn) {
  const std::string name(fn);
  if (!op) throw std::invalid_argument(name + ": op is empty");
  if (o.repetitions < 1) throw std::invalid_argument(name + ": repetitions must be >= 1");
  if (o.warmup < 0) throw std::invalid_argument(name + ": warmup must be >= 0");
  if (!(o.min_batch_seconds >= 0.0)) {
    throw std::invalid_argument(name + ": min_batch_seconds must be >= 0");
  }
  if (o.max_batch < 1) throw std::invalid_argument(name + ": max_batch must be >= 1");
}

struct Calibration {
  int64_t batch = 1;
  double seconds = 0.0;  // Elapsed time of the accepted batch.
};

// The google/benchmark growth rule plus a confirmation run (see timer.h).
Calibration Calibrate(const std::function<void()>& op, const TimingOptions& o) {
  const double target = o.min_batch_seconds;
  int64_t batch = 1;
  while (true) {
    const double t = TimeBatch(op, batch);
    if (t >= target || batch >= o.max_batch) {
      if (batch >= o.max_batch) return Calibration{batch, t};
      // Confirm: a batch inflated by preemption or a cold start would leave
      // every repetition far shorter than the target.
      const double again = TimeBatch(op, batch);
      if (again >= target / 2) return Calibration{batch, t};
    }
    double multiplier = 10.0;
    if (t > 0.1 * target && t > 0.0) multiplier = std::min(10.0, 1.4 * target / t);
    if (t >= target) multiplier = 2.0;  // Failed confirmation: grow moderately.
    const double grown = std::ceil(static_cast<double>(batch) * multiplier);
    const double capped = std::min(grown, static_cast<double>(o.max_batch));
    batch = std::max(batch + 1, static_cast<int64_t>(capped));
    batch = std::min(batch, o.max_batch);
  }
}

}  // namespace

Timing MeasureCpu(const std::function<void()>& op, const TimingOptions& options) {
  Validate(op, options, "MeasureCpu");
  const Calibration cal = Calibrate(op, options);
  for (int w = 0; w < options.warmup; ++w) TimeBatch(op, cal.batch);
  Timing timing;
  timing.batch = cal.batch;
  timing.threads = options.threads;
  timing.calibration_seconds = cal.seconds;
  timing.seconds_per_op.reserve(static_cast<size_t>(options.repetitions));
  for (int r = 0; r < options.repetitions; ++r) {
    timing.seconds_per_op.push_back(TimeBatch(op, cal.batch) / static_cast<double>(cal.batch));
  }
  timing.summary = Summarize(timing.seconds_per_op, options.seed);
  return timing;
}

PairedRatio MeasurePaired(const std::function<void()>& a, const std::function<void()>& b,
                          const TimingOptions& options) {
  Validate(a, options, "MeasurePaired(a)");
  Validate(b, options, "MeasurePaired(b)");
  const Calibration cal_a = Calibrate(a, options);
  const Calibration cal_b = Calibrate(b, options);
  for (int w = 0; w < options.warmup; ++w) {
    TimeBatch(a, cal_a.batch);
    TimeBatch(b, cal_b.batch);
  }
  std::vector<double> ta, tb;
  ta.reserve(static_cast<size_t>(options.repetitions));
  tb.reserve(static_cast<size_t>(options.repetitions));
  const double na = static_cast<double>(cal_a.batch);
  const double nb = static_cast<double>(cal_b.batch);
  for (int r = 0; r < options.repetitions; ++r) {
    if (r % 2 == 0) {
      ta.push_back(TimeBatch(a, cal_a.batch) / na);
      tb.push_back(TimeBatch(b, cal_b.batch) / nb);
    } else {
      tb.push_back(TimeBatch(b, cal_b.batch) / nb);
      ta.push_back(TimeBatch(a, cal_a.batch) / na);
    }
  }
  // A timer reading of exactly zero (an op optimised away) would make the
  // ratio meaningless; fail loudly rather than store inf.
  for (double t : tb) {
    if (!(t > 0.0)) throw std::runtime_error("MeasurePaired: b measured as taking no time");
  }
  PairedRatio out = PairedRatioFromSamples(ta, tb, options.seed);
  out.a_batch = cal_a.batch;
  out.b_batch = cal_b.batch;
  return out;
}

PairedRatio PairedRatioFromSamples(std::span<const double> a, std::span<const double> b,
                                   uint64_t seed, double level, int resamples) {
  if (a.size() != b.size() || a.empty()) {
    throw std::invalid_argument("PairedRatioFromSamples: a and b must be non-empty and equal-sized");
  }
  PairedRatio out;
  out.ratios.reserve(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(a[i] >= 0.0 && std::isfinite(a[i]) && b[i] > 0.0 && std::isfinite(b[i]))) {
      throw std::invalid_argument(
          "PairedRatioFromSamples: need finite a[i] >= 0 and b[i] > 0 (pair " +
          std::to_string(i) + ")");
    }
    out.ratios.push_back(a[i] / b[i]);
  }
  // The median and its CI are exactly what Summarize() reports for a sample.
  const Summary summary = Summarize(out.ratios, seed, level, resamples);
  out.median = summary.median;
  out.ci = summary.ci;
  out.a_seconds_per_op.assign(a.begin(), a.end());
  out.b_seconds_per_op.assign(b.begin(), b.end());
  return out;
}

}  // namespace cb::harness
