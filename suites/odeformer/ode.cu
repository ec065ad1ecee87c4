// File: suites/odeformer/ode.cu
// -----------------------------------------------------------------------------
// CUDA path of the neural-ODE transformer (ode_cuda.h), fp64 throughout.
// Thread mappings (one sequence of n tokens; d = D / H):
//   AffineKernel        one thread per row r: w[r] = base + fw[r, :] . h, b[r] = fb[r, :] . h
//   LayerNormKernel     one thread per token: mean, biased variance, xhat, gamma xhat + beta
//   LinearKernel        one thread per (token, output): b + W x
//   AttentionKernel     one thread per (head, query): causal scores, softmax, P V
//   GeluKernel          one thread per value (tanh approximation)
//   EulerKernel         one thread per value: x += dt (attn + mlp)
//   Jacobian of row j (reference/odeformer/jacobian.h):
//     WkqKernel         (head, b):      W_k^hT q_j
//     SKernel           (head, e, e'):  sum_u p_ju (v_u - o_j)_e k_u,e'
//     CKernel           (head, e, b):   S W_q^h   (the k = j query term)
//     AttnMKernel       (k, a, c):      sum_h W_o^h G^h_k   (0 for k > j)
//     MlpMKernel        (a, c):         W_p diag(gelu'(u_j)) W_fc
//     LnJacobianKernel  (k, a, b):      [+=] M_k P_k with the LayerNorm Jacobian P_k
//   QrStepKernel        one block per token, one thread per column: M = Q + dt J Q
//                       in shared memory, Householder column by column (thread 0
//                       forms each reflector, every thread reflects its column),
//                       lambda = ln|diag R|, then Q rebuilt from the reflectors.
//
// Napkin math: at d = 32, n = 64 a step's Jacobians are n D^2 (H d + D) ~ 8 M
// multiply-adds and the QRs n D^3 ~ 2 M: far below any GPU's capacity; the
// path exists so the analysis scales to long inputs and to check agreement.
//
// NEVER RUN ON A GPU yet (written where there was no device).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/cuda/check.h"
#include "harness/cuda/device_buffer.cuh"
#include "suites/odeformer/ode_cuda.h"

namespace cb::odeformer::cuda {
namespace {

namespace h = cb::harness;

constexpr int kThreads = 256;
constexpr int kMaxQrDim = 64;  // M and V of one token in shared memory: 2 D^2 doubles

int Blocks(long long n) { return int((n + kThreads - 1) / kThreads); }

__device__ double GeluTanh(double u) {
  const double c = 0.7978845608028654;  // sqrt(2 / pi)
  return 0.5 * u * (1.0 + tanh(c * (u + 0.044715 * u * u * u)));
}

__device__ double GeluTanhGrad(double u) {
  const double c = 0.7978845608028654;
  const double th = tanh(c * (u + 0.044715 * u * u * u));
  return 0.5 * (1.0 + th) + 0.5 * u * (1.0 - th * th) * c * (1.0 + 3.0 * 0.044715 * u * u);
}

__global__ void AffineKernel(const double* __restrict__ fw, const double* __restrict__ fw_b,
                             const double* __restrict__ fb, const double* __restrict__ hv, int rows,
                             int bias_rows, int T, double* __restrict__ w, double* __restrict__ b) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    double a = fw_b ? fw_b[r] : 1.0;
    for (int k = 0; k < T; ++k) a += fw[size_t(r) * T + k] * hv[k];
    w[r] = a;
  }
  if (r < bias_rows) {
    double a = 0.0;
    for (int k = 0; k < T; ++k) a += fb[size_t(r) * T + k] * hv[k];
    b[r] = a;
  }
}

__global__ void LayerNormKernel(const double* __restrict__ x, int n, int D, const double* __restrict__ gamma,
                                const double* __restrict__ beta, double eps, double* __restrict__ y,
                                double* __restrict__ xhat, double* __restrict__ rstd) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= n) return;
  const double* xt = x + size_t(t) * D;
  double mean = 0;
  for (int i = 0; i < D; ++i) mean += xt[i];
  mean /= D;
  double var = 0;
  for (int i = 0; i < D; ++i) var += (xt[i] - mean) * (xt[i] - mean);
  var /= D;
  const double rs = 1.0 / sqrt(var + eps);
  for (int i = 0; i < D; ++i) {
    const double xh = (xt[i] - mean) * rs;
    xhat[size_t(t) * D + i] = xh;
    y[size_t(t) * D + i] = gamma[i] * xh + beta[i];
  }
  rstd[t] = rs;
}

__global__ void LinearKernel(const double* __restrict__ x, int n, int in, const double* __restrict__ w,
                             const double* __restrict__ b, int out, double* __restrict__ y) {
  const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= (long long)n * out) return;
  const int t = int(idx / out), o = int(idx % out);
  double s = b[o];
  for (int i = 0; i < in; ++i) s += w[size_t(o) * in + i] * x[size_t(t) * in + i];
  y[idx] = s;
}

// probs [H, n, n] (row t: keys u <= t), o [n, D].
__global__ void AttentionKernel(const double* __restrict__ qkv, int n, int D, int H, double* __restrict__ probs,
                                double* __restrict__ o) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= H * n) return;
  const int hh = idx / n, t = idx % n, d = D / H;
  const double scale = 1.0 / sqrt(double(d));
  const double* q = qkv + size_t(t) * 3 * D + hh * d;
  double* p = probs + (size_t(hh) * n + t) * n;
  double mx = -INFINITY;
  for (int u = 0; u <= t; ++u) {
    const double* k = qkv + size_t(u) * 3 * D + D + hh * d;
    double s = 0;
    for (int e = 0; e < d; ++e) s += q[e] * k[e];
    p[u] = s * scale;
    mx = fmax(mx, p[u]);
  }
  double z = 0;
  for (int u = 0; u <= t; ++u) z += (p[u] = exp(p[u] - mx));
  for (int u = 0; u <= t; ++u) p[u] /= z;
  for (int u = t + 1; u < n; ++u) p[u] = 0.0;
  double* ot = o + size_t(t) * D + hh * d;
  for (int e = 0; e < d; ++e) {
    double s = 0;
    for (int u = 0; u <= t; ++u) s += p[u] * qkv[size_t(u) * 3 * D + 2 * D + hh * d + e];
    ot[e] = s;
  }
}

__global__ void GeluKernel(const double* __restrict__ u, long long count, double* __restrict__ g) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) g[i] = GeluTanh(u[i]);
}

__global__ void EulerKernel(double* __restrict__ x, const double* __restrict__ attn, const double* __restrict__ mlp,
                            double dt, long long count) {
  const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) x[i] += dt * (attn[i] + mlp[i]);
}

__global__ void WkqKernel(const double* __restrict__ w_qkv, const double* __restrict__ qkv, int D, int H, int j,
                          double* __restrict__ wkq) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= H * D) return;
  const int hh = idx / D, b = idx % D, d = D / H;
  double s = 0;
  for (int e = 0; e < d; ++e) s += w_qkv[(size_t(D) + hh * d + e) * D + b] * qkv[size_t(j) * 3 * D + hh * d + e];
  wkq[idx] = s;
}

__global__ void SKernel(const double* __restrict__ qkv, const double* __restrict__ probs, const double* __restrict__ o,
                        int n, int D, int H, int j, double* __restrict__ S) {
  const int d = D / H;
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= H * d * d) return;
  const int hh = idx / (d * d), e = (idx / d) % d, e2 = idx % d;
  const double* p = probs + (size_t(hh) * n + j) * n;
  const double oj = o[size_t(j) * D + hh * d + e];
  double s = 0;
  for (int u = 0; u <= j; ++u)
    s += p[u] * (qkv[size_t(u) * 3 * D + 2 * D + hh * d + e] - oj) * qkv[size_t(u) * 3 * D + D + hh * d + e2];
  S[idx] = s;
}

__global__ void CKernel(const double* __restrict__ S, const double* __restrict__ w_qkv, int D, int H,
                        double* __restrict__ C) {
  const int d = D / H;
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= H * d * D) return;
  const int hh = idx / (d * D), e = (idx / D) % d, b = idx % D;
  double s = 0;
  for (int e2 = 0; e2 < d; ++e2) s += S[(size_t(hh) * d + e) * d + e2] * w_qkv[(size_t(hh) * d + e2) * D + b];
  C[idx] = s;
}

// M [n, D, D]: M_k = sum_h W_o^h G^h_k for k <= j, 0 after.
__global__ void AttnMKernel(const double* __restrict__ qkv, const double* __restrict__ probs,
                            const double* __restrict__ o, const double* __restrict__ w_qkv,
                            const double* __restrict__ w_o, const double* __restrict__ wkq,
                            const double* __restrict__ C, int n, int D, int H, int j, double* __restrict__ M) {
  const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= (long long)n * D * D) return;
  const int k = int(idx / (D * D)), a = int((idx / D) % D), c = int(idx % D), d = D / H;
  if (k > j) {
    M[idx] = 0.0;
    return;
  }
  const double s = 1.0 / sqrt(double(d));
  double m = 0;
  for (int hh = 0; hh < H; ++hh) {
    const double pk = probs[(size_t(hh) * n + j) * n + k];
    for (int e = 0; e < d; ++e) {
      const double vk = qkv[size_t(k) * 3 * D + 2 * D + hh * d + e];
      double g = pk * w_qkv[(size_t(2 * D) + hh * d + e) * D + c] +
                 s * pk * (vk - o[size_t(j) * D + hh * d + e]) * wkq[size_t(hh) * D + c];
      if (k == j) g += s * C[(size_t(hh) * d + e) * D + c];
      m += w_o[size_t(a) * D + hh * d + e] * g;
    }
  }
  M[idx] = m;
}

__global__ void MlpMKernel(const double* __restrict__ w_p, const double* __restrict__ w_fc,
                           const double* __restrict__ u, int D, int I, int j, double* __restrict__ M) {
  const int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= D * D) return;
  const int a = idx / D, c = idx % D;
  double s = 0;
  for (int i = 0; i < I; ++i) s += w_p[size_t(a) * I + i] * GeluTanhGrad(u[size_t(j) * I + i]) * w_fc[size_t(i) * D + c];
  M[idx] = s;
}

// J[k0 + kk] (=|+=) M[kk] P_{k0 + kk} for kk < K.
__global__ void LnJacobianKernel(const double* __restrict__ M, int K, int k0, const double* __restrict__ gamma,
                                 const double* __restrict__ xhat, const double* __restrict__ rstd, int D,
                                 bool accumulate, double* __restrict__ J) {
  const long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= (long long)K * D * D) return;
  const int kk = int(idx / (D * D)), a = int((idx / D) % D), b = int(idx % D), k = k0 + kk;
  const double* xh = xhat + size_t(k) * D;
  double s = 0;
  for (int c = 0; c < D; ++c)
    s += M[(size_t(kk) * D + a) * D + c] * gamma[c] * rstd[k] * ((c == b ? 1.0 : 0.0) - 1.0 / D - xh[c] * xh[b] / D);
  double* out = J + (size_t(k) * D + a) * D + b;
  *out = accumulate ? *out + s : s;
}

// One block per token k, blockDim.x = D. Q, J, V [n, D, D]; lambda [n, D].
__global__ void QrStepKernel(const double* __restrict__ J, double* __restrict__ Q, double dt, int D,
                             double* __restrict__ lambda) {
  extern __shared__ double shared[];
  double* M = shared;            // [D, D]
  double* V = shared + D * D;    // [D, D]: row c = reflector c (entries r >= c)
  __shared__ int reflect[kMaxQrDim];
  const int k = blockIdx.x, col = threadIdx.x;
  const double* Jk = J + size_t(k) * D * D;
  double* Qk = Q + size_t(k) * D * D;

  for (int a = 0; a < D; ++a) {  // M = Q + dt J Q, column `col`
    double s = 0;
    for (int c = 0; c < D; ++c) s += Jk[a * D + c] * Qk[c * D + col];
    M[a * D + col] = Qk[a * D + col] + dt * s;
  }
  __syncthreads();

  for (int c = 0; c < D; ++c) {
    if (col == 0) {
      const double x0 = M[c * D + c];
      double below = 0;
      for (int r = c + 1; r < D; ++r) below += M[r * D + c] * M[r * D + c];
      for (int r = 0; r < D; ++r) V[c * D + r] = 0.0;
      reflect[c] = below != 0.0;  // LAPACK's dlarfg: no reflection when the column below is zero
      if (reflect[c]) {
        const double norm = sqrt(x0 * x0 + below);
        const double alpha = x0 >= 0 ? -norm : norm;
        double vn = 0;
        for (int r = c; r < D; ++r) {
          const double v = M[r * D + c] - (r == c ? alpha : 0.0);
          V[c * D + r] = v;
          vn += v * v;
        }
        vn = sqrt(vn);
        for (int r = c; r < D; ++r) V[c * D + r] /= vn;
      }
    }
    __syncthreads();
    if (reflect[c] && col >= c) {
      double dot = 0;
      for (int r = c; r < D; ++r) dot += V[c * D + r] * M[r * D + col];
      for (int r = c; r < D; ++r) M[r * D + col] -= 2.0 * V[c * D + r] * dot;
    }
    __syncthreads();
  }
  lambda[size_t(k) * D + col] = log(fabs(M[col * D + col]));  // diag R
  __syncthreads();

  // Q = H_0 .. H_{D-1} I, column `col`.
  for (int a = 0; a < D; ++a) M[a * D + col] = a == col ? 1.0 : 0.0;
  for (int c = D - 1; c >= 0; --c) {
    if (!reflect[c]) continue;
    double dot = 0;
    for (int r = c; r < D; ++r) dot += V[c * D + r] * M[r * D + col];
    for (int r = c; r < D; ++r) M[r * D + col] -= 2.0 * V[c * D + r] * dot;
  }
  for (int a = 0; a < D; ++a) Qk[a * D + col] = M[a * D + col];
}

// ---------------------------------------------------------------------------
// Host side

// The six modules' tables on the device and their weights at the current t.
struct DeviceModel {
  Shape s;
  std::vector<h::DeviceBuffer<double>> fw, fw_b, fb, w, b;
  std::vector<int> rows, bias_rows;
  h::DeviceBuffer<double> hv;

  DeviceModel(const Shape& shape, const ModuleTables (&m)[kModules]) : s(shape), hv(size_t(kModules) * shape.T) {
    for (int i = 0; i < kModules; ++i) {
      rows.push_back(m[i].rows);
      bias_rows.push_back(m[i].bias_rows);
      fw.emplace_back(std::span<const double>(m[i].fw, size_t(m[i].rows) * s.T));
      fw_b.push_back(m[i].fw_b ? h::DeviceBuffer<double>(std::span<const double>(m[i].fw_b, size_t(m[i].rows)))
                               : h::DeviceBuffer<double>());
      fb.emplace_back(std::span<const double>(m[i].fb, size_t(m[i].bias_rows) * s.T));
      w.emplace_back(size_t(m[i].rows));
      b.emplace_back(size_t(m[i].bias_rows));
    }
  }

  // W(t), b(t) of every module from the host's h [6 * T].
  void WeightsAt(const std::vector<double>& hvec) {
    if (hvec.size() != size_t(kModules) * s.T) throw std::invalid_argument("ode cuda: h must hold 6 * T values");
    hv.CopyFromHost(hvec);
    for (int i = 0; i < kModules; ++i) {
      const int n = std::max(rows[i], bias_rows[i]);
      AffineKernel<<<Blocks(n), kThreads>>>(fw[i].data(), fw_b[i].size() ? fw_b[i].data() : nullptr, fb[i].data(),
                                            hv.data() + size_t(i) * s.T, rows[i], bias_rows[i], s.T, w[i].data(),
                                            b[i].data());
      CB_CUDA_CHECK_LAUNCH();
    }
  }
};

// One block forward's activations.
struct Acts {
  h::DeviceBuffer<double> a, m, xhat_a, xhat_m, rstd_a, rstd_m, qkv, probs, o, attn, u, g, mlp;
  explicit Acts(const Shape& s)
      : a(size_t(s.n) * s.D), m(size_t(s.n) * s.D), xhat_a(size_t(s.n) * s.D), xhat_m(size_t(s.n) * s.D),
        rstd_a(size_t(s.n)), rstd_m(size_t(s.n)), qkv(size_t(s.n) * 3 * s.D), probs(size_t(s.H) * s.n * s.n),
        o(size_t(s.n) * s.D), attn(size_t(s.n) * s.D), u(size_t(s.n) * s.I), g(size_t(s.n) * s.I),
        mlp(size_t(s.n) * s.D) {}
};

void BlockForward(const DeviceModel& dm, const double* x, Acts& A) {
  const Shape& s = dm.s;
  LayerNormKernel<<<Blocks(s.n), kThreads>>>(x, s.n, s.D, dm.w[0].data(), dm.b[0].data(), s.eps, A.a.data(),
                                             A.xhat_a.data(), A.rstd_a.data());
  CB_CUDA_CHECK_LAUNCH();
  LayerNormKernel<<<Blocks(s.n), kThreads>>>(x, s.n, s.D, dm.w[3].data(), dm.b[3].data(), s.eps, A.m.data(),
                                             A.xhat_m.data(), A.rstd_m.data());
  CB_CUDA_CHECK_LAUNCH();
  LinearKernel<<<Blocks((long long)s.n * 3 * s.D), kThreads>>>(A.a.data(), s.n, s.D, dm.w[1].data(), dm.b[1].data(),
                                                                3 * s.D, A.qkv.data());
  CB_CUDA_CHECK_LAUNCH();
  AttentionKernel<<<Blocks(s.H * s.n), kThreads>>>(A.qkv.data(), s.n, s.D, s.H, A.probs.data(), A.o.data());
  CB_CUDA_CHECK_LAUNCH();
  LinearKernel<<<Blocks((long long)s.n * s.D), kThreads>>>(A.o.data(), s.n, s.D, dm.w[2].data(), dm.b[2].data(), s.D,
                                                            A.attn.data());
  CB_CUDA_CHECK_LAUNCH();
  LinearKernel<<<Blocks((long long)s.n * s.I), kThreads>>>(A.m.data(), s.n, s.D, dm.w[4].data(), dm.b[4].data(), s.I,
                                                            A.u.data());
  CB_CUDA_CHECK_LAUNCH();
  GeluKernel<<<Blocks((long long)s.n * s.I), kThreads>>>(A.u.data(), (long long)s.n * s.I, A.g.data());
  CB_CUDA_CHECK_LAUNCH();
  LinearKernel<<<Blocks((long long)s.n * s.D), kThreads>>>(A.g.data(), s.n, s.I, dm.w[5].data(), dm.b[5].data(), s.D,
                                                            A.mlp.data());
  CB_CUDA_CHECK_LAUNCH();
}

void CheckShape(const Shape& s) {
  if (s.n < 1 || s.D < 2 || s.H < 1 || s.D % s.H != 0 || s.I < 1 || s.T < 1)
    throw std::invalid_argument("ode cuda: bad shape");
}

}  // namespace

void IntegrateForward(const Shape& s, const ModuleTables (&modules)[kModules],
                      const std::vector<std::vector<double>>& hyper, double dt, std::vector<double>& x,
                      std::vector<std::vector<double>>* trajectory) {
  CheckShape(s);
  if (x.size() != size_t(s.n) * s.D) throw std::invalid_argument("ode cuda: x must be [n, D]");
  DeviceModel dm(s, modules);
  Acts A(s);
  h::DeviceBuffer<double> dx{std::span<const double>(x)};
  for (const std::vector<double>& hv : hyper) {
    dm.WeightsAt(hv);
    BlockForward(dm, dx.data(), A);
    EulerKernel<<<Blocks((long long)x.size()), kThreads>>>(dx.data(), A.attn.data(), A.mlp.data(), dt,
                                                           (long long)x.size());
    CB_CUDA_CHECK_LAUNCH();
    if (trajectory) trajectory->push_back(dx.ToHost());
  }
  dx.CopyToHost(x);
}

void Lyapunov(const Shape& s, const ModuleTables (&modules)[kModules],
              const std::vector<std::vector<double>>& hyper, const std::vector<std::vector<double>>& states,
              double dt, int j, std::vector<double>& lambda) {
  CheckShape(s);
  if (s.D > kMaxQrDim) throw std::invalid_argument("ode cuda: Lyapunov QR supports D <= " + std::to_string(kMaxQrDim));
  if (j < 0 || j >= s.n) throw std::invalid_argument("ode cuda: output row out of range");
  if (hyper.size() != states.size()) throw std::invalid_argument("ode cuda: one state per step");
  const int steps = int(states.size()), n = s.n, D = s.D, H = s.H, d = D / H;
  DeviceModel dm(s, modules);
  Acts A(s);
  h::DeviceBuffer<double> dx(size_t(n) * D), wkq(size_t(H) * D), S(size_t(H) * d * d), C(size_t(H) * d * D),
      M(size_t(n) * D * D), Mm(size_t(D) * D), J(size_t(n) * D * D), lam(size_t(steps) * n * D);
  std::vector<double> identity(size_t(n) * D * D, 0.0);
  for (int k = 0; k < n; ++k)
    for (int i = 0; i < D; ++i) identity[(size_t(k) * D + i) * D + i] = 1.0;
  h::DeviceBuffer<double> Q{std::span<const double>(identity)};
  const size_t qr_shared = 2 * size_t(D) * D * sizeof(double);  // 64 KiB at D = 64: past the 48 KiB default
  CB_CUDA_CHECK(cudaFuncSetAttribute(QrStepKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(qr_shared)));
  for (int i = 0; i < steps; ++i) {
    if (states[i].size() != size_t(n) * D) throw std::invalid_argument("ode cuda: a state must be [n, D]");
    dm.WeightsAt(hyper[i]);
    dx.CopyFromHost(states[i]);
    BlockForward(dm, dx.data(), A);
    WkqKernel<<<Blocks(H * D), kThreads>>>(dm.w[1].data(), A.qkv.data(), D, H, j, wkq.data());
    CB_CUDA_CHECK_LAUNCH();
    SKernel<<<Blocks(H * d * d), kThreads>>>(A.qkv.data(), A.probs.data(), A.o.data(), n, D, H, j, S.data());
    CB_CUDA_CHECK_LAUNCH();
    CKernel<<<Blocks(H * d * D), kThreads>>>(S.data(), dm.w[1].data(), D, H, C.data());
    CB_CUDA_CHECK_LAUNCH();
    AttnMKernel<<<Blocks((long long)n * D * D), kThreads>>>(A.qkv.data(), A.probs.data(), A.o.data(), dm.w[1].data(),
                                                             dm.w[2].data(), wkq.data(), C.data(), n, D, H, j,
                                                             M.data());
    CB_CUDA_CHECK_LAUNCH();
    LnJacobianKernel<<<Blocks((long long)n * D * D), kThreads>>>(M.data(), n, 0, dm.w[0].data(), A.xhat_a.data(),
                                                                  A.rstd_a.data(), D, false, J.data());
    CB_CUDA_CHECK_LAUNCH();
    MlpMKernel<<<Blocks(D * D), kThreads>>>(dm.w[5].data(), dm.w[4].data(), A.u.data(), D, s.I, j, Mm.data());
    CB_CUDA_CHECK_LAUNCH();
    LnJacobianKernel<<<Blocks(D * D), kThreads>>>(Mm.data(), 1, j, dm.w[3].data(), A.xhat_m.data(), A.rstd_m.data(), D,
                                                  true, J.data());
    CB_CUDA_CHECK_LAUNCH();
    QrStepKernel<<<n, D, qr_shared>>>(J.data(), Q.data(), dt, D, lam.data() + size_t(i) * n * D);
    CB_CUDA_CHECK_LAUNCH();
  }
  lambda = lam.ToHost();
}

}  // namespace cb::odeformer::cuda
