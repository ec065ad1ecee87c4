// File: reference/unip/nmi.h
// -----------------------------------------------------------------------------
// Normalized mutual information of attention maps, the statistic UNIP (Tao
// et al., ICLR 2025) uses to call a layer's attention local, hybrid or
// global, as naver-ai/cl-vs-mim computes it (self_attention_analysis.ipynb at
// eafe516, `calculate_nmi` and the loop that calls it):
//
//   preprocess  A <- A[1:, 1:] (drop the CLS query and key), A <- A + 1e-8,
//               rows renormalised to sum 1
//   p(q) = 1/Q (softmax of ones), p(k) = Σ_q A_qk p(q)
//   MI  = Σ_qk A_qk p(q) ln(A_qk / p(k))
//   NMI = MI / sqrt(H(q) H(k)),  H(q) = ln Q,  H(k) = -Σ_k p(k) ln p(k)
//
// natural logs; one value per (image, head); the notebook averages over the
// batch, then over heads (and, by an `if idx > -1: break`, uses only the
// first batch of its loader). Here every function is fp64; the notebook runs
// in fp32 (`.cpu().float()`), a difference of ~1e-7 relative.
//
// Without the 1e-8 (`eps` = 0), 0 ln 0 counts 0, and the oracles are exact:
// A = I gives 1; identical rows give 0; circular uniform windows of width w
// give ln(Q/w) / ln Q. With it, those move by O(1e-8 Q ln(1/1e-8)): the
// claims measure that apart.
//
// NMI-HAD (UNIP's teacher-layer choice): l* = argmin_l |NMI_l - s| over the
// layer profile, s = 0.09 by default (ties: the first layer, numpy's argmin).
#ifndef CB_REFERENCE_UNIP_NMI_H_
#define CB_REFERENCE_UNIP_NMI_H_

#include <span>
#include <vector>

namespace cb::ref::unip {

inline constexpr double kNmiEps = 1e-8;  // cl-vs-mim's additive epsilon
inline constexpr double kNmiHadTarget = 0.09;

// NMI of one attention map a [q, k] (rows are distributions over keys) as
// calculate_nmi computes it, with `eps` added and rows renormalised first.
// No CLS handling: the caller passes the map it means.
// REQUIRES: q >= 2, k >= 1, every entry finite and >= 0, every row with a
// positive sum after adding eps; throws std::invalid_argument otherwise.
double Nmi(std::span<const double> a, int q, int k, double eps = kNmiEps);

// The notebook's per-layer value: a [images, heads, n, n] with the CLS token
// at index 0 (drop_cls) or none; the mean NMI over images and heads.
double LayerNmi(std::span<const double> a, int images, int heads, int n, bool drop_cls = true,
                double eps = kNmiEps);

// NMI-HAD: the index of the layer whose NMI is closest to `target`.
// REQUIRES: !profile.empty(), no NaN.
int NmiHadLayer(std::span<const double> profile, double target = kNmiHadTarget);

// The oracle map [n, n] of circular uniform windows: query i attends 1/w to
// keys i .. i+w-1 (mod n), so p(k) stays uniform and NMI = ln(n/w) / ln n
// (w = 1: the identity, NMI 1; w = n: uniform rows, NMI 0).
// REQUIRES: 1 <= w <= n; throws std::invalid_argument otherwise.
std::vector<double> CircularWindowMap(int n, int w);

// Our names for the three kinds of layer, from the range of targets the
// paper calls stable for NMI-HAD, s in [0.06, 0.12] (NOT the thresholds of
// the paper's Fig. 4, which we could not retrieve): global below 0.06,
// hybrid in [0.06, 0.12], local above.
const char* NmiKind(double nmi);

}  // namespace cb::ref::unip

#endif  // CB_REFERENCE_UNIP_NMI_H_
