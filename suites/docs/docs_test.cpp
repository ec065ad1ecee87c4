// File: suites/docs/docs_test.cpp
// -----------------------------------------------------------------------------
// The fp32 fast paths of suites/docs/docs.h against the fp64 reference
// (reference/docs.h) on every backend, bad input, and the checkpoint path:
// safetensors written, read back, selected by regex and scored, through the
// library and through `claimbench docs`.
#include "reference/docs.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "fixtures/backend_test.h"
#include "fixtures/expect_invalid.h"
#include "fixtures/fresh_seed.h"
#include "fixtures/tolerance.h"
#include "generators/tensors.h"
#include "harness/cli/cli.h"
#include "harness/random.h"
#include "harness/safetensors.h"
#include "ledger/ledger.h"
#include "suites/docs/docs.h"
#include "suites/docs/docs_cuda.h"
#include "suites/docs/docs_checkpoint.h"

namespace cb::docs {
namespace {

namespace h = cb::harness;
namespace fs = std::filesystem;
using cb::ref::Matrix;

// The agreement DOCS promises between an fp32 path and the fp64 reference
// (docs.h: ~sqrt(m) 2^-24 per cosine; the issue's bound is 1e-5).
constexpr double kMaximaAtol = 1e-5;
constexpr double kScoreTol = 1e-5;

// A float matrix (rows, cols) of N(0, 1) entries, with a scaled,
// sign-flipped copy of column 0 (plus a little noise) in column 1, and two
// columns of extreme magnitude (1e20 and 1e-22: their squares, 1e40 and
// 1e-44, leave fp32's normal range, so norms summed in fp32 would fail).
std::vector<float> TestMatrix(int64_t rows, int64_t cols, uint64_t seed, uint64_t stream) {
  h::Rng rng(seed, stream);
  std::vector<float> a(static_cast<size_t>(rows * cols));
  for (float& v : a) v = static_cast<float>(rng.Normal());
  if (cols >= 4) {
    for (int64_t r = 0; r < rows; ++r) {
      float* row = a.data() + r * cols;
      row[1] = -3.0f * row[0] + 0.01f * static_cast<float>(rng.Normal());
      row[2] *= 1e20f;
      row[3] *= 1e-22f;
    }
  }
  return a;
}

// Makes the first min(4, ...) columns of y (m, ny) noisy multiples of
// columns of x (m, nx), so some cosines of x against y sit near 1, where the
// maxima are decided.
void PlantNearDuplicates(const std::vector<float>& x, int64_t nx, std::vector<float>& y, int64_t ny,
                         int64_t m) {
  const int64_t k = std::min<int64_t>({4, nx, ny});
  for (int64_t r = 0; r < m; ++r) {
    for (int64_t c = 0; c < k; ++c) {
      y[r * ny + c] = -2.0f * x[r * nx + (nx - 1 - c)] + 0.02f * y[r * ny + c];
    }
  }
}

Matrix ToMatrix(const std::vector<float>& a, int64_t rows, int64_t cols) {
  Matrix m(rows, cols);
  for (size_t i = 0; i < a.size(); ++i) m.data[i] = a[i];
  return m;
}

class DocsBackendTest : public cb::testing::BackendTest {};

// The maxima on `backend`, cutting C into blocks of `block_rows` rows (0: the
// backend's own choice), for the tests of the block edges.
cb::ref::docs::AbsMaxima MaximaInBlocks(h::Backend backend, const MatrixView& x,
                                        const MatrixView& y, int64_t block_rows) {
  CheckDocsInput(x, y);
  if (backend == h::Backend::kCpu) return AbsMaximaCpu(x, y, block_rows);
#if CB_HAVE_CUDA
  return AbsMaximaCuda(x, y, block_rows);
#else
  throw std::logic_error("cuda backend in a build without CUDA");
#endif
}

TEST_P(DocsBackendTest, MatchesTheFp64Reference) {
  CB_FRESH_SEED(seed);
  struct Shape {
    int64_t m, n1, n2;
  };
  for (const Shape s :
       {Shape{1, 3, 2}, Shape{64, 48, 80}, Shape{300, 257, 130}, Shape{16, 300, 4096}}) {
    SCOPED_TRACE(std::to_string(s.m) + "x" + std::to_string(s.n1) + " vs " + std::to_string(s.n2));
    const auto xf = TestMatrix(s.m, s.n1, seed, 1);
    auto yf = TestMatrix(s.m, s.n2, seed, 2);
    PlantNearDuplicates(xf, s.n1, yf, s.n2, s.m);
    const auto want = cb::ref::docs::Docs(ToMatrix(xf, s.m, s.n1), ToMatrix(yf, s.m, s.n2));
    const MatrixView x{xf.data(), s.m, s.n1, "X"}, y{yf.data(), s.m, s.n2, "Y"};
    const auto got = Docs(backend(), x, y);
    EXPECT_TRUE(cb::testing::AllClose(got.s_x, want.s_x, kMaximaAtol, 0));
    EXPECT_TRUE(cb::testing::AllClose(got.s_y, want.s_y, kMaximaAtol, 0));
    EXPECT_NEAR(got.score, want.score, kScoreTol);
    // The same maxima when C is cut into blocks of 1, 7 (a partial last
    // block) and 64 rows.
    for (const int64_t block_rows : {1, 7, 64}) {
      const auto blocked = MaximaInBlocks(backend(), x, y, block_rows);
      EXPECT_TRUE(cb::testing::AllClose(blocked.s_x, want.s_x, kMaximaAtol, 0)) << block_rows;
      EXPECT_TRUE(cb::testing::AllClose(blocked.s_y, want.s_y, kMaximaAtol, 0)) << block_rows;
    }
  }
}

// The CPU path forms X^T Y from the inputs as they are when every column
// norm lies in [2^-30, 2^30] and from normalised copies otherwise
// (docs_cpu.cpp). Both against the reference, on the same N(0, 1) pair
// (near-duplicates planted) as is and scaled by powers of two (exact): near
// both ends of the raw range (norms ~14 and ~28 times 2^25, or 2^-33), and
// where raw products would overflow (2^70 and 2^70: 2^140 > fp32's 2^128) or
// underflow (2^-70 and 2^-70), so the copies must be used, and once with
// only one column out of range. The cosines do not change with the scales,
// so neither may the maxima.
TEST(DocsCpu, RawAndNormalisedProductPathsMatchTheReference) {
  CB_FRESH_SEED(seed);
  const int64_t m = 200, n1 = 96, n2 = 130;
  h::Rng rng(seed, 7);
  std::vector<float> xf(static_cast<size_t>(m * n1)), yf(static_cast<size_t>(m * n2));
  for (float& v : xf) v = static_cast<float>(rng.Normal());
  for (float& v : yf) v = static_cast<float>(rng.Normal());
  PlantNearDuplicates(xf, n1, yf, n2, m);
  const Matrix cosines = cb::ref::docs::ColumnCosine(ToMatrix(xf, m, n1), ToMatrix(yf, m, n2));
  const auto want = cb::ref::docs::AbsMaximaOf(cosines);
  struct Scales {
    int x_exp, y_exp;
    int64_t only_column;  // -1: every column of X
  };
  for (const Scales sc : {Scales{0, 0, -1}, Scales{25, 25, -1}, Scales{-33, -33, -1},
                          Scales{70, 70, -1}, Scales{-70, -70, -1}, Scales{40, -40, -1},
                          Scales{0, 0, 5}}) {
    SCOPED_TRACE("X x 2^" + std::to_string(sc.x_exp) + ", Y x 2^" + std::to_string(sc.y_exp) +
                 (sc.only_column >= 0 ? ", column 5 of X x 2^40" : ""));
    std::vector<float> xs = xf, ys = yf;
    for (int64_t r = 0; r < m; ++r) {
      for (int64_t c = 0; c < n1; ++c) {
        float& v = xs[r * n1 + c];
        if (sc.only_column < 0) v = std::ldexp(v, sc.x_exp);
        if (c == sc.only_column) v = std::ldexp(v, 40);
      }
    }
    for (float& v : ys) v = std::ldexp(v, sc.y_exp);
    const MatrixView x{xs.data(), m, n1, "X"}, y{ys.data(), m, n2, "Y"};
    for (const int64_t block_rows : {0, 7}) {
      const auto got = AbsMaximaCpu(x, y, block_rows);
      EXPECT_TRUE(cb::testing::AllClose(got.s_x, want.s_x, kMaximaAtol, 0)) << block_rows;
      EXPECT_TRUE(cb::testing::AllClose(got.s_y, want.s_y, kMaximaAtol, 0)) << block_rows;
    }
  }
}

// Reflexivity on the fast path: X against a column-permuted, sign-flipped,
// scaled copy of itself scores 1 up to fp32 rounding, and every maximum is
// (up to rounding) 1.
TEST_P(DocsBackendTest, AMatrixAgainstAPermutedScaledCopyScoresOne) {
  CB_FRESH_SEED(seed);
  const int64_t m = 128, n = 96;
  const auto xf = TestMatrix(m, n, seed, 1);
  std::vector<float> yf(xf.size());
  for (int64_t r = 0; r < m; ++r) {
    for (int64_t c = 0; c < n; ++c) {
      const float sign = c % 3 == 0 ? -1.0f : 1.0f;
      yf[r * n + c] = sign * 0.125f * xf[r * n + (n - 1 - c)];
    }
  }
  const auto r = Docs(backend(), {xf.data(), m, n, "X"}, {yf.data(), m, n, "Y"});
  EXPECT_NEAR(r.score, 1.0, kScoreTol);
  for (double s : r.s_x) EXPECT_NEAR(s, 1.0, kMaximaAtol);
  for (double s : r.s_y) EXPECT_NEAR(s, 1.0, kMaximaAtol);
}

TEST_P(DocsBackendTest, BadInputIsOneLineNamingTheMatrix) {
  std::vector<float> good(12, 1.0f);
  for (size_t i = 0; i < good.size(); ++i) good[i] = static_cast<float>(i + 1);
  auto expect_error = [&](const MatrixView& x, const MatrixView& y, const std::string& words) {
    cb::testing::ExpectInvalid([&] { AbsMaxima(backend(), x, y); }, words);
  };
  const MatrixView x{good.data(), 4, 3, "X"};
  expect_error(x, {good.data(), 3, 4, "Y"}, "different row counts");
  expect_error(x, {good.data(), 0, 3, "Y"}, "matrix Y is empty");
  expect_error({nullptr, 4, 3, "X"}, x, "matrix X is empty");
  auto with_nan = good;
  with_nan[7] = std::numeric_limits<float>::quiet_NaN();
  expect_error(x, {with_nan.data(), 4, 3, "Y"},
               "matrix Y has a non-finite entry at row 2, column 1");
  auto with_inf = good;
  with_inf[0] = std::numeric_limits<float>::infinity();
  expect_error({with_inf.data(), 4, 3, "X"}, x,
               "matrix X has a non-finite entry at row 0, column 0");
  auto zero_column = good;
  for (int r = 0; r < 4; ++r) zero_column[r * 3 + 2] = 0.0f;
  expect_error(x, {zero_column.data(), 4, 3, "Y"}, "matrix Y has an all-zero column 2");
}

// The CPU path checks values inside its normalisation pass, not by a scan of
// its own: on fresh inputs with zero to three planted faults (NaN, -NaN,
// +-inf, an all-zero or all -0 column, a row count off by one) beside values
// that must pass (denormal-only columns, +-3e38), every backend accepts
// exactly what CheckDocsInput accepts and otherwise throws its message.
TEST_P(DocsBackendTest, EveryInputGetsCheckDocsInputsVerdict) {
  CB_FRESH_SEED(seed);
  h::Rng rng(seed, 31);
  const float kFaults[] = {std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN(),
                           std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()};
  int rejected = 0;
  for (int trial = 0; trial < 60; ++trial) {
    const int64_t m = 2 + int64_t(rng.UniformInt(0, 6)), n1 = 1 + int64_t(rng.UniformInt(0, 5)),
                  n2 = 1 + int64_t(rng.UniformInt(0, 5));
    std::vector<float> a(size_t(m * n1)), b(size_t((m + 1) * n2));
    for (float& v : a) v = float(rng.Normal());
    for (float& v : b) v = float(rng.Normal());
    const int64_t b_rows = rng.UniformInt(0, 9) == 0 ? m + 1 : m;
    const int faults = int(rng.UniformInt(0, 3));
    for (int f = 0; f < faults; ++f) {
      const bool in_a = rng.UniformInt(0, 1) == 0;
      std::vector<float>& t = in_a ? a : b;
      const int64_t cols = in_a ? n1 : n2, rows = in_a ? m : b_rows;
      const int64_t col = int64_t(rng.UniformInt(0, uint64_t(cols - 1)));
      switch (rng.UniformInt(0, 3)) {
        case 0:  // one non-finite entry
          t[size_t(rng.UniformInt(0, uint64_t(rows - 1)) * cols + col)] = kFaults[rng.UniformInt(0, 3)];
          break;
        case 1:  // a column of zeros, or of negative zeros
          for (int64_t r = 0; r < rows; ++r) t[size_t(r * cols + col)] = f % 2 ? -0.0f : 0.0f;
          break;
        case 2:  // a column of denormals: valid
          for (int64_t r = 0; r < rows; ++r) t[size_t(r * cols + col)] = std::numeric_limits<float>::denorm_min();
          break;
        default:  // huge finite values, whose squares overflow fp32: valid
          for (int64_t r = 0; r < rows; ++r) t[size_t(r * cols + col)] = r % 2 ? 3e38f : -3e38f;
      }
    }
    const MatrixView x{a.data(), m, n1, "X"}, y{b.data(), b_rows, n2, "Y"};
    std::string want, got;
    try {
      CheckDocsInput(x, y);
    } catch (const std::invalid_argument& e) {
      want = e.what();
    }
    try {
      AbsMaxima(backend(), x, y);
    } catch (const std::invalid_argument& e) {
      got = e.what();
    }
    EXPECT_EQ(got, want) << "trial " << trial << ", m " << m << ", n1 " << n1 << ", n2 " << n2;
    rejected += !want.empty();
  }
  EXPECT_GT(rejected, 10);  // the faults were planted often enough to matter
  EXPECT_LT(rejected, 55);  // and valid inputs were tried too
}
CB_INSTANTIATE_BACKENDS(DocsBackendTest);

TEST(CpuBlockRows, BoundsTheBlockAndNeverReturnsZero) {
  EXPECT_EQ(CpuBlockRows(1 << 30), 1);
  EXPECT_EQ(CpuBlockRows(4096) * 4096 * int64_t(sizeof(float)), int64_t{16} << 20);
  EXPECT_EQ(CpuBlockRows(8192), 512);
  EXPECT_GE(CpuBlockRows(1), 1);
}

TEST(LayerOrderLess, ComparesDigitRunsAsNumbers) {
  EXPECT_TRUE(LayerOrderLess("layers.2.q", "layers.10.q"));
  EXPECT_FALSE(LayerOrderLess("layers.10.q", "layers.2.q"));
  EXPECT_TRUE(LayerOrderLess("layers.10.k", "layers.10.q"));
  EXPECT_TRUE(LayerOrderLess("a9", "b1"));
  EXPECT_TRUE(LayerOrderLess("layers.2", "layers.2.q"));
  EXPECT_FALSE(LayerOrderLess("x", "x"));
  EXPECT_NE(LayerOrderLess("l07", "l7"), LayerOrderLess("l7", "l07"));  // strict weak order
}

// ---------------------------------------------------------------------------
// Checkpoints.

class CheckpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("cb_docs_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A 4-layer stack (rows 24, cols 16) as q_proj tensors in `dtype`, plus
  // a bias per layer and an unrelated (16, 24) tensor the patterns must skip.
  std::string WriteStack(const std::string& name, const std::string& dtype) {
    const auto stack = cb::gen::LayerStack(4, 24, 16, 0.8, 7);
    std::vector<std::pair<std::string, h::SafetensorsWriteTensor>> tensors;
    for (int l = 3; l >= 0; --l) {  // written out of order on purpose
      tensors.push_back({"model.layers." + std::to_string(l * 5) + ".q_proj.weight",
                         {dtype, {24, 16}, stack[l].matrix.data}});
      tensors.push_back({"model.layers." + std::to_string(l * 5) + ".q_proj.bias",
                         {dtype, {16}, std::vector<double>(16, 0.5)}});
    }
    tensors.push_back({"lm_head.weight", {dtype, {16, 24}, std::vector<double>(16 * 24, 1.0)}});
    const std::string path = (dir_ / name).string();
    h::WriteSafetensors(path, tensors);
    return path;
  }

  fs::path dir_;
};

TEST_F(CheckpointTest, RoundTripSelectsOrdersAndScoresLikeTheReference) {
  for (const std::string dtype : {"F32", "F16", "BF16"}) {
    SCOPED_TRACE(dtype);
    const std::string path = WriteStack("stack_" + dtype + ".safetensors", dtype);
    const auto tensors = LoadMatchingTensors({path}, R"(q_proj\.weight)");
    ASSERT_EQ(tensors.size(), 4u);
    EXPECT_EQ(tensors[0].name, "model.layers.0.q_proj.weight");
    EXPECT_EQ(tensors[2].name, "model.layers.10.q_proj.weight");
    EXPECT_EQ(tensors[3].name, "model.layers.15.q_proj.weight");
    // Values: exactly what the file holds (the writer's rounding to dtype).
    const auto file = h::SafetensorsFile::Open(path);
    const auto stored = file.ReadAsDouble(tensors[1].name);
    for (size_t i = 0; i < stored.size(); ++i) ASSERT_EQ(tensors[1].data[i], float(stored[i]));

    const auto sim = LayerSimilarity(h::Backend::kCpu, tensors, nullptr);
    for (size_t i = 0; i < 4; ++i) {
      EXPECT_EQ(sim.at(i, i), 1.0);
      for (size_t j = i + 1; j < 4; ++j) {
        const auto want = cb::ref::docs::Docs(ToMatrix(tensors[i].data, 24, 16),
                                              ToMatrix(tensors[j].data, 24, 16));
        EXPECT_NEAR(sim.at(i, j), want.score, kScoreTol);
        EXPECT_EQ(sim.at(i, j), sim.at(j, i));
      }
    }
  }
}

TEST_F(CheckpointTest, ShardsAreReadInTheOrderGiven) {
  const std::string a = WriteStack("a.safetensors", "F32");
  const std::string b = WriteStack("b.safetensors", "F32");
  const auto tensors = LoadMatchingTensors({b, a}, "layers\\.(0|5)\\.q_proj\\.weight");
  ASSERT_EQ(tensors.size(), 4u);
  EXPECT_EQ(tensors[0].file, b);
  EXPECT_EQ(tensors[2].file, a);
  EXPECT_EQ(tensors[0].content_hash, tensors[2].content_hash);  // same data, same hash
  EXPECT_NE(tensors[0].content_hash, tensors[1].content_hash);
}

TEST_F(CheckpointTest, BadSelectionsAndFilesAreOneLineErrors) {
  const std::string path = WriteStack("s.safetensors", "F32");
  auto expect_error = [](const std::vector<std::string>& files, const std::string& pattern,
                         const std::string& words) {
    try {
      LoadMatchingTensors(files, pattern);
      ADD_FAILURE() << "no error for: " << words;
    } catch (const std::runtime_error& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
      EXPECT_NE(what.find(words), std::string::npos) << what;
    }
  };
  expect_error({path}, "weight", "different row counts");  // q_proj (24 rows) and lm_head (16)
  expect_error({path}, "layers\\.0\\.q_proj\\.weight", "selects 1 2-D tensor(s)");
  expect_error({path}, "(", "not a valid regular expression");

  const std::string truncated = (dir_ / "truncated.safetensors").string();
  fs::copy_file(path, truncated);
  fs::resize_file(truncated, fs::file_size(path) - 100);
  expect_error({truncated}, "q_proj", truncated);

  std::vector<double> nan_layer(24 * 16, 1.0);
  for (size_t i = 0; i < nan_layer.size(); ++i) nan_layer[i] += double(i % 7);
  nan_layer[5] = std::numeric_limits<double>::quiet_NaN();
  const std::string with_nan = (dir_ / "nan.safetensors").string();
  h::WriteSafetensors(with_nan, {{"l.0.w", {"F32", {24, 16}, std::vector<double>(24 * 16, 1.0)}},
                                 {"l.1.w", {"F32", {24, 16}, nan_layer}}});
  expect_error({with_nan}, "w", "tensor 'l.1.w'");
}

// `claimbench docs` in-process: CSV on stdout, one ledger row per pair; bad
// input exits 3 and creates no ledger.
TEST_F(CheckpointTest, CommandPrintsTheMatrixAndRecordsEveryPair) {
  const std::string path = WriteStack("s.safetensors", "BF16");
  const std::string ledger_path = (dir_ / "l.db").string();
  std::vector<std::string> args = {"claimbench",      "docs",     "--safetensors", path, "--match",
                                   "q_proj\\.weight", "--ledger", ledger_path};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  ::testing::internal::CaptureStdout();
  const int rc = cb::cli::Main(static_cast<int>(argv.size()), argv.data());
  const std::string out = ::testing::internal::GetCapturedStdout();
  ASSERT_EQ(rc, 0) << out;
  EXPECT_EQ(out.rfind("tensor,model.layers.0.q_proj.weight,model.layers.5.q_proj.weight,", 0), 0u)
      << out;
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 5);

  auto ledger = cb::ledger::Ledger::OpenReadOnly(ledger_path);
  const auto rows = ledger.GetResults(ledger.ResolveRun("latest"));
  ASSERT_EQ(rows.size(), 6u);  // 4 choose 2
  for (const auto& r : rows) {
    EXPECT_EQ(r.suite, "docs");
    EXPECT_EQ(r.metric, "docs_score");
    EXPECT_GT(r.value, 0.0);
    EXPECT_LT(r.value, 1.0);
    EXPECT_EQ(r.input_hash.size(), 32u);
  }

  const std::string fresh_ledger = (dir_ / "never.db").string();
  for (std::vector<std::string> bad : {
           std::vector<std::string>{"claimbench", "docs", "--safetensors", path, "--match", "zzz"},
           {"claimbench", "docs", "--safetensors", path, "--match", "q_proj", "--format", "xml"},
           {"claimbench", "docs", "--safetensors", (dir_ / "missing").string()},
           {"claimbench", "docs", "--safetensors", path, "--match", "q_proj\\.weight", "--out",
            (dir_ / "no_such_dir" / "out.csv").string()},
       }) {
    bad.push_back("--ledger");
    bad.push_back(fresh_ledger);
    std::vector<char*> bad_argv;
    for (auto& a : bad) bad_argv.push_back(a.data());
    ::testing::internal::CaptureStderr();
    EXPECT_EQ(cb::cli::Main(static_cast<int>(bad_argv.size()), bad_argv.data()), 3);
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_FALSE(fs::exists(fresh_ledger)) << err;
  }
}

}  // namespace
}  // namespace cb::docs
