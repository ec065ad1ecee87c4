// File: suites/mia/mia_test.cpp
// The per-position scoring kernel on every backend against the fp64
// reference (reference/mia/mia.h StatsFromLogits), within 1e-4 relative, on
// fresh random logits with flat, peaked and ordinary rows, fp32 and bf16, a
// vocabulary that is not a multiple of the vector width and one at 2^17;
// each CPU instruction-set path forced (portable, AVX2, AVX-512) and rows
// whose maximum rises late (the one-pass rescaling); plus its bad-input
// errors and the synthetic experiment's plumbing.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "fixtures/backend_test.h"
#include "harness/random.h"
#include "reference/mia/mia.h"
#include "suites/mia/experiment.h"
#include "suites/mia/score_kernel.h"

namespace {

using cb::mia::LogitType;

class ScoreKernelTest : public cb::testing::BackendTest {};

struct Case {
  int64_t rows, vocab;
  LogitType type;
};

// Row r: flat (r % 4 == 0, tiny spread), peaked (1: one logit +30 above
// N(0, 1)), wide (2: N(0, 3^2)), offset (3: N(0, 1) + 500).
std::vector<float> MakeLogits(cb::harness::Rng& rng, const Case& c) {
  std::vector<float> z(size_t(c.rows * c.vocab));
  for (int64_t r = 0; r < c.rows; ++r) {
    for (int64_t i = 0; i < c.vocab; ++i) {
      const double n = rng.Normal();
      const double x = r % 4 == 0 ? 1e-3 * n : r % 4 == 2 ? 3 * n : r % 4 == 3 ? n + 500 : n;
      z[size_t(r * c.vocab + i)] = float(x);
    }
    if (r % 4 == 1) z[size_t(r * c.vocab + rng.UniformInt(0, c.vocab - 1))] += 30.0f;
  }
  return z;
}

// Every row of `got` against the fp64 reference on the (rounded) logits z.
void ExpectAgreesWithReference(const cb::mia::PositionScores& got, const std::vector<float>& z, int64_t rows,
                               int64_t vocab, const std::vector<int32_t>& targets, const std::string& what) {
  for (int64_t r = 0; r < rows; ++r) {
    const std::vector<double> row(z.begin() + r * vocab, z.begin() + (r + 1) * vocab);
    const auto want = cb::ref::mia::StatsFromLogits(row, targets[r]);
    auto close = [](double g, double w, double atol) { return std::abs(g - w) <= atol + 1e-4 * std::abs(w); };
    EXPECT_TRUE(close(got.logp[r], want.logp, 1e-6)) << what << " row " << r << " V " << vocab << ": " << got.logp[r] << " vs " << want.logp;
    EXPECT_TRUE(close(got.mu[r], want.mu, 1e-6)) << what << " row " << r << " V " << vocab << ": " << got.mu[r] << " vs " << want.mu;
    EXPECT_TRUE(close(std::sqrt(got.sigma2[r]), std::sqrt(want.sigma2), 1e-6))
        << what << " row " << r << " V " << vocab << ": " << got.sigma2[r] << " vs " << want.sigma2;
  }
}

// Runs `score` on fresh logits of each case (bf16 ones rounded first, so the
// reference sees the values the kernel reads) and checks every row.
template <class Score>
void CheckCases(cb::harness::Rng& rng, std::initializer_list<Case> cases, const Score& score,
                const std::string& what) {
  for (const Case c : cases) {
    std::vector<float> z = MakeLogits(rng, c);
    std::vector<uint16_t> zb;
    if (c.type == LogitType::kBf16) {
      for (float& x : z) {
        zb.push_back(cb::mia::FloatToBf16(x));
        x = cb::mia::Bf16ToFloat(zb.back());
      }
    }
    std::vector<int32_t> targets(c.rows);
    for (auto& t : targets) t = static_cast<int32_t>(rng.UniformInt(0, c.vocab - 1));
    // Targets uniform over the vocabulary, so a peaked row's target is almost
    // never its peak (log p ~ 0 there is the difference of two fp32 values
    // near 30, whose ulp, 2e-6, is above the 1e-6 atol).
    const cb::mia::LogitsView view{c.type == LogitType::kF32 ? static_cast<const void*>(z.data()) : zb.data(),
                                   c.rows, c.vocab, c.type};
    ExpectAgreesWithReference(score(view, targets), z, c.rows, c.vocab, targets, what);
  }
}

TEST_P(ScoreKernelTest, AgreesWithFp64Reference) {
  cb::harness::Rng rng(static_cast<uint64_t>(::testing::UnitTest::GetInstance()->random_seed()) + 17, 5);
  CheckCases(rng,
             {Case{8, 1000, LogitType::kF32}, Case{8, 4099, LogitType::kBf16}, Case{4, 131072, LogitType::kF32},
              Case{4, 131072, LogitType::kBf16}},
             [&](const cb::mia::LogitsView& v, const std::vector<int32_t>& t) {
               return cb::mia::ScorePositions(backend(), v, t, 2);
             },
             std::string(cb::harness::BackendName(backend())));
}

// Masked rows, as torch's masking writes them (finite logits at -FLT_MAX or
// -1e30 rather than -inf): their terms are far below 2^-126 of the maximum's
// and must vanish, not turn the sums into NaN (in the CUDA kernel's merge of
// two partial sums, d * d * s0 overflows to +inf while exp(d) is 0). Masked
// blocks first, so a thread's running maximum starts there and rises later.
constexpr int64_t kMaskedRows = 4, kMaskedVocab = 4099;

std::vector<float> MaskedLogits(cb::harness::Rng& rng) {
  std::vector<float> z(size_t(kMaskedRows * kMaskedVocab));
  for (int64_t r = 0; r < kMaskedRows; ++r) {
    const float mask = r % 2 == 0 ? -FLT_MAX : -1e30f;
    for (int64_t i = 0; i < kMaskedVocab; ++i)
      z[size_t(r * kMaskedVocab + i)] = i < kMaskedVocab / 2 || i % 7 == 0 ? mask : float(rng.Normal());
  }
  return z;
}

// The last token of every masked row (4098 % 7 != 0: unmasked).
const std::vector<int32_t> kMaskedTargets(kMaskedRows, int32_t(kMaskedVocab - 1));

TEST_P(ScoreKernelTest, MaskedLogitsFarBelowTheMaximumVanish) {
  cb::harness::Rng rng(static_cast<uint64_t>(::testing::UnitTest::GetInstance()->random_seed()) + 41, 7);
  const std::vector<float> z = MaskedLogits(rng);
  const cb::mia::LogitsView view{z.data(), kMaskedRows, kMaskedVocab, LogitType::kF32};
  ExpectAgreesWithReference(cb::mia::ScorePositions(backend(), view, kMaskedTargets, 2), z, kMaskedRows,
                            kMaskedVocab, kMaskedTargets, std::string(cb::harness::BackendName(backend())) + " masked");
}

// Each instruction-set path of the CPU kernel, forced: the portable one is
// what a CPU without AVX2 runs, so it is tested here too.
TEST(ScoreKernelCpuPaths, EachPathAgreesWithFp64Reference) {
  using cb::mia::CpuPath;
  cb::harness::Rng rng(static_cast<uint64_t>(::testing::UnitTest::GetInstance()->random_seed()) + 29, 6);
  int tested = 0;
  for (const CpuPath path : {CpuPath::kPortable, CpuPath::kAvx2, CpuPath::kAvx512}) {
    if (!cb::mia::CpuPathAvailable(path)) {
      std::cout << "[ skipped  ] CPU path " << cb::mia::CpuPathName(path) << ": not supported by this CPU\n";
      continue;
    }
    ++tested;
    // 8 rows of 1000 and 4099 (not multiples of the lanes or the chunk), 4
    // rows of 2^17 (256 chunks: the running maximum rises mid-row).
    CheckCases(rng,
               {Case{8, 1000, LogitType::kF32}, Case{8, 4099, LogitType::kBf16}, Case{4, 131072, LogitType::kF32},
                Case{8, 3, LogitType::kF32}},
               [&](const cb::mia::LogitsView& v, const std::vector<int32_t>& t) {
                 return cb::mia::ScorePositionsCpu(v, t, 2, path);
               },
               cb::mia::CpuPathName(path));
    const std::vector<float> z = MaskedLogits(rng);
    ExpectAgreesWithReference(
        cb::mia::ScorePositionsCpu({z.data(), kMaskedRows, kMaskedVocab, LogitType::kF32}, kMaskedTargets, 2, path),
        z, kMaskedRows, kMaskedVocab, kMaskedTargets, std::string(cb::mia::CpuPathName(path)) + " masked");
  }
  EXPECT_GE(tested, 1);
}

// Non-finite logits on every path (the auto path is covered by the backend
// test below): NaN, +Inf and -Inf in a vector body and a scalar tail.
TEST(ScoreKernelCpuPaths, EachPathRejectsNonFiniteLogits) {
  using cb::mia::CpuPath;
  const std::vector<int32_t> targets = {0, 1, 2};
  for (const CpuPath path : {CpuPath::kPortable, CpuPath::kAvx2, CpuPath::kAvx512}) {
    const std::vector<float> ok(3 * 67, 0.25f);
    if (!cb::mia::CpuPathAvailable(path)) {
      EXPECT_THROW(cb::mia::ScorePositionsCpu({ok.data(), 3, 67, LogitType::kF32}, targets, 1, path),
                   std::runtime_error);
      continue;
    }
    for (const float bad : {NAN, INFINITY, -INFINITY}) {
      for (const int64_t pos : {int64_t{7}, int64_t{65}}) {
        std::vector<float> w = ok;
        w[1 * 67 + pos] = bad;
        EXPECT_THROW(cb::mia::ScorePositionsCpu({w.data(), 3, 67, LogitType::kF32}, targets, 1, path),
                     std::invalid_argument)
            << cb::mia::CpuPathName(path) << " " << bad << " at " << pos;
      }
    }
  }
}

// The one-pass kernel rescales its sums when a later chunk raises the row's
// maximum: a rising ramp (new maximum in every chunk), a maximum in the last
// chunk far above the rest (the old sums drop below 2^-300 and are reset), and
// a maximum in the last chunk just above the rest.
TEST(ScoreKernelCpuPaths, MaximumRisingLateInTheRow) {
  const int64_t v = 5000;
  std::vector<float> z(3 * v);
  cb::harness::Rng rng(3, 1);
  for (int64_t i = 0; i < v; ++i) {
    z[i] = 0.004f * float(i);
    z[v + i] = float(rng.Normal());
    z[2 * v + i] = float(rng.Normal());
  }
  z[v + v - 3] = 400.0f;
  z[2 * v + v - 3] = 4.5f;
  const std::vector<int32_t> targets = {int32_t(v - 1), int32_t(v - 3), 7};
  for (const auto path : {cb::mia::CpuPath::kAuto, cb::mia::CpuPath::kPortable}) {
    const auto got = cb::mia::ScorePositionsCpu({z.data(), 3, v, LogitType::kF32}, targets, 1, path);
    ExpectAgreesWithReference(got, z, 3, v, targets, cb::mia::CpuPathName(path));
  }
}

TEST_P(ScoreKernelTest, NonFiniteLogitNamesTheRow) {
  std::vector<float> z(3 * 64, 0.5f);
  z[2 * 64 + 7] = NAN;
  const std::vector<int32_t> targets = {0, 1, 2};
  try {
    cb::mia::ScorePositions(backend(), {z.data(), 3, 64, LogitType::kF32}, targets);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("row 2"), std::string::npos) << e.what();
  }
  for (const float bad : {INFINITY, -INFINITY}) {
    for (const int64_t pos : {int64_t{7}, int64_t{65}}) {  // vector body and scalar tail (V = 67)
      std::vector<float> w(3 * 67, 0.25f);
      w[1 * 67 + pos] = bad;
      try {
        cb::mia::ScorePositions(backend(), {w.data(), 3, 67, LogitType::kF32}, targets);
        ADD_FAILURE() << "no error for " << bad << " at " << pos;
      } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("row 1"), std::string::npos) << e.what();
      }
    }
  }
  const std::vector<int32_t> bad_target = {0, 64, 1};
  EXPECT_THROW(cb::mia::ScorePositions(backend(), {z.data(), 3, 64, LogitType::kF32}, bad_target),
               std::invalid_argument);
  const std::vector<int32_t> short_targets = {0};
  EXPECT_THROW(cb::mia::ScorePositions(backend(), {z.data(), 3, 64, LogitType::kF32}, short_targets),
               std::invalid_argument);
}

CB_INSTANTIATE_BACKENDS(ScoreKernelTest);

TEST(Bf16, RoundsToNearestEven) {
  EXPECT_EQ(cb::mia::FloatToBf16(1.0f), 0x3f80);
  EXPECT_EQ(cb::mia::Bf16ToFloat(0x3f80), 1.0f);
  EXPECT_EQ(cb::mia::FloatToBf16(1.00390625f), 0x3f80);  // halfway: ties to even
  EXPECT_EQ(cb::mia::FloatToBf16(1.01171875f), 0x3f82);  // halfway above an odd: up
  EXPECT_TRUE(std::isnan(cb::mia::Bf16ToFloat(cb::mia::FloatToBf16(NAN))));
}

TEST(Experiment, ScoresEveryMethodOnBothClasses) {
  cb::mia::ExperimentParams p;
  p.corpus.vocab_size = 1024;
  p.corpus.entity_tokens = 128;
  p.corpus.background_docs = 30;
  p.corpus.background_words = 200;
  p.corpus.per_class = 20;
  p.corpus.aux_docs = 10;
  p.corpus.ood_docs = 10;
  p.corpus.length = 32;
  const auto r = cb::mia::RunExperiment(p);
  ASSERT_EQ(r.labels.size(), 40u);
  EXPECT_EQ(r.positions, 40 * 31);
  for (const char* m : {"loss", "zlib", "lowercase", "mink_0.2", "minkpp_0.2", "ref", "fsd_loss", "fsd_zlib",
                        "fsd_lowercase", "fsd_mink"}) {
    EXPECT_EQ(r.Scores(m).size(), 40u) << m;
  }
  EXPECT_EQ(r.Scores("fsd_loss", true).size(), 40u);
  EXPECT_THROW(r.Scores("nope"), std::out_of_range);
  // Members were trained on: their loss is higher (member-oriented) on average.
  double member = 0, nonmember = 0;
  for (size_t i = 0; i < 40; ++i) (r.labels[i] ? member : nonmember) += r.Scores("loss")[i];
  EXPECT_GT(member, nonmember);
}

}  // namespace
