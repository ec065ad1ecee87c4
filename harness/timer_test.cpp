// File: harness/timer_test.cpp
// -----------------------------------------------------------------------------
// Tests of harness/timer.h. They check the protocol (sample counts, batch
// calibration, caps, errors) and the paired-ratio statistics on synthetic data
// with a known ratio; none asserts an absolute speed. The one test on real ops
// compares two loops of 1x and 4x the work, interleaved, with wide bounds.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/random.h"
#include "harness/stats.h"
#include "harness/timer.h"

namespace cb::harness {
namespace {

// A few ns per step of dependent integer work the compiler cannot fold.
uint64_t Spin(int steps) {
  uint64_t h = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < steps; ++i) h = h * 6364136223846793005ull + static_cast<uint64_t>(i);
  return h;
}

TEST(Timer, MeasureCpuKeepsEverySampleAndCalibratesTheBatch) {
  int64_t calls = 0;
  volatile int steps = 200;
  TimingOptions options;
  options.warmup = 2;
  options.repetitions = 7;
  options.min_batch_seconds = 1e-3;
  options.seed = 3;
  const Timing t = MeasureCpu(
      [&] {
        ++calls;
        DoNotOptimize(Spin(steps));
      },
      options);
  ASSERT_EQ(t.seconds_per_op.size(), 7u);
  for (double s : t.seconds_per_op) EXPECT_GT(s, 0.0);
  EXPECT_GE(t.batch, 1);
  EXPECT_EQ(t.threads, 1);
  // The accepted calibration batch reached the target by construction.
  EXPECT_GE(t.calibration_seconds, options.min_batch_seconds);
  // Accepted batch + its confirmation + warm-up + repetitions, at least.
  EXPECT_GE(calls, (1 + 1 + options.warmup + options.repetitions) * t.batch);
  // Repetitions are about as long as the calibration batch; the bound is
  // loose because the machine is shared (a confirmed batch took >= target/2).
  std::vector<double> batch_seconds;
  for (double s : t.seconds_per_op) batch_seconds.push_back(s * static_cast<double>(t.batch));
  EXPECT_GE(Median(batch_seconds), 0.25 * options.min_batch_seconds);
  // The summary is the summary of the samples.
  EXPECT_EQ(t.summary.n, 7);
  EXPECT_EQ(t.summary.median, Median(t.seconds_per_op));
  EXPECT_TRUE(t.summary.ci.Contains(t.summary.median));
}

TEST(Timer, MaxBatchCapsCalibration) {
  int64_t calls = 0;
  TimingOptions options;
  options.warmup = 1;
  options.repetitions = 3;
  options.min_batch_seconds = 10.0;  // Unreachable with 8 trivial ops...
  options.max_batch = 8;             // ...so the cap must stop calibration.
  options.threads = 2;
  const Timing t = MeasureCpu([&] { ++calls; }, options);
  EXPECT_EQ(t.batch, 8);
  EXPECT_EQ(t.threads, 2);
  EXPECT_EQ(t.seconds_per_op.size(), 3u);
  // Batches 1 and 8 (growth x10, capped), then 1 warm-up and 3 timed batches.
  EXPECT_EQ(calls, 1 + 8 + 8 * (1 + 3));
}

TEST(Timer, ZeroTargetMeansBatchOfOne) {
  TimingOptions options;
  options.min_batch_seconds = 0.0;
  options.repetitions = 4;
  const Timing t = MeasureCpu([] { DoNotOptimize(Spin(10)); }, options);
  EXPECT_EQ(t.batch, 1);
  EXPECT_EQ(t.seconds_per_op.size(), 4u);
}

TEST(Timer, InvalidOptionsThrow) {
  TimingOptions bad;
  bad.repetitions = 0;
  EXPECT_THROW(MeasureCpu([] {}, bad), std::invalid_argument);
  EXPECT_THROW(MeasureCpu(std::function<void()>(), TimingOptions{}), std::invalid_argument);
  TimingOptions no_batch;
  no_batch.max_batch = 0;
  EXPECT_THROW(MeasurePaired([] {}, [] {}, no_batch), std::invalid_argument);
  EXPECT_THROW(PairedRatioFromSamples(std::vector<double>{1, 2}, std::vector<double>{1}, 0),
               std::invalid_argument);
  EXPECT_THROW(PairedRatioFromSamples(std::vector<double>{1}, std::vector<double>{0}, 0),
               std::invalid_argument);
  // One pair still validates the bootstrap settings.
  EXPECT_THROW(PairedRatioFromSamples(std::vector<double>{1}, std::vector<double>{1}, 0, 0.95, 1),
               std::invalid_argument);
}

TEST(Timer, PairedRatioIsAOverB) {
  const PairedRatio r =
      PairedRatioFromSamples(std::vector<double>{2, 4, 6}, std::vector<double>{1, 2, 3}, 1);
  EXPECT_EQ(r.ratios, (std::vector<double>{2, 2, 2}));
  EXPECT_EQ(r.median, 2.0);
  EXPECT_EQ(r.ci.low, 2.0);
  EXPECT_EQ(r.ci.high, 2.0);
  EXPECT_EQ(r.a_seconds_per_op, (std::vector<double>{2, 4, 6}));
}

// Synthetic timings with a known ratio: pair i shares a load factor
// e^(0.5 Z) (drift that the pairing cancels), and each side has independent
// 10% lognormal noise: b_i = 1 ms * load * e^(0.1 Z'), a_i = 2 ms * load *
// e^(0.1 Z''). The true median of a/b is exactly 2.
struct Pairs {
  std::vector<double> a, b;
};

Pairs SyntheticPairs(Rng& rng, int n) {
  Pairs p{std::vector<double>(static_cast<size_t>(n)), std::vector<double>(static_cast<size_t>(n))};
  for (size_t i = 0; i < p.a.size(); ++i) {
    const double load = std::exp(0.5 * rng.Normal());
    p.b[i] = 1e-3 * load * std::exp(0.1 * rng.Normal());
    p.a[i] = 2e-3 * load * std::exp(0.1 * rng.Normal());
  }
  return p;
}

// Over 200 seeded trials of 41 synthetic pairs, the 95% CI must contain 2 in
// >= 90% of trials and exclude 1 in all of them.
// (The percentile bootstrap of a median under-covers a little at small n: in
// 2000-trial runs this set-up gave 0.92 at 15 pairs and 0.94 at 41, so 41
// pairs keep the seeded check away from its 0.90 floor.)
TEST(Timer, PairedRatioCiCoversTheTrueRatio) {
  constexpr int kTrials = 200;
  constexpr int kPairs = 41;
  int covers_two = 0;
  int excludes_one = 0;
  for (int t = 0; t < kTrials; ++t) {
    Rng rng(400 + t, 0);
    const Pairs p = SyntheticPairs(rng, kPairs);
    const PairedRatio r = PairedRatioFromSamples(p.a, p.b, 900 + t);
    covers_two += r.ci.Contains(2.0);
    excludes_one += !r.ci.Contains(1.0);
  }
  const double coverage = static_cast<double>(covers_two) / kTrials;
  std::printf("[ coverage ] paired median-ratio 95%% CI, %d pairs: contains 2.0 in %.3f of %d "
              "trials, excludes 1.0 in %d\n",
              kPairs, coverage, kTrials, excludes_one);
  ::testing::Test::RecordProperty("paired_ratio_coverage", std::to_string(coverage));
  EXPECT_GE(coverage, 0.90);
  EXPECT_EQ(excludes_one, kTrials);
}

// Negative control: without pairing (b shuffled against a), the shared load
// no longer cancels and the interval becomes much wider; with pairing it is
// narrow. This is why MeasurePaired interleaves.
TEST(Timer, PairingNarrowsTheInterval) {
  Rng rng(77, 0);
  const Pairs p = SyntheticPairs(rng, 21);
  const PairedRatio paired = PairedRatioFromSamples(p.a, p.b, 1);
  std::vector<double> b_shuffled = p.b;
  rng.Shuffle(std::span<double>(b_shuffled));
  const PairedRatio unpaired = PairedRatioFromSamples(p.a, b_shuffled, 1);
  const double paired_width = std::log(paired.ci.high / paired.ci.low);
  const double unpaired_width = std::log(unpaired.ci.high / unpaired.ci.low);
  EXPECT_LT(2 * paired_width, unpaired_width);
}

// Real ops: A does 4x the work of B. The ratio must come out clearly above 1
// (bounds are wide: the point is the direction A/B, not the speed).
TEST(Timer, MeasurePairedSeesWhichSideDoesMoreWork) {
  volatile int steps = 2000;
  TimingOptions options;
  options.warmup = 1;
  options.repetitions = 9;
  options.min_batch_seconds = 2e-3;
  options.seed = 5;
  const PairedRatio r = MeasurePaired([&] { DoNotOptimize(Spin(4 * steps)); },
                                      [&] { DoNotOptimize(Spin(steps)); }, options);
  std::printf("[ paired   ] 4x work vs 1x: median ratio %.3f, CI [%.3f, %.3f]\n", r.median,
              r.ci.low, r.ci.high);
  ASSERT_EQ(r.ratios.size(), 9u);
  EXPECT_EQ(r.a_seconds_per_op.size(), 9u);
  EXPECT_EQ(r.b_seconds_per_op.size(), 9u);
  EXPECT_GE(r.a_batch, 1);
  for (double x : r.ratios) EXPECT_GT(x, 0.0);
  EXPECT_TRUE(r.ci.Contains(r.median));
  EXPECT_GT(r.median, 1.5);
  EXPECT_LT(r.median, 10.0);
}

}  // namespace
}  // namespace cb::harness
