// File: reference/pf/pf.h
// -----------------------------------------------------------------------------
// fp64 CPU reference of Permute-and-Flip (PF) decoding and its watermark
// (Zhao, Li, Wang, "Permute-and-Flip: An optimally stable and watermarkable
// decoder", ICLR 2025; brief decoding-radar-mtad-pf.md §3), with the
// baselines it is compared with: softmax sampling (Gumbel-max), greedy,
// top-p, Aaronson's Gumbel watermark and KGW (Kirchenbauer et al.).
//
// Notation: u (V) logits, T > 0 temperature, a = u / T, u* = max u,
// q_j = exp((u_j - u*) / T) in (0, 1].
//
//   PF loop (Alg. 1)   shuffle 0..V-1; for y in order: accept w.p. q_y
//   PF noise form      y = argmax_i (a_i - log r_i),      r_i ~ U(0,1) iid
//                      (-log r ~ Exp(1): report-noisy-max, exponential noise)
//   softmax            y = argmax_i (a_i - log(-log r_i)) (Gumbel-max)
//   exact PF           P(i) = q_i (1/V) sum_{k=0}^{V-1} e_k({1-q_j}_{j!=i}) / C(V-1, k)
//                      (e_k the elementary symmetric polynomial; O(V^3), V <= 64)
//   integral PF        P(i) = q_i * int_0^1 prod_{j!=i} (1 - q_j s) ds
//                      (the brief's int_{a_i}^inf e^{-(y-a_i)} prod (1-e^{-(y-a_j)})_+ dy
//                      after y = a* - log s; composite Gauss-Legendre, any V)
//
// Randomness: every uniform is keyed and counter-based (harness/philox.h):
//   r(key, stream, y) = UniformFromBits(PhiloxU64At(key, stream, y)) in (0, 1),
// never 0 or 1 (the upstream torch.rand can return 0: brief §3 pitfalls).
// Sampling step t uses stream = t; the watermarks use stream = a hash of the
// previous m tokens, so detection recomputes r_t(y_t) in O(1) per token and
// the CUDA path (suites/pf/pf.cu) draws exactly the same numbers.
//
// Watermarks (key = the secret):
//   PF      y_t = argmax_y (a(y) - log r_t(y));        score -log r_t(y_t)
//   Gumbel  y_t = argmax_y r_t(y)^{1/p(y)}, p = softmax(a) (= Gumbel-max with
//           the keyed r);                              score -log(1 - r_t(y_t))
//   KGW     green(y) iff r_t(y) < gamma; sample softmax(a + delta * green)
//           with unkeyed noise (stream kKgwSamplingStream + t);   z-test.
// Under the null (text independent of the key, distinct contexts) each PF /
// Gumbel score term is iid Exp(1), so the sum of n' terms is Gamma(n', 1) and
// p = Q(n', score), the regularized upper incomplete gamma (ours, below).
// Only positions with a full context of m previous tokens are scored, so
// n' = (number of scored positions after de-duplication): m is subtracted
// once (the MarkLLM pitfall subtracts it twice).
//
// Logits: finite, or -infinity for an excluded token (what TopP produces);
// NaN, +infinity, V = 0, all -infinity or T <= 0 throw std::invalid_argument.
// Ties go to the lowest token id everywhere.
#ifndef CB_REFERENCE_PF_PF_H_
#define CB_REFERENCE_PF_PF_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace cb::ref::pf {

using Token = int32_t;

// Throws std::invalid_argument (one line, naming `what`) unless V >= 1,
// every logit is finite or -inf, at least one is finite, and T > 0 finite.
void CheckLogits(std::span<const double> u, double temperature, const char* what = "logits");

// The keyed uniform r(key, stream, y) in (0, 1) described above.
double KeyedUniform(uint64_t key, uint64_t stream, uint64_t y);

// ---------------------------------------------------------------------------
// Decoders.

// Permute-and-flip loop (Alg. 1): a Fisher-Yates shuffle and Bernoulli flips,
// all drawn from Rng(seed, stream) (harness/random.h).
int64_t SamplePfLoop(std::span<const double> u, double temperature, uint64_t seed, uint64_t stream);

// argmax_i (u_i / T - log r(key, stream, i)).
int64_t SamplePfNoise(std::span<const double> u, double temperature, uint64_t key, uint64_t stream);

// argmax_i (u_i / T - log(-log r(key, stream, i))): softmax sampling.
int64_t SampleSoftmaxGumbel(std::span<const double> u, double temperature, uint64_t key,
                            uint64_t stream);

// argmax_i u_i (lowest id on ties).
int64_t Greedy(std::span<const double> u);

// softmax(u / T) in fp64 (max-subtracted). out: (V).
std::vector<double> SoftmaxProbabilities(std::span<const double> u, double temperature);

// Exact PF probabilities by the elementary-symmetric-polynomial formula.
// REQUIRES: V <= 64 (O(V^3); every term is positive, so fp64 keeps ~1e-15).
std::vector<double> PfProbabilitiesEsp(std::span<const double> u, double temperature);

// Exact PF probabilities by the integral form (any V; cost O(V * nodes)).
// Relative accuracy ~1e-12 (tested against PfProbabilitiesEsp and enumeration).
std::vector<double> PfProbabilitiesIntegral(std::span<const double> u, double temperature);

// PF probabilities by enumerating all V! orders of Alg. 1 (V <= 8): the
// definition itself, the oracle of the two formulas above.
std::vector<double> PfProbabilitiesEnumerate(std::span<const double> u, double temperature);

// Top-p (nucleus) filter: keeps the smallest set of highest-probability tokens
// (under softmax(u / T), ties by lower id) whose mass reaches p; the others
// become -infinity. p = 1 keeps everything. REQUIRES: 0 < p <= 1.
std::vector<double> TopP(std::span<const double> u, double temperature, double p);

// ---------------------------------------------------------------------------
// Watermarks.

enum class Watermark { kNone, kPf, kGumbel, kKgw };
const char* WatermarkName(Watermark w);  // "none", "pf", "gumbel", "kgw"

struct WatermarkParams {
  uint64_t key = 0;
  int context = 4;      // m, previous tokens hashed into the stream (>= 1)
  double gamma = 0.5;   // KGW green fraction
  double delta = 2.0;   // KGW logit bias
};

// Stream of position t: a splitmix64 chain over tokens[t-m .. t-1] (missing
// positions, t < m, hash as -1). Same function on CPU and CUDA.
uint64_t ContextHash(std::span<const Token> tokens, size_t t, int m);

// KGW's sampling noise is not keyed by the secret: step t uses stream
// kKgwSamplingStream ^ t under key `sampling_seed`.
inline constexpr uint64_t kKgwSamplingStream = 0x4B47570000000000ull;  // "KGW"

// The watermarked (or plain, kNone = softmax) choice at position t of
// `tokens` (tokens[<t] are the context) given logits u. For kKgw,
// `sampling_seed` keys the (unkeyed-by-secret) Gumbel noise.
int64_t WatermarkedSample(Watermark w, const WatermarkParams& params, std::span<const double> u,
                          double temperature, std::span<const Token> tokens, size_t t,
                          uint64_t sampling_seed);

// ---------------------------------------------------------------------------
// Detection.

enum class Dedup { kNone, kContext, kContextToken };

struct Detection {
  int64_t scored = 0;      // n': positions scored after de-duplication
  double score = 0;        // PF/Gumbel: sum of terms; KGW: green count
  double z = 0;            // KGW z statistic (0 for PF/Gumbel)
  double p_value = 1;      // Q(n', score) for PF/Gumbel, 1 - Phi(z) for KGW
};

// Scores positions t = m .. n-1 of `tokens` (a full m-token context), skipping
// a position whose context hash (kContext) or (context hash, token)
// (kContextToken) was seen before. REQUIRES: w != kNone; tokens non-empty
// (throws std::invalid_argument otherwise). A text with n' = 0 gets p = 1.
Detection Detect(Watermark w, const WatermarkParams& params, std::span<const Token> tokens,
                 Dedup dedup = Dedup::kContext);

// Regularized incomplete gamma functions, our own (series for x < a + 1,
// Lentz continued fraction otherwise, log-space prefactor): P(a, x) and
// Q(a, x) = 1 - P(a, x), and log Q for tiny tails. REQUIRES: a > 0, x >= 0.
double GammaP(double a, double x);
double GammaQ(double a, double x);
double LogGammaQ(double a, double x);

}  // namespace cb::ref::pf

#endif  // CB_REFERENCE_PF_PF_H_
