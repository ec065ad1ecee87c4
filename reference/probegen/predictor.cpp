// File: reference/probegen/predictor.cpp
// -----------------------------------------------------------------------------
// ProbeGen's predictor MLP (the authors' points_mixer, ProbeGen.py@4872aa7):
// torch.nn.Linear initialisation, forward with a ReLU after every layer but
// the last, and the backward; see predictor.h.
#include "reference/probegen/predictor.h"

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "harness/random.h"

namespace cb::ref::probegen {

Mlp MakePredictor(int in, int hidden, int out, int n_layers, uint64_t seed) {
  if (in < 1 || hidden < 1 || out < 1 || n_layers < 2) {
    throw std::invalid_argument("MakePredictor: need in, hidden, out >= 1 and n_layers >= 2");
  }
  Mlp m;
  m.dims.push_back(in);
  for (int l = 0; l < n_layers - 1; ++l) m.dims.push_back(hidden);
  m.dims.push_back(out);
  // nn.Linear's reset_parameters: weight and bias U(-1/sqrt(in), 1/sqrt(in)).
  harness::Rng rng(seed, 13);
  for (int l = 0; l < n_layers; ++l) {
    const int fan_in = m.dims[l], fan_out = m.dims[l + 1];
    const double bound = 1.0 / std::sqrt(double(fan_in));
    auto draw = [&] { return -bound + 2.0 * bound * rng.Uniform(); };
    std::vector<double> w(int64_t(fan_out) * fan_in), b(fan_out);
    for (double& v : w) v = draw();
    for (double& v : b) v = draw();
    m.w.push_back(std::move(w));
    m.b.push_back(std::move(b));
  }
  return m;
}

void MlpForward(const Mlp& m, int batch, const double* x, double* y, MlpTrace* trace) {
  const int layers = m.Layers();
  if (layers < 1 || int(m.dims.size()) != layers + 1 || int(m.b.size()) != layers) {
    throw std::invalid_argument("MlpForward: dims, w and b disagree on the number of layers");
  }
  if (batch < 1) throw std::invalid_argument("MlpForward: batch must be >= 1");
  std::vector<double> cur(x, x + int64_t(batch) * m.dims[0]), next;  // (batch, dims[l])
  if (trace != nullptr) trace->act.assign(1, cur);
  for (int l = 0; l < layers; ++l) {
    const int din = m.dims[l], dout = m.dims[l + 1];
    const bool relu = l + 1 < layers;
    next.assign(int64_t(batch) * dout, 0.0);  // (batch, dout)
    for (int r = 0; r < batch; ++r) {
      const double* xr = cur.data() + int64_t(r) * din;
      for (int o = 0; o < dout; ++o) {
        const double* wo = m.w[l].data() + int64_t(o) * din;
        double acc = m.b[l][o];
        for (int i = 0; i < din; ++i) acc += wo[i] * xr[i];
        next[int64_t(r) * dout + o] = (relu && acc < 0.0) ? 0.0 : acc;
      }
    }
    cur.swap(next);
    if (trace != nullptr) trace->act.push_back(cur);
  }
  for (size_t i = 0; i < cur.size(); ++i) y[i] = cur[i];
}

void MlpBackward(const Mlp& m, int batch, const MlpTrace& trace, const double* dy, Mlp* grad,
                 double* dx) {
  const int layers = m.Layers();
  if (int(trace.act.size()) != layers + 1 || int(m.dims.size()) != layers + 1) {
    throw std::invalid_argument("MlpBackward: the trace is not from a forward of this MLP");
  }
  if (batch < 1) throw std::invalid_argument("MlpBackward: batch must be >= 1");
  grad->dims = m.dims;
  grad->w.resize(layers);
  grad->b.resize(layers);
  const int out = m.dims[layers];
  std::vector<double> d(dy, dy + int64_t(batch) * out), d_in;  // d loss / d act[l+1]
  for (int l = layers; l-- > 0;) {
    const int din = m.dims[l], dout = m.dims[l + 1];
    const std::vector<double>& xin = trace.act[l];    // (batch, din)
    const std::vector<double>& yout = trace.act[l + 1];  // (batch, dout), after ReLU
    if (int64_t(xin.size()) != int64_t(batch) * din ||
        int64_t(yout.size()) != int64_t(batch) * dout) {
      throw std::invalid_argument("MlpBackward: trace activation sizes differ from batch x dims");
    }
    // Through the ReLU: it passed the value iff its output is > 0 (a zero
    // pre-activation gets gradient 0, as torch's threshold_backward does).
    if (l + 1 < layers) {
      for (size_t i = 0; i < d.size(); ++i) {
        if (!(yout[i] > 0.0)) d[i] = 0.0;
      }
    }
    std::vector<double>& gw = grad->w[l];  // (dout, din)
    std::vector<double>& gb = grad->b[l];  // (dout)
    gw.assign(int64_t(dout) * din, 0.0);
    gb.assign(dout, 0.0);
    for (int r = 0; r < batch; ++r) {
      const double* xr = xin.data() + int64_t(r) * din;
      for (int o = 0; o < dout; ++o) {
        const double g = d[int64_t(r) * dout + o];
        gb[o] += g;
        double* gwo = gw.data() + int64_t(o) * din;
        for (int i = 0; i < din; ++i) gwo[i] += g * xr[i];
      }
    }
    // d loss / d act[l] = d W (batch, din); skipped for the input unless asked.
    if (l == 0 && dx == nullptr) break;
    d_in.assign(int64_t(batch) * din, 0.0);
    for (int r = 0; r < batch; ++r) {
      for (int o = 0; o < dout; ++o) {
        const double g = d[int64_t(r) * dout + o];
        const double* wo = m.w[l].data() + int64_t(o) * din;
        for (int i = 0; i < din; ++i) d_in[int64_t(r) * din + i] += g * wo[i];
      }
    }
    d.swap(d_in);
  }
  if (dx != nullptr) {
    for (size_t i = 0; i < d.size(); ++i) dx[i] = d[i];
  }
}

int64_t MlpMacs(const Mlp& m, int batch) {
  int64_t macs = 0;
  for (size_t l = 0; l + 1 < m.dims.size(); ++l) macs += int64_t(m.dims[l]) * m.dims[l + 1];
  return macs * batch;
}

int64_t MlpParamCount(const Mlp& m) {
  int64_t count = 0;
  for (size_t l = 0; l + 1 < m.dims.size(); ++l) {
    count += int64_t(m.dims[l]) * m.dims[l + 1] + m.dims[l + 1];
  }
  return count;
}

}  // namespace cb::ref::probegen
