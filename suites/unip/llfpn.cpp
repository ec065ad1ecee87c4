// File: suites/unip/llfpn.cpp
// -----------------------------------------------------------------------------
// The simplified LL-FPN head: forward, hand-written backward, AdamW training
// and mIoU; see llfpn.h for the architecture and what it leaves out.
#include "suites/unip/llfpn.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "harness/random.h"
#include "reference/unip/miou.h"

namespace cb::unip {
namespace {

// Exact GELU, torch's nn.GELU() default: s Phi(s), and its derivative
// Phi(s) + s phi(s).
double Gelu(double s) { return 0.5 * s * (1.0 + std::erf(s * M_SQRT1_2)); }
double GeluGrad(double s) {
  return 0.5 * (1.0 + std::erf(s * M_SQRT1_2)) + s * std::exp(-0.5 * s * s) * (0.5 * M_2_SQRTPI * M_SQRT1_2);
}

// The sizes of one call, all checked.
struct Dims {
  int n = 0;  // images
  int g = 0;  // G, patch grid
  int h = 0;  // 2G, the fused grid
  int q = 0;  // G/2, the pooled grid
  int d = 0, f = 0, k = 0;
};

[[noreturn]] void Fail(const char* who, const std::string& what) {
  throw std::invalid_argument(std::string(who) + ": " + what);
}

Dims CheckShapes(const LlFpnHead& head, std::span<const double> features, int grid, const char* who) {
  const size_t D = head.dim, F = head.width, K = head.classes;
  if (head.dim < 1 || head.width < 1 || head.classes < 2) Fail(who, "head has dim < 1, width < 1 or classes < 2");
  if (head.up_w.size() != D * F * 4 || head.up_b.size() != F || head.mid_w.size() != F * D ||
      head.mid_b.size() != F || head.down_w.size() != F * D || head.down_b.size() != F ||
      head.cls_w.size() != K * F || head.cls_b.size() != K)
    Fail(who, "head tensors do not match its dim, width and classes");
  if (grid < 2 || grid % 2 != 0) Fail(who, "grid G = " + std::to_string(grid) + " is not even and >= 2");
  const size_t per = size_t(grid) * grid * D;
  if (features.empty() || features.size() % per != 0)
    Fail(who, "features (" + std::to_string(features.size()) + " values) are not [N * G * G, D] with G = " +
                  std::to_string(grid) + ", D = " + std::to_string(D));
  return Dims{.n = int(features.size() / per), .g = grid, .h = 2 * grid, .q = grid / 2,
              .d = head.dim, .f = head.width, .k = head.classes};
}

// What the backward needs from the forward.
struct Activations {
  std::vector<double> pool;    // [N, G/2, G/2, D] max-pooled features
  std::vector<size_t> arg;     // [N, G/2, G/2, D] index into features of each max
  std::vector<double> s;       // [N, 2G, 2G, F] fused sum, before GELU
  std::vector<double> u;       // [N, 2G, 2G, F] GELU(s)
  std::vector<double> logits;  // [N, 2G, 2G, K]
};

Activations Forward(const LlFpnHead& head, std::span<const double> x, const Dims& m) {
  const int N = m.n, G = m.g, H = m.h, Q = m.q, D = m.d, F = m.f, K = m.k;
  Activations act;
  // level (b): 1x1 conv at G x G, b [N, G, G, F]
  std::vector<double> b(size_t(N) * G * G * F);
  for (size_t cell = 0; cell < size_t(N) * G * G; ++cell) {
    const double* xp = &x[cell * D];
    for (int f = 0; f < F; ++f) {
      double v = head.mid_b[f];
      for (int d = 0; d < D; ++d) v += head.mid_w[size_t(f) * D + d] * xp[d];
      b[cell * F + f] = v;
    }
  }
  // level (c): 2x2 max-pool pool [N, Q, Q, D], then 1x1 conv c [N, Q, Q, F]
  act.pool.resize(size_t(N) * Q * Q * D);
  act.arg.resize(act.pool.size());
  std::vector<double> c(size_t(N) * Q * Q * F);
  for (int n = 0; n < N; ++n)
    for (int i = 0; i < Q; ++i)
      for (int j = 0; j < Q; ++j) {
        const size_t pc = (size_t(n) * Q + i) * Q + j;
        for (int d = 0; d < D; ++d) {
          double best = -std::numeric_limits<double>::infinity();
          size_t best_at = 0;
          for (int di = 0; di < 2; ++di)
            for (int dj = 0; dj < 2; ++dj) {
              const size_t at = ((size_t(n) * G + 2 * i + di) * G + 2 * j + dj) * D + d;
              if (x[at] > best) best = x[at], best_at = at;  // strict: ties keep the first
            }
          act.pool[pc * D + d] = best;
          act.arg[pc * D + d] = best_at;
        }
        for (int f = 0; f < F; ++f) {
          double v = head.down_b[f];
          for (int d = 0; d < D; ++d) v += head.down_w[size_t(f) * D + d] * act.pool[pc * D + d];
          c[pc * F + f] = v;
        }
      }
  // level (a) ConvT 2x2 stride 2 (kernel = stride: output (y, x) sees only
  // input (y/2, x/2) through tap (y%2, x%2)), plus (b) and (c)
  // nearest-upsampled, GELU, classifier: s, u [N, H, H, F], logits [N, H, H, K]
  act.s.resize(size_t(N) * H * H * F);
  act.u.resize(act.s.size());
  act.logits.resize(size_t(N) * H * H * K);
  for (int n = 0; n < N; ++n)
    for (int y = 0; y < H; ++y)
      for (int xx = 0; xx < H; ++xx) {
        const size_t cell = (size_t(n) * H + y) * H + xx;
        const double* xp = &x[((size_t(n) * G + y / 2) * G + xx / 2) * D];
        const double* bp = &b[((size_t(n) * G + y / 2) * G + xx / 2) * F];
        const double* cp = &c[((size_t(n) * Q + y / 4) * Q + xx / 4) * F];
        const int tap = (y % 2) * 2 + xx % 2;
        double* sp = &act.s[cell * F];
        double* up = &act.u[cell * F];
        for (int f = 0; f < F; ++f) {
          double v = head.up_b[f] + bp[f] + cp[f];
          for (int d = 0; d < D; ++d) v += xp[d] * head.up_w[(size_t(d) * F + f) * 4 + tap];
          sp[f] = v;
          up[f] = Gelu(v);
        }
        for (int k = 0; k < K; ++k) {
          double z = head.cls_b[k];
          for (int f = 0; f < F; ++f) z += head.cls_w[size_t(k) * F + f] * up[f];
          act.logits[cell * K + k] = z;
        }
      }
  return act;
}

LlFpnHead ZerosLike(const LlFpnHead& head) {
  LlFpnHead g{.dim = head.dim, .width = head.width, .classes = head.classes};
  auto dst = g.Tensors();
  const auto src = head.Tensors();
  for (size_t t = 0; t < dst.size(); ++t) dst[t]->assign(src[t]->size(), 0.0);
  return g;
}

// AdamW as torch.optim.AdamW (betas 0.9, 0.999, eps 1e-8), fp64:
//   p *= 1 - lr wd;  m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2
//   p -= lr (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps)
// Scene labels as ints, [N, S, S].
std::vector<int> PixelLabels(const gen::SegScenes& scenes) {
  std::vector<int> out;
  for (const gen::SegScene& s : scenes.scenes) out.insert(out.end(), s.label.begin(), s.label.end());
  return out;
}

int SceneGrid(const gen::SegScenes& scenes, int patch, const char* who) {
  if (patch < 2 || patch % 2 != 0 || scenes.params.size % patch != 0)
    Fail(who, "patch " + std::to_string(patch) + " is not even or does not divide the scene size " +
                  std::to_string(scenes.params.size));
  return scenes.params.size / patch;
}

}  // namespace

std::array<std::vector<double>*, 8> LlFpnHead::Tensors() {
  return {&up_w, &up_b, &mid_w, &mid_b, &down_w, &down_b, &cls_w, &cls_b};
}
std::array<const std::vector<double>*, 8> LlFpnHead::Tensors() const {
  return {&up_w, &up_b, &mid_w, &mid_b, &down_w, &down_b, &cls_w, &cls_b};
}

LlFpnHead MakeLlFpnHead(int dim, int classes, const LlFpnSpec& spec) {
  if (dim < 1 || spec.width < 1 || classes < 2)
    Fail("MakeLlFpnHead", "dim < 1, width < 1 or classes < 2 (dim " + std::to_string(dim) + ", width " +
                              std::to_string(spec.width) + ", classes " + std::to_string(classes) + ")");
  const size_t D = dim, F = spec.width, K = classes;
  LlFpnHead h{.dim = dim, .width = spec.width, .classes = classes};
  harness::Rng rng(spec.seed, 0);
  auto normal = [&](std::vector<double>& w, size_t n, double fan_in) {
    w.resize(n);
    for (double& v : w) v = rng.Normal() / std::sqrt(fan_in);
  };
  normal(h.up_w, D * F * 4, double(D));
  normal(h.mid_w, F * D, double(D));
  normal(h.down_w, F * D, double(D));
  normal(h.cls_w, K * F, double(F));
  h.up_b.assign(F, 0.0);
  h.mid_b.assign(F, 0.0);
  h.down_b.assign(F, 0.0);
  h.cls_b.assign(K, 0.0);
  return h;
}

std::vector<double> LlFpnLogits(const LlFpnHead& head, std::span<const double> features, int grid) {
  const Dims m = CheckShapes(head, features, grid, "LlFpnLogits");
  return Forward(head, features, m).logits;
}

double LlFpnLossAndGrad(const LlFpnHead& head, std::span<const double> features, int grid,
                        std::span<const int> labels, int patch, LlFpnHead* grad,
                        std::vector<double>* dfeatures) {
  const char* who = "LlFpnLossAndGrad";
  const Dims m = CheckShapes(head, features, grid, who);
  if (patch < 2 || patch % 2 != 0) Fail(who, "patch " + std::to_string(patch) + " is not even and >= 2");
  const int N = m.n, G = m.g, H = m.h, Q = m.q, D = m.d, F = m.f, K = m.k;
  const int S = G * patch, cp = patch / 2;  // pixels per side; pixels per cell side
  if (labels.size() != size_t(N) * S * S)
    Fail(who, "labels (" + std::to_string(labels.size()) + ") are not [N, S, S] with N = " + std::to_string(N) +
                  ", S = " + std::to_string(S));
  for (int l : labels)
    if ((l < 0 || l >= K) && l != ref::unip::kIgnoreLabel)
      Fail(who, "label " + std::to_string(l) + " outside [0, " + std::to_string(K) + ") and not 255");

  const Activations act = Forward(head, features, m);
  const double inv_pixels = 1.0 / (double(N) * S * S);  // mmseg avg_non_ignore=False: all pixels
  // Per cell: counts of each label among its cp x cp pixels; the cell's loss
  // is sum_k n_k (lse - z_k) and d loss / d z = (sum_k n_k) softmax - n.
  std::vector<double> dz(act.logits.size(), 0.0);  // [N, H, H, K]
  std::vector<double> count(K), prob(K);
  double loss = 0.0;
  for (int n = 0; n < N; ++n)
    for (int y = 0; y < H; ++y)
      for (int xx = 0; xx < H; ++xx) {
        const size_t cell = (size_t(n) * H + y) * H + xx;
        std::fill(count.begin(), count.end(), 0.0);
        double total = 0.0;
        for (int py = y * cp; py < (y + 1) * cp; ++py)
          for (int px = xx * cp; px < (xx + 1) * cp; ++px) {
            const int l = labels[(size_t(n) * S + py) * S + px];
            if (l == ref::unip::kIgnoreLabel) continue;
            count[l] += 1.0;
            total += 1.0;
          }
        if (total == 0.0) continue;
        const double* z = &act.logits[cell * K];
        double zmax = z[0];
        for (int k = 1; k < K; ++k) zmax = std::max(zmax, z[k]);
        double sum = 0.0;
        for (int k = 0; k < K; ++k) sum += prob[k] = std::exp(z[k] - zmax);
        const double lse = zmax + std::log(sum);
        for (int k = 0; k < K; ++k) {
          loss += count[k] * (lse - z[k]) * inv_pixels;
          dz[cell * K + k] = (total * prob[k] / sum - count[k]) * inv_pixels;
        }
      }
  if (grad == nullptr && dfeatures == nullptr) return loss;

  // Backward, in reverse order of Forward.
  LlFpnHead g = ZerosLike(head);
  std::vector<double> dx(features.size(), 0.0);               // [N, G, G, D]
  std::vector<double> db(size_t(N) * G * G * F, 0.0);        // [N, G, G, F]
  std::vector<double> dc(size_t(N) * Q * Q * F, 0.0);        // [N, Q, Q, F]
  std::vector<double> ds(F);                                 // one cell's d loss / d s
  for (int n = 0; n < N; ++n)
    for (int y = 0; y < H; ++y)
      for (int xx = 0; xx < H; ++xx) {
        const size_t cell = (size_t(n) * H + y) * H + xx;
        const size_t xcell = (size_t(n) * G + y / 2) * G + xx / 2;
        const double* xp = &features[xcell * D];
        const double* sp = &act.s[cell * F];
        const double* up = &act.u[cell * F];
        const double* dzp = &dz[cell * K];
        const int tap = (y % 2) * 2 + xx % 2;
        // classifier: du = cls_w^T dz; d cls_w += dz u^T; d cls_b += dz
        for (int f = 0; f < F; ++f) ds[f] = 0.0;
        for (int k = 0; k < K; ++k) {
          g.cls_b[k] += dzp[k];
          for (int f = 0; f < F; ++f) {
            g.cls_w[size_t(k) * F + f] += dzp[k] * up[f];
            ds[f] += head.cls_w[size_t(k) * F + f] * dzp[k];
          }
        }
        for (int f = 0; f < F; ++f) ds[f] *= GeluGrad(sp[f]);
        // the sum: d a = ds here; (b) and (c) collect it over their 2x2 and 4x4 cells
        double* dbp = &db[xcell * F];
        double* dcp = &dc[((size_t(n) * Q + y / 4) * Q + xx / 4) * F];
        for (int f = 0; f < F; ++f) {
          dbp[f] += ds[f];
          dcp[f] += ds[f];
          g.up_b[f] += ds[f];
        }
        // level (a): d up_w[d, f, tap] += x_d ds_f; dx_d += up_w[d, f, tap] ds_f
        double* dxp = &dx[xcell * D];
        for (int d = 0; d < D; ++d) {
          double acc = 0.0;
          for (int f = 0; f < F; ++f) {
            const size_t w = (size_t(d) * F + f) * 4 + tap;
            g.up_w[w] += xp[d] * ds[f];
            acc += head.up_w[w] * ds[f];
          }
          dxp[d] += acc;
        }
      }
  // level (b): d mid_w += db x^T; dx += mid_w^T db
  for (size_t cell = 0; cell < size_t(N) * G * G; ++cell) {
    const double* xp = &features[cell * D];
    double* dxp = &dx[cell * D];
    for (int f = 0; f < F; ++f) {
      const double v = db[cell * F + f];
      g.mid_b[f] += v;
      for (int d = 0; d < D; ++d) {
        g.mid_w[size_t(f) * D + d] += v * xp[d];
        dxp[d] += head.mid_w[size_t(f) * D + d] * v;
      }
    }
  }
  // level (c): d down_w += dc pool^T; d pool = down_w^T dc, routed to each max
  for (size_t pc = 0; pc < size_t(N) * Q * Q; ++pc)
    for (int f = 0; f < F; ++f) {
      const double v = dc[pc * F + f];
      g.down_b[f] += v;
      for (int d = 0; d < D; ++d) {
        g.down_w[size_t(f) * D + d] += v * act.pool[pc * D + d];
        dx[act.arg[pc * D + d]] += head.down_w[size_t(f) * D + d] * v;
      }
    }
  if (grad != nullptr) *grad = std::move(g);
  if (dfeatures != nullptr) *dfeatures = std::move(dx);
  return loss;
}

LlFpnAdamW::LlFpnAdamW(const LlFpnHead& head, double lr, double weight_decay)
    : lr_(lr), wd_(weight_decay), m_(ZerosLike(head)), v_(ZerosLike(head)) {}

void LlFpnAdamW::Step(LlFpnHead& head, const LlFpnHead& grad) {
  constexpr double b1 = 0.9, b2 = 0.999, eps = 1e-8;
  ++t_;
  const double c1 = 1.0 - std::pow(b1, t_), c2 = 1.0 - std::pow(b2, t_);
  auto p = head.Tensors();
  const auto g = grad.Tensors();
  auto m = m_.Tensors(), v = v_.Tensors();
  for (size_t t = 0; t < p.size(); ++t)
    for (size_t i = 0; i < p[t]->size(); ++i) {
      double& w = (*p[t])[i];
      const double gi = (*g[t])[i];
      double& mi = (*m[t])[i];
      double& vi = (*v[t])[i];
      w *= 1.0 - lr_ * wd_;
      mi = b1 * mi + (1.0 - b1) * gi;
      vi = b2 * vi + (1.0 - b2) * gi * gi;
      w -= lr_ * (mi / c1) / (std::sqrt(vi / c2) + eps);
    }
}

std::vector<double> TrainLlFpn(LlFpnHead& head, const std::vector<double>& features,
                               const gen::SegScenes& scenes, int patch, const LlFpnSpec& spec) {
  const char* who = "TrainLlFpn";
  const int grid = SceneGrid(scenes, patch, who);
  const Dims m = CheckShapes(head, features, grid, who);
  if (size_t(m.n) != scenes.scenes.size())
    Fail(who, "features hold " + std::to_string(m.n) + " images, scenes " + std::to_string(scenes.scenes.size()));
  if (spec.steps < 0 || spec.batch < 1 || !(spec.lr > 0) || !(spec.weight_decay >= 0))
    Fail(who, "steps < 0, batch < 1, lr <= 0 or weight_decay < 0");
  const std::vector<int> labels = PixelLabels(scenes);  // [N, S, S]
  const size_t per_x = size_t(grid) * grid * m.d, per_l = size_t(scenes.params.size) * scenes.params.size;
  LlFpnAdamW opt(head, spec.lr, spec.weight_decay);
  harness::Rng rng(spec.seed, 1);
  std::vector<double> bx(per_x * spec.batch);  // [B, G, G, D]
  std::vector<int> bl(per_l * spec.batch);     // [B, S, S]
  LlFpnHead grad;
  std::vector<double> losses;
  losses.reserve(spec.steps);
  for (int step = 0; step < spec.steps; ++step) {
    for (int b = 0; b < spec.batch; ++b) {
      const size_t i = rng.UniformInt(0, uint64_t(m.n) - 1);
      std::copy_n(features.begin() + i * per_x, per_x, bx.begin() + b * per_x);
      std::copy_n(labels.begin() + i * per_l, per_l, bl.begin() + b * per_l);
    }
    losses.push_back(LlFpnLossAndGrad(head, bx, grid, bl, patch, &grad, nullptr));
    opt.Step(head, grad);
  }
  return losses;
}

std::vector<int> LlFpnPredict(const LlFpnHead& head, std::span<const double> features, int grid, int patch) {
  const char* who = "LlFpnPredict";
  const Dims m = CheckShapes(head, features, grid, who);
  if (patch < 2 || patch % 2 != 0) Fail(who, "patch " + std::to_string(patch) + " is not even and >= 2");
  const std::vector<double> logits = Forward(head, features, m).logits;  // [N, H, H, K]
  const int H = m.h, K = m.k, S = grid * patch, cp = patch / 2;
  std::vector<int> out(size_t(m.n) * S * S);  // [N, S, S]
  for (int n = 0; n < m.n; ++n)
    for (int y = 0; y < H; ++y)
      for (int xx = 0; xx < H; ++xx) {
        const double* z = &logits[((size_t(n) * H + y) * H + xx) * K];
        int best = 0;
        for (int k = 1; k < K; ++k)
          if (z[k] > z[best]) best = k;
        for (int py = y * cp; py < (y + 1) * cp; ++py)
          for (int px = xx * cp; px < (xx + 1) * cp; ++px) out[(size_t(n) * S + py) * S + px] = best;
      }
  return out;
}

double LlFpnMiou(const LlFpnHead& head, const std::vector<double>& features, const gen::SegScenes& scenes,
                 int patch) {
  const char* who = "LlFpnMiou";
  const int grid = SceneGrid(scenes, patch, who);
  const Dims m = CheckShapes(head, features, grid, who);
  if (size_t(m.n) != scenes.scenes.size())
    Fail(who, "features hold " + std::to_string(m.n) + " images, scenes " + std::to_string(scenes.scenes.size()));
  if (head.classes < scenes.params.classes + 1)
    Fail(who, "head has " + std::to_string(head.classes) + " classes, scenes need " +
                  std::to_string(scenes.params.classes + 1));
  const std::vector<int> pred = LlFpnPredict(head, features, grid, patch);
  const size_t per = size_t(scenes.params.size) * scenes.params.size;
  ref::unip::MiouAccumulator acc(head.classes);
  std::vector<int> label(per);
  for (size_t i = 0; i < scenes.scenes.size(); ++i) {
    std::copy(scenes.scenes[i].label.begin(), scenes.scenes[i].label.end(), label.begin());
    acc.Add(std::span<const int>(pred).subspan(i * per, per), label);
  }
  return acc.Result().miou;
}

}  // namespace cb::unip
