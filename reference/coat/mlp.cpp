// File: reference/coat/mlp.cpp
// The small MLP and its training loop; see mlp.h.
#include "reference/coat/mlp.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "harness/random.h"

namespace cb::ref::coat {
namespace {

struct Offsets {
  int64_t w1, b1, w2, b2, w3, b3;
};

Offsets Layout(const MlpShape& s) {
  Offsets o;
  o.w1 = 0;
  o.b1 = o.w1 + s.hidden * s.in;
  o.w2 = o.b1 + s.hidden;
  o.b2 = o.w2 + s.hidden * s.hidden;
  o.w3 = o.b2 + s.hidden;
  o.b3 = o.w3 + s.out * s.hidden;
  return o;
}

// y (rows_out,) = W (rows_out, cols) x (cols,) + b, fp64 accumulation.
void Affine(const float* w, const float* b, const double* x, int64_t rows_out, int64_t cols,
            double* y) {
  for (int64_t r = 0; r < rows_out; ++r) {
    double s = b[r];
    const float* wr = w + r * cols;
    for (int64_t c = 0; c < cols; ++c) s += double(wr[c]) * x[c];
    y[r] = s;
  }
}

}  // namespace

const char* OptimizerName(OptimizerKind k) {
  return k == OptimizerKind::kFp32AdamW ? "fp32_adamw" : "coat_adamw";
}

std::vector<float> InitMlp(const MlpShape& s, uint64_t seed) {
  std::vector<float> p(s.NumParams(), 0.0f);
  const Offsets o = Layout(s);
  harness::Rng rng(seed, 7);
  auto fill = [&](int64_t off, int64_t count, int64_t fan_in) {
    const double sd = std::sqrt(2.0 / double(fan_in));
    for (int64_t i = 0; i < count; ++i) p[off + i] = static_cast<float>(sd * rng.Normal());
  };
  fill(o.w1, s.hidden * s.in, s.in);
  fill(o.w2, s.hidden * s.hidden, s.hidden);
  fill(o.w3, s.out * s.hidden, s.hidden);
  return p;
}

double MlpLossAndGrad(const MlpShape& s, std::span<const float> params,
                      const LabelledData& task, std::span<const int64_t> rows,
                      std::vector<float>* grads) {
  if (task.dim != s.in || task.classes != s.out) throw std::invalid_argument("MlpLossAndGrad: task shape");
  if (static_cast<int64_t>(params.size()) != s.NumParams()) throw std::invalid_argument("MlpLossAndGrad: params");
  const Offsets o = Layout(s);
  const float* p = params.data();
  std::vector<double> g;  // fp64 gradient accumulator (NumParams,)
  if (grads != nullptr) g.assign(params.size(), 0.0);
  std::vector<double> x(s.in), h1(s.hidden), h2(s.hidden), z(s.out);
  std::vector<double> dz(s.out), dh2(s.hidden), dh1(s.hidden);
  double loss = 0.0;
  for (const int64_t row : rows) {
    const int64_t r = row % task.n;
    for (int64_t d = 0; d < s.in; ++d) x[d] = task.x[r * s.in + d];
    Affine(p + o.w1, p + o.b1, x.data(), s.hidden, s.in, h1.data());
    for (auto& v : h1) v = std::max(v, 0.0);
    Affine(p + o.w2, p + o.b2, h1.data(), s.hidden, s.hidden, h2.data());
    for (auto& v : h2) v = std::max(v, 0.0);
    Affine(p + o.w3, p + o.b3, h2.data(), s.out, s.hidden, z.data());
    const double zmax = *std::max_element(z.begin(), z.end());
    double sum = 0.0;
    for (const double v : z) sum += std::exp(v - zmax);
    const double lse = zmax + std::log(sum);
    const int label = task.y[r];
    loss += lse - z[label];
    if (grads == nullptr) continue;
    // Backward, one example: dz = softmax(z) - onehot(label).
    for (int64_t c = 0; c < s.out; ++c) dz[c] = std::exp(z[c] - lse) - (c == label ? 1.0 : 0.0);
    std::fill(dh2.begin(), dh2.end(), 0.0);
    for (int64_t c = 0; c < s.out; ++c) {
      g[o.b3 + c] += dz[c];
      for (int64_t j = 0; j < s.hidden; ++j) {
        g[o.w3 + c * s.hidden + j] += dz[c] * h2[j];
        dh2[j] += dz[c] * p[o.w3 + c * s.hidden + j];
      }
    }
    for (int64_t j = 0; j < s.hidden; ++j) if (h2[j] <= 0.0) dh2[j] = 0.0;
    std::fill(dh1.begin(), dh1.end(), 0.0);
    for (int64_t j = 0; j < s.hidden; ++j) {
      if (dh2[j] == 0.0) continue;
      g[o.b2 + j] += dh2[j];
      double* gw = &g[o.w2 + j * s.hidden];
      const float* w = p + o.w2 + j * s.hidden;
      for (int64_t i = 0; i < s.hidden; ++i) {
        gw[i] += dh2[j] * h1[i];
        dh1[i] += dh2[j] * w[i];
      }
    }
    for (int64_t i = 0; i < s.hidden; ++i) {
      if (h1[i] <= 0.0) continue;
      g[o.b1 + i] += dh1[i];
      double* gw = &g[o.w1 + i * s.in];
      for (int64_t d = 0; d < s.in; ++d) gw[d] += dh1[i] * x[d];
    }
  }
  const double inv_b = 1.0 / double(rows.size());
  if (grads != nullptr) {
    grads->resize(params.size());
    for (size_t i = 0; i < g.size(); ++i) (*grads)[i] = static_cast<float>(g[i] * inv_b);
  }
  return loss * inv_b;
}

TrainResult TrainMlp(const MlpShape& s, const LabelledData& train,
                     const LabelledData& eval, OptimizerKind kind, const TrainConfig& cfg) {
  TrainResult res;
  res.params = InitMlp(s, cfg.init_seed);
  const int64_t n = s.NumParams();
  ResetStateAllocationPeak();
  const int64_t base = StateAllocations().current;
  std::vector<float> grads;
  std::vector<int64_t> rows(cfg.batch);
  auto run = [&](auto& opt) {
    for (int t = 0; t < cfg.steps; ++t) {
      std::iota(rows.begin(), rows.end(), int64_t(t) * cfg.batch);
      res.train_loss.push_back(MlpLossAndGrad(s, res.params, train, rows, &grads));
      opt.Step(res.params, grads);
    }
    res.state_bytes = opt.StateBytes();
    res.state_peak_bytes = StateAllocations().peak - base;
    const auto m = opt.m();  // a span (fp32) or a dequantized copy (COAT): bind once
    const auto v = opt.v();
    res.m.assign(m.begin(), m.end());
    res.v.assign(v.begin(), v.end());
  };
  if (kind == OptimizerKind::kFp32AdamW) {
    Fp32AdamW opt(n, cfg.adamw);
    run(opt);
  } else {
    CoatAdamW opt(n, cfg.adamw, cfg.dre);
    run(opt);
  }
  std::vector<int64_t> all(eval.n);
  std::iota(all.begin(), all.end(), 0);
  res.eval_loss = MlpLossAndGrad(s, res.params, eval, all, nullptr);
  return res;
}

}  // namespace cb::ref::coat
