// File: suites/probegen/zoo_model_test.cpp
// -----------------------------------------------------------------------------
// Tests of the zoo classifiers (reference/probegen/zoo_model.h) and their
// files (reference/probegen/zoo_io.h): the backward pass (weights and input)
// against central differences for an MLP and a CNN, the forward pass on
// hand-set weights and against a direct evaluation of the conv formula, the
// architecture text form, parameter and MAC counts worked out by hand, and
// every error ReadZooModel / ReadZooDir must raise, each naming its file.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

#include "fixtures/fresh_seed.h"
#include "fixtures/tolerance.h"
#include "harness/random.h"
#include "harness/safetensors.h"
#include "reference/probegen/zoo_io.h"
#include "reference/probegen/zoo_model.h"

namespace cb::ref::probegen {
namespace {

namespace fs = std::filesystem;
namespace h = cb::harness;

std::vector<double> Normals(h::Rng& rng, size_t n) {
  std::vector<double> v(n);
  for (double& x : v) x = rng.Normal();
  return v;
}

int64_t InputSize(const ZooArch& a) { return int64_t{a.channels} * a.size * a.size; }

// L(model, x) = sum_{n,c} r[n,c] * logits[n,c]: its gradient wrt the logits
// is r, so ZooBackward(dlogits = r) must give dL/dw, dL/db and dL/dx. Also
// returns which units the ReLUs let through, to tell a kink between two points.
struct LossAt {
  double loss = 0.0;
  std::vector<bool> active;
};
LossAt Loss(const ZooModel& m, int batch, const std::vector<double>& x, const std::vector<double>& r) {
  std::vector<double> logits(static_cast<size_t>(batch) * m.arch.classes);
  ZooTrace trace;
  ZooForward(m, batch, x.data(), logits.data(), &trace);
  LossAt at;
  for (size_t q = 0; q < logits.size(); ++q) at.loss += r[q] * logits[q];
  for (const std::vector<double>& act : trace.act) {
    for (double v : act) at.active.push_back(v > 0.0);
  }
  return at;
}

// (f(v0 + eps) - f(v0 - eps)) / 2 eps with loss_at(v) = f(v). The error is
// O(eps^2) only when no ReLU switches between the two points; one in a few
// thousand draws puts a unit within 1e-6 of its kink, so the step shrinks
// until the activation patterns agree.
double CentralDifference(const std::function<LossAt(double)>& loss_at, double v0) {
  for (double eps : {1e-6, 1e-8, 1e-10}) {
    const LossAt up = loss_at(v0 + eps), down = loss_at(v0 - eps);
    if (up.active == down.active) return (up.loss - down.loss) / (2 * eps);
  }
  ADD_FAILURE() << "a ReLU kink lies within 1e-10 of " << v0;
  return std::nan("");
}

// Compares ZooBackward's weight, bias and input gradients with central
// differences of Loss, coordinate by coordinate.
void CheckBackward(const ZooArch& arch, uint64_t seed) {
  constexpr int kBatch = 3;
  h::Rng rng(seed, 1);
  const ZooModel m = InitZooModel(arch, seed);
  const std::vector<double> x = Normals(rng, static_cast<size_t>(kBatch * InputSize(arch)));  // (B, c, s, s)
  const std::vector<double> r = Normals(rng, static_cast<size_t>(kBatch * arch.classes));    // (B, classes)

  ZooTrace trace;
  std::vector<double> logits(r.size());
  ZooForward(m, kBatch, x.data(), logits.data(), &trace);
  ZooModel grad;
  std::vector<double> dx(x.size(), std::nan(""));
  ZooBackward(m, kBatch, trace, r.data(), &grad, dx.data());
  ASSERT_EQ(grad.w.size(), m.w.size());
  EXPECT_EQ(ArchToString(grad.arch), ArchToString(arch));

  constexpr double kAtol = 1e-6, kRtol = 1e-5;
  for (size_t l = 0; l < m.w.size(); ++l) {
    SCOPED_TRACE("layer " + std::to_string(l));
    ASSERT_EQ(grad.w[l].size(), m.w[l].size());
    ASSERT_EQ(grad.b[l].size(), m.b[l].size());
    for (int t = 0; t < 2; ++t) {
      const size_t count = t == 0 ? m.w[l].size() : m.b[l].size();
      std::vector<double> numeric(count);
      for (size_t q = 0; q < count; ++q) {
        ZooModel p = m;
        double& v = t == 0 ? p.w[l][q] : p.b[l][q];
        numeric[q] = CentralDifference(
            [&](double value) {
              v = value;
              return Loss(p, kBatch, x, r);
            },
            v);
      }
      EXPECT_TRUE(cb::testing::AllClose(t == 0 ? grad.w[l] : grad.b[l], numeric, kAtol, kRtol))
          << (t == 0 ? "weight" : "bias");
    }
  }
  std::vector<double> numeric_dx(x.size());
  for (size_t q = 0; q < x.size(); ++q) {
    std::vector<double> xp = x;
    numeric_dx[q] = CentralDifference(
        [&](double value) {
          xp[q] = value;
          return Loss(m, kBatch, xp, r);
        },
        x[q]);
  }
  EXPECT_TRUE(cb::testing::AllClose(dx, numeric_dx, kAtol, kRtol)) << "input gradient";

  // Asking for the input gradient only, or the weights only, gives the same numbers.
  std::vector<double> dx_only(x.size());
  ZooBackward(m, kBatch, trace, r.data(), nullptr, dx_only.data());
  EXPECT_EQ(dx_only, dx);
  ZooModel grad_only;
  ZooBackward(m, kBatch, trace, r.data(), &grad_only, nullptr);
  EXPECT_EQ(grad_only.w, grad.w);
  EXPECT_EQ(grad_only.b, grad.b);
}

TEST(ZooBackward, MlpMatchesCentralDifferences) {
  CB_FRESH_SEED(seed);
  CheckBackward(MakeMlpArch(2, 5, {6, 4}, 3), seed);
}

TEST(ZooBackward, CnnMatchesCentralDifferences) {
  CB_FRESH_SEED(seed);
  // Odd size 7: the k3 s2 p1 convs read padding on both borders (7 -> 4 -> 2).
  CheckBackward(MakeCnnArch(2, 7, {3, 4}, 3), seed);
}

TEST(ZooBackward, RejectsATraceOfAnotherBatch) {
  const ZooModel m = InitZooModel(MakeMlpArch(1, 4, {3}, 2), 5);
  std::vector<double> x(2 * 16, 0.5), logits(4), dlogits(4, 1.0);
  ZooTrace trace;
  ZooForward(m, 2, x.data(), logits.data(), &trace);
  ZooModel grad;
  EXPECT_THROW(ZooBackward(m, 1, trace, dlogits.data(), &grad, nullptr), std::invalid_argument);
}

// ---------------------------------------------------------------------------
// Forward.

TEST(ZooForward, HandSetMlp) {
  // x (1, 1, 2, 2) = [1, 2, 3, 4]
  //   hidden = relu([1 - 3 + 0.5, 0.5 * 10 - 4]) = relu([-1.5, 1]) = [0, 1]
  //   logits = [[1, 2], [3, -1]] [0, 1] + [0.25, 0] = [2.25, -1]
  ZooModel m = InitZooModel(MakeMlpArch(1, 2, {2}, 2), 1);
  m.w[0] = {1, 0, -1, 0, 0.5, 0.5, 0.5, 0.5};
  m.b[0] = {0.5, -4};
  m.w[1] = {1, 2, 3, -1};
  m.b[1] = {0.25, 0};
  const std::vector<double> x = {1, 2, 3, 4};
  std::vector<double> logits(2);
  ZooTrace trace;
  ZooForward(m, 1, x.data(), logits.data(), &trace);
  EXPECT_EQ(logits, (std::vector<double>{2.25, -1}));
  ASSERT_EQ(trace.act.size(), 3u);
  EXPECT_EQ(trace.act[0], x);
  EXPECT_EQ(trace.act[1], (std::vector<double>{0, 1}));
  EXPECT_EQ(trace.act[2], logits);  // no ReLU on the logits
}

TEST(ZooForward, HandSetCnnWithPaddingAndBatch) {
  // One 2x2 image through conv k3 s2 p1: the single output pixel's window
  // starts at (-1, -1), so taps (ky, kx) in {1, 2}^2 meet pixels (0..1, 0..1).
  // w[ky][kx] = 3 ky + kx: 4*x00 + 5*x01 + 7*x10 + 8*x11 + b.
  //   image 0 [1, 2, 3, 4]:     4 + 10 + 21 + 32 - 60 = 7  -> relu 7 -> gap 7
  //   image 1 [-1, -2, -3, -4]: -67 - 60               -> relu 0 -> gap 0
  // linear 1 -> 2, w [[1], [-2]], b [0, 1]: logits [7, -13] and [0, 1].
  ZooModel m = InitZooModel(MakeCnnArch(1, 2, {1}, 2), 1);
  ASSERT_EQ(m.arch.layers.size(), 3u);
  m.w[0] = {0, 1, 2, 3, 4, 5, 6, 7, 8};
  m.b[0] = {-60};
  m.w[2] = {1, -2};
  m.b[2] = {0, 1};
  EXPECT_TRUE(m.w[1].empty() && m.b[1].empty());  // the pool has no parameters
  const std::vector<double> x = {1, 2, 3, 4, -1, -2, -3, -4};
  std::vector<double> logits(4);
  ZooForward(m, 2, x.data(), logits.data(), nullptr);
  EXPECT_EQ(logits, (std::vector<double>{7, -13, 0, 1}));
}

// A direct evaluation of zoo_model.h's definitions, written separately from
// the reference's loops: out[o][y][x] = b[o] + sum w[o][i][ky][kx] *
// in[i][y*s - p + ky][x*s - p + kx] with zeros outside the image.
std::vector<double> DirectCnn(const ZooModel& m, const std::vector<double>& image) {
  std::vector<double> cur = image;
  int c = m.arch.channels, side = m.arch.size;
  for (size_t l = 0; l < m.arch.layers.size(); ++l) {
    const ZooLayer& L = m.arch.layers[l];
    std::vector<double> next;
    if (L.kind == ZooLayerKind::kConv) {
      const int out_side = (side + 2 * L.pad - L.k) / L.stride + 1;
      next.assign(static_cast<size_t>(L.out) * out_side * out_side, 0.0);
      for (int o = 0; o < L.out; ++o)
        for (int y = 0; y < out_side; ++y)
          for (int xx = 0; xx < out_side; ++xx) {
            double z = m.b[l][o];
            for (int i = 0; i < c; ++i)
              for (int ky = 0; ky < L.k; ++ky)
                for (int kx = 0; kx < L.k; ++kx) {
                  const int iy = y * L.stride - L.pad + ky, ix = xx * L.stride - L.pad + kx;
                  const bool pad = iy < 0 || ix < 0 || iy >= side || ix >= side;
                  const double v = pad ? 0.0 : cur[(i * side + iy) * side + ix];
                  z += m.w[l][((o * c + i) * L.k + ky) * L.k + kx] * v;
                }
            next[(o * out_side + y) * out_side + xx] = std::max(z, 0.0);
          }
      c = L.out;
      side = out_side;
    } else if (L.kind == ZooLayerKind::kGlobalAvgPool) {
      next.assign(static_cast<size_t>(c), 0.0);
      for (int i = 0; i < c; ++i) {
        for (int q = 0; q < side * side; ++q) next[i] += cur[i * side * side + q];
        next[i] /= side * side;
      }
      side = 1;
    } else {
      next.assign(static_cast<size_t>(L.out), 0.0);
      for (int o = 0; o < L.out; ++o) {
        double z = m.b[l][o];
        for (int j = 0; j < L.in; ++j) z += m.w[l][o * L.in + j] * cur[j];
        next[o] = l + 1 < m.arch.layers.size() ? std::max(z, 0.0) : z;
      }
      c = L.out;
    }
    cur = next;
  }
  return cur;
}

TEST(ZooForward, CnnMatchesTheDirectFormula) {
  CB_FRESH_SEED(seed);
  h::Rng rng(seed, 2);
  const ZooArch arch = MakeCnnArch(2, 9, {3, 5, 4}, 4);  // 9 -> 5 -> 3 -> 2
  const ZooModel m = InitZooModel(arch, seed);
  constexpr int kBatch = 2;
  const std::vector<double> x = Normals(rng, static_cast<size_t>(kBatch * InputSize(arch)));
  std::vector<double> logits(kBatch * 4, std::nan(""));
  ZooForward(m, kBatch, x.data(), logits.data(), nullptr);
  for (int n = 0; n < kBatch; ++n) {
    const std::vector<double> image(x.begin() + n * InputSize(arch), x.begin() + (n + 1) * InputSize(arch));
    const std::vector<double> want = DirectCnn(m, image);
    const std::vector<double> got(logits.begin() + n * 4, logits.begin() + (n + 1) * 4);
    EXPECT_TRUE(cb::testing::AllClose(got, want, 1e-12, 1e-12)) << "image " << n;
  }
}

TEST(InitZooModel, PyTorchBoundsAndDeterminism) {
  const ZooArch arch = MakeCnnArch(1, 8, {4, 6}, 3);
  const ZooModel a = InitZooModel(arch, 42);
  const ZooModel b = InitZooModel(arch, 42);
  const ZooModel c = InitZooModel(arch, 43);
  EXPECT_EQ(a.w, b.w);
  EXPECT_EQ(a.b, b.b);
  EXPECT_NE(a.w, c.w);
  // fan_in: conv0 1*9, conv1 4*9, linear 6.
  const double bounds[3] = {1 / 3.0, 1 / 6.0, 1 / std::sqrt(6.0)};
  const size_t layer[3] = {0, 1, 3};
  for (int t = 0; t < 3; ++t) {
    double worst = 0;
    for (double v : a.w[layer[t]]) worst = std::max(worst, std::abs(v));
    for (double v : a.b[layer[t]]) worst = std::max(worst, std::abs(v));
    EXPECT_LE(worst, bounds[t]);
    EXPECT_GT(worst, 0.5 * bounds[t]);  // the whole range is used, not a smaller one
  }
}

// ---------------------------------------------------------------------------
// Architecture text and counts.

TEST(ArchString, RoundTrips) {
  for (const ZooArch& arch : {MakeMlpArch(1, 32, {32, 16}, 10), MakeCnnArch(1, 32, {8, 16}, 10),
                              MakeCnnArch(3, 7, {4}, 2), MakeMlpArch(2, 5, {}, 3)}) {
    const std::string text = ArchToString(arch);
    const ZooArch back = ArchFromString(text);
    EXPECT_EQ(ArchToString(back), text);
    ASSERT_EQ(back.layers.size(), arch.layers.size()) << text;
    for (size_t l = 0; l < arch.layers.size(); ++l) {
      EXPECT_EQ(back.layers[l].kind, arch.layers[l].kind) << text;
      EXPECT_EQ(back.layers[l].in, arch.layers[l].in) << text;
      EXPECT_EQ(back.layers[l].out, arch.layers[l].out) << text;
    }
  }
  EXPECT_EQ(ArchToString(MakeMlpArch(1, 32, {32, 16}, 10)), "mlp c=1 s=32 hidden=32,16 classes=10");
  EXPECT_EQ(ArchToString(MakeCnnArch(1, 32, {8, 16}, 10)), "cnn c=1 s=32 conv=8,16 classes=10");
  EXPECT_EQ(ArchToString(MakeMlpArch(2, 5, {}, 3)), "mlp c=2 s=5 hidden= classes=3");
}

TEST(ArchString, RejectsMalformedText) {
  const char* bad[] = {
      "",
      "mlp c=1 s=32 hidden=32 classes=10 ",   // trailing space
      "mlp  c=1 s=32 hidden=32 classes=10",   // double space
      "MLP c=1 s=32 hidden=32 classes=10",    // family case
      "rnn c=1 s=32 hidden=32 classes=10",
      "mlp c=01 s=32 hidden=32 classes=10",   // leading zero
      "mlp c=+1 s=32 hidden=32 classes=10",
      "mlp c=1 s=32 hidden=32,,16 classes=10",
      "mlp c=1 s=32 hidden=32, classes=10",
      "mlp c=1 s=32 hidden=0 classes=10",
      "mlp c=1 s=32 hidden=4097 classes=10",  // width above 4096
      "mlp c=1 s=32 hidden=-8 classes=10",
      "mlp c=1 s=32 hidden=8 classes=1",      // classes < 2
      "mlp c=1 s=32 conv=8 classes=10",       // the CNN's key on an MLP
      "cnn c=1 s=32 hidden=8 classes=10",
      "cnn c=1 s=32 conv= classes=10",        // a CNN without convs
      "mlp s=32 c=1 hidden=8 classes=10",     // fields out of order
      "mlp c=1 s=32 hidden=8",
      "mlp c=1 s=32 hidden=8 classes=10\n",
      "mlp c=4096 s=4096 hidden=8 classes=10",  // the flattened input overflows
  };
  for (const char* text : bad) {
    try {
      ArchFromString(text);
      ADD_FAILURE() << "accepted \"" << text << "\"";
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
      EXPECT_NE(what.find("zoo arch \""), std::string::npos) << what;  // quotes the text
    }
  }
  // The bounds themselves are accepted.
  const std::string widest = "mlp c=1 s=32 hidden=4096,1 classes=4096";
  EXPECT_EQ(ArchToString(ArchFromString(widest)), widest);
}

TEST(ArchString, RefusesArchsWithoutATextForm) {
  ZooArch odd = MakeCnnArch(1, 8, {4}, 3);
  odd.layers[0].stride = 1;  // a k3 s1 conv: not what "cnn" means
  odd.layers[0].pad = 1;
  EXPECT_THROW(ArchToString(odd), std::invalid_argument);
  ZooArch no_pool = MakeCnnArch(1, 8, {4}, 3);
  no_pool.layers.erase(no_pool.layers.begin() + 1);
  no_pool.layers.back().in = 4 * 4 * 4;
  EXPECT_THROW(ArchToString(no_pool), std::invalid_argument);
  // ...but the forward pass runs it (the linear reads the conv output flattened).
  const ZooModel m = InitZooModel(no_pool, 3);
  std::vector<double> x(64, 0.25), logits(3);
  ZooForward(m, 1, x.data(), logits.data(), nullptr);
  EXPECT_TRUE(std::isfinite(logits[0]));
}

TEST(MakeArch, RejectsBadWidths) {
  EXPECT_THROW(MakeMlpArch(1, 32, {0}, 10), std::invalid_argument);
  EXPECT_THROW(MakeMlpArch(1, 32, {8}, 1), std::invalid_argument);
  EXPECT_THROW(MakeMlpArch(0, 32, {8}, 10), std::invalid_argument);
  EXPECT_THROW(MakeCnnArch(1, 32, {}, 10), std::invalid_argument);
  EXPECT_THROW(MakeCnnArch(1, 0, {4}, 10), std::invalid_argument);
  EXPECT_THROW(MakeCnnArch(1, 32, {4, -1}, 10), std::invalid_argument);
}

TEST(ZooCounts, KnownArchitecturesByHand) {
  // CNN c=1 s=32 conv 8,16, 10 classes:
  //   conv 1->8  k3: 8*1*9 + 8 = 80 params, 16x16 out: 72 * 256 = 18432 MACs
  //   conv 8->16 k3: 16*8*9 + 16 = 1168,     8x8 out: 1152 * 64 = 73728
  //   gap: 0; linear 16->10: 170 params, 160 MACs
  const ZooArch cnn = MakeCnnArch(1, 32, {8, 16}, 10);
  EXPECT_EQ(ZooParamCount(cnn), 80 + 1168 + 170);
  EXPECT_EQ(ZooMacsPerImage(cnn), 18432 + 73728 + 160);
  EXPECT_EQ(ConvOutSize(32, cnn.layers[0]), 16);
  EXPECT_EQ(ConvOutSize(7, cnn.layers[0]), 4);
  // MLP c=1 s=32 hidden 32,16: 1024*32+32 + 32*16+16 + 16*10+10 params,
  // 32768 + 512 + 160 MACs.
  const ZooArch mlp = MakeMlpArch(1, 32, {32, 16}, 10);
  EXPECT_EQ(ZooParamCount(mlp), 32800 + 528 + 170);
  EXPECT_EQ(ZooMacsPerImage(mlp), 32768 + 512 + 160);
  const ZooModel m = InitZooModel(cnn, 1);
  int64_t stored = 0;
  for (size_t l = 0; l < m.w.size(); ++l) stored += static_cast<int64_t>(m.w[l].size() + m.b[l].size());
  EXPECT_EQ(stored, ZooParamCount(cnn));
}

// ---------------------------------------------------------------------------
// Files.

class ZooFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cb_probegen_zoo_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  // The tensors WriteZooModel would write for `m`, for tests that spoil them.
  static std::vector<std::pair<std::string, h::SafetensorsWriteTensor>> Tensors(const ZooModel& m) {
    std::vector<std::pair<std::string, h::SafetensorsWriteTensor>> t;
    for (size_t l = 0; l < m.arch.layers.size(); ++l) {
      const ZooLayer& L = m.arch.layers[l];
      if (L.kind == ZooLayerKind::kGlobalAvgPool) continue;
      std::vector<int64_t> shape = {L.out, L.in};
      if (L.kind == ZooLayerKind::kConv) shape = {L.out, L.in, L.k, L.k};
      t.push_back({"layers." + std::to_string(l) + ".weight", {"F32", shape, m.w[l]}});
      t.push_back({"layers." + std::to_string(l) + ".bias", {"F32", {L.out}, m.b[l]}});
    }
    return t;
  }

  // ReadZooModel(path) must throw a one-line std::runtime_error that names
  // the file and contains `needle`.
  static void ExpectReadError(const std::string& path, const std::string& needle) {
    try {
      ReadZooModel(path);
      ADD_FAILURE() << "read " << path << " without error (wanted: " << needle << ")";
    } catch (const std::runtime_error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(path), std::string::npos) << what;
      EXPECT_NE(what.find(needle), std::string::npos) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
  }

  // A small CNN with fp32-exact weights, so a round trip through F32 is exact.
  static ZooModel Fp32Model(const ZooArch& arch, uint64_t seed) {
    ZooModel m = InitZooModel(arch, seed);
    for (auto& w : m.w) for (double& v : w) v = static_cast<float>(v);
    for (auto& b : m.b) for (double& v : b) v = static_cast<float>(v);
    return m;
  }

  fs::path dir_;
};

TEST_F(ZooFileTest, WriteThenReadIsExact) {
  const ZooModel m = Fp32Model(MakeCnnArch(1, 16, {4, 8}, 10), 7);
  const double accuracy = 0.1 + 1.0 / 3.0;  // needs all 17 digits to come back exactly
  WriteZooModel(Path("a.safetensors"), m, accuracy, {{"lr", "0.01"}, {"arch", "overwritten"}});
  const StoredZooModel s = ReadZooModel(Path("a.safetensors"));
  EXPECT_EQ(s.path, Path("a.safetensors"));
  EXPECT_EQ(s.test_accuracy, accuracy);
  EXPECT_EQ(ArchToString(s.model.arch), "cnn c=1 s=16 conv=4,8 classes=10");
  EXPECT_EQ(s.model.w, m.w);
  EXPECT_EQ(s.model.b, m.b);
  EXPECT_EQ(s.metadata.at("lr"), "0.01");
  EXPECT_EQ(s.metadata.at("arch"), "cnn c=1 s=16 conv=4,8 classes=10");
  EXPECT_THROW(WriteZooModel(Path("b.safetensors"), m, 1.5), std::invalid_argument);
  EXPECT_THROW(WriteZooModel(Path("b.safetensors"), m, std::nan("")), std::invalid_argument);
  EXPECT_FALSE(fs::exists(Path("b.safetensors")));
}

TEST_F(ZooFileTest, EveryMalformedFileIsOneLineNamingIt) {
  const ZooModel m = Fp32Model(MakeMlpArch(1, 4, {3}, 2), 3);
  const std::string arch = ArchToString(m.arch);
  const std::map<std::string, std::string> meta = {{"arch", arch}, {"test_accuracy", "0.5"}};

  const std::string good = Path("good.safetensors");
  h::WriteSafetensors(good, Tensors(m), meta);
  EXPECT_EQ(ReadZooModel(good).test_accuracy, 0.5);  // the baseline the others spoil

  {  // a weight transposed
    auto t = Tensors(m);
    t[0].second.shape = {16, 3};
    h::WriteSafetensors(Path("shape.safetensors"), t, meta);
    ExpectReadError(Path("shape.safetensors"), "layers.0.weight\" has shape (16, 3)");
  }
  {  // a tensor missing
    auto t = Tensors(m);
    t.pop_back();
    h::WriteSafetensors(Path("missing.safetensors"), t, meta);
    ExpectReadError(Path("missing.safetensors"), "layers.1.bias\" is missing");
  }
  {  // a tensor left over
    auto t = Tensors(m);
    t.push_back({"layers.2.weight", {"F32", {1}, {0.0}}});
    h::WriteSafetensors(Path("extra.safetensors"), t, meta);
    ExpectReadError(Path("extra.safetensors"), "layers.2.weight\" is not part of the arch");
  }
  for (const char* acc : {"0.5x", "nan", "1.5", "-0.25", "inf", "", " 0.5", "+0.5", "0x1p-1"}) {
    SCOPED_TRACE(std::string("accuracy \"") + acc + "\"");
    auto bad = meta;
    bad["test_accuracy"] = acc;
    h::WriteSafetensors(Path("acc.safetensors"), Tensors(m), bad);
    ExpectReadError(Path("acc.safetensors"), "\"test_accuracy\"");
  }
  {
    auto bad = meta;
    bad.erase("test_accuracy");
    h::WriteSafetensors(Path("noacc.safetensors"), Tensors(m), bad);
    ExpectReadError(Path("noacc.safetensors"), "no \"test_accuracy\"");
  }
  {
    auto bad = meta;
    bad.erase("arch");
    h::WriteSafetensors(Path("noarch.safetensors"), Tensors(m), bad);
    ExpectReadError(Path("noarch.safetensors"), "no \"arch\"");
  }
  {
    auto bad = meta;
    bad["arch"] = "mlp c=1 s=4 hidden=3\nclasses=2";
    h::WriteSafetensors(Path("badarch.safetensors"), Tensors(m), bad);
    ExpectReadError(Path("badarch.safetensors"), "bad \"arch\"");
  }
  {  // the arch names another model than the tensors hold
    auto bad = meta;
    bad["arch"] = "mlp c=1 s=4 hidden=5 classes=2";
    h::WriteSafetensors(Path("otherarch.safetensors"), Tensors(m), bad);
    ExpectReadError(Path("otherarch.safetensors"), "the arch needs (5, 16)");
  }
  for (double v : {std::numeric_limits<double>::infinity(), std::nan("")}) {
    auto t = Tensors(m);
    t[2].second.values[1] = v;
    h::WriteSafetensors(Path("nonfinite.safetensors"), t, meta);
    ExpectReadError(Path("nonfinite.safetensors"), "layers.1.weight\" has a non-finite value at element 1");
  }
  {  // not safetensors at all
    h::WriteSafetensors(Path("junk.safetensors"), {}, {});
    fs::resize_file(Path("junk.safetensors"), 4);
    ExpectReadError(Path("junk.safetensors"), "");
  }
  ExpectReadError(Path("absent.safetensors"), "");
}

TEST_F(ZooFileTest, ReadZooDirSortsByNameAndChecksAgreement) {
  const ZooModel a = Fp32Model(MakeMlpArch(1, 4, {3}, 2), 1);
  const ZooModel b = Fp32Model(MakeCnnArch(1, 4, {2}, 2), 2);
  WriteZooModel(Path("m_b.safetensors"), b, 0.25);
  WriteZooModel(Path("m_a.safetensors"), a, 0.75);
  h::WriteSafetensors(Path("notes.txt"), {}, {});  // not *.safetensors: skipped
  const std::vector<StoredZooModel> zoo = ReadZooDir(dir_.string());
  ASSERT_EQ(zoo.size(), 2u);
  EXPECT_EQ(zoo[0].path, Path("m_a.safetensors"));
  EXPECT_EQ(zoo[0].test_accuracy, 0.75);
  EXPECT_EQ(zoo[1].model.w, b.w);

  WriteZooModel(Path("m_c.safetensors"), Fp32Model(MakeMlpArch(1, 5, {3}, 2), 3), 0.5);
  try {
    ReadZooDir(dir_.string());
    ADD_FAILURE() << "a model of another input size was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(Path("m_c.safetensors")), std::string::npos) << e.what();
  }

  const std::string empty = Path("empty");
  fs::create_directories(empty);
  for (const std::string& d : {empty, Path("absent")}) {
    try {
      ReadZooDir(d);
      ADD_FAILURE() << d << " was accepted";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(d), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace cb::ref::probegen
