// File: reference/m3/gma.h
// -----------------------------------------------------------------------------
// Gaussian memory attention (M3 §3.2): a rendered low-dimensional query per
// pixel reads the principal-scene-component memory.
//
//   code form (xy_utils/memory.py::emb_to_memory + index_to_raw,
//   MaureenZOU/m3-spatial@03fdfd6; τ = softmax_temp = 0.05 in
//   arguments/__init__.py):
//     e = Q W_m                                 (P, D)
//     ê = e / (|e| + 1e-6),  m̂ = M / (|M| + 1e-6)   (row norms)
//     A = softmax(ê m̂ᵀ / τ)                     (P, K), over the memory rows
//     R = A M                                   (P, D)
//   paper form (eq. of §3.2): R = softmax(Q W_m Mᵀ) M, no norms, no τ.
//   half: the code casts Q, W_m and M to fp16 in index_to_raw; GmaHalf()
//   rounds every stored intermediate to binary16 and accumulates sums in fp32,
//   as a CUDA fp16 GEMM and softmax do (the emulation's contract, not torch's
//   exact kernel order).
//
// Shapes: Q (P, c), W_m (c, D), M (K, D), all row-major; c, D, K >= 1.
// GmaForward and GmaHalf take a null W_m as the identity (c == D): the
// features' own directions read the memory (`eval m3`).
#ifndef CB_REFERENCE_M3_GMA_H_
#define CB_REFERENCE_M3_GMA_H_

#include <cstdint>
#include <vector>

namespace cb::ref::m3 {

inline constexpr double kGmaTemperature = 0.05;  // softmax_temp
inline constexpr double kGmaNormEps = 1e-6;      // emb_to_memory's + 1e-6

struct GmaShape {
  int64_t pixels = 0;  // P
  int query = 0;       // c
  int dim = 0;         // D
  int memory = 0;      // K
};

// What the backward pass needs from the forward.
struct GmaCache {
  std::vector<double> e;     // (P, D) Q W_m
  std::vector<double> enorm; // (P) |e|
  std::vector<double> mhat;  // (K, D)
  std::vector<double> attn;  // (P, K)
};

// out (P, D). cache may be null. REQUIRES (else std::invalid_argument):
// shape entries >= 1 (pixels >= 0), tau > 0.
void GmaForward(const GmaShape& s, const double* q, const double* wm, const double* mem, double tau, double* out,
                GmaCache* cache = nullptr);

// The paper's equation: softmax(Q W_m Mᵀ) M.
void GmaPaper(const GmaShape& s, const double* q, const double* wm, const double* mem, double* out);

// The code form in emulated fp16 (see above); out holds the binary16 values.
void GmaHalf(const GmaShape& s, const double* q, const double* wm, const double* mem, double tau, double* out);

// Given dL/dR (P, D), accumulates dL/dQ (P, c) and dL/dW_m (c, D) (either may
// be null) through the code form; M is fixed (PSC is not learned).
void GmaBackward(const GmaShape& s, const double* q, const double* wm, const double* mem, double tau,
                 const GmaCache& cache, const double* dout, double* dq, double* dwm);

// The bound on |R - M_k| as τ -> 0 when every pixel's query direction has a
// unique nearest memory row k: sum_{j != k} exp((cos_j - cos_k) / τ) |M_j - M_k|
// per pixel (the softmax mass off k times its distance), written (P).
void GmaArgmaxBound(const GmaShape& s, const double* q, const double* wm, const double* mem, double tau,
                    double* bound, int* argmax);

}  // namespace cb::ref::m3

#endif  // CB_REFERENCE_M3_GMA_H_
