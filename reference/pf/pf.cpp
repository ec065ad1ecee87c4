// File: reference/pf/pf.cpp
// -----------------------------------------------------------------------------
// fp64 reference of PF decoding, its watermark and the baselines; contracts
// and formulas in reference/pf/pf.h.
#include "reference/pf/pf.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "harness/random.h"
#include "harness/stats.h"
#include "reference/pf/prf.h"

namespace cb::ref::pf {
namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

double MaxLogit(std::span<const double> u) {
  double m = kNegInf;
  for (double v : u) m = std::max(m, v);
  return m;
}

// q_j = exp((u_j - u*) / T), 0 for excluded tokens.
std::vector<double> Ratios(std::span<const double> u, double temperature) {
  const double top = MaxLogit(u);
  std::vector<double> q(u.size());
  for (size_t j = 0; j < u.size(); ++j) q[j] = std::exp((u[j] - top) / temperature);
  return q;
}

// argmax_i (u_i / T + noise(r_i)), lowest id on ties.
template <typename Noise>
int64_t NoisyArgmax(std::span<const double> u, double temperature, uint64_t key, uint64_t stream,
                    Noise noise) {
  int64_t best = -1;
  double best_value = kNegInf;
  for (size_t i = 0; i < u.size(); ++i) {
    if (u[i] == kNegInf) continue;
    const double v = u[i] / temperature + noise(KeyedUniformAt(key, stream, i));
    if (best < 0 || v > best_value) {
      best = static_cast<int64_t>(i);
      best_value = v;
    }
  }
  return best;
}

// Gauss-Legendre nodes/weights on [-1, 1], 16 points (Newton on P_16).
struct GaussLegendre16 {
  double x[16], w[16];
  GaussLegendre16() {
    constexpr int n = 16;
    for (int i = 0; i < n; ++i) {
      double z = std::cos(M_PI * (i + 0.75) / (n + 0.5));
      double dp = 0;
      for (int it = 0; it < 100; ++it) {
        double p0 = 1, p1 = z;
        for (int k = 2; k <= n; ++k) {
          const double p2 = ((2 * k - 1) * z * p1 - (k - 1) * p0) / k;
          p0 = p1;
          p1 = p2;
        }
        dp = n * (z * p1 - p0) / (z * z - 1);
        const double dz = p1 / dp;
        z -= dz;
        if (std::abs(dz) < 1e-16) break;
      }
      x[i] = z;
      w[i] = 2 / ((1 - z * z) * dp * dp);
    }
  }
};

// A tiny open-addressing set of 64-bit keys for de-duplication (the key 0 is
// remapped, so it can mark empty slots).
class KeySet {
 public:
  explicit KeySet(size_t expected) {
    size_t cap = 16;
    while (cap < 2 * expected + 2) cap <<= 1;
    slots_.assign(cap, 0);
    mask_ = cap - 1;
  }
  // True when `key` was not present (and inserts it).
  bool Insert(uint64_t key) {
    if (key == 0) key = 0x8000000000000001ull;
    for (size_t i = Mix64(key) & mask_;; i = (i + 1) & mask_) {
      if (slots_[i] == key) return false;
      if (slots_[i] == 0) {
        slots_[i] = key;
        return true;
      }
    }
  }

 private:
  std::vector<uint64_t> slots_;
  size_t mask_ = 0;
};

}  // namespace

void CheckLogits(std::span<const double> u, double temperature, const char* what) {
  if (u.empty()) throw std::invalid_argument(std::string(what) + ": vocabulary size V = 0");
  if (!(temperature > 0) || !std::isfinite(temperature))
    throw std::invalid_argument(std::string(what) + ": temperature must be > 0 and finite, got " +
                                std::to_string(temperature));
  bool any_finite = false;
  for (size_t i = 0; i < u.size(); ++i) {
    if (std::isnan(u[i]) || u[i] == std::numeric_limits<double>::infinity())
      throw std::invalid_argument(std::string(what) + ": logit " + std::to_string(i) + " is " +
                                  (std::isnan(u[i]) ? "NaN" : "+inf"));
    any_finite = any_finite || std::isfinite(u[i]);
  }
  if (!any_finite) throw std::invalid_argument(std::string(what) + ": every logit is -inf");
}

double KeyedUniform(uint64_t key, uint64_t stream, uint64_t y) {
  return KeyedUniformAt(key, stream, y);
}

int64_t SamplePfLoop(std::span<const double> u, double temperature, uint64_t seed,
                     uint64_t stream) {
  CheckLogits(u, temperature);
  const std::vector<double> q = Ratios(u, temperature);
  std::vector<int64_t> order(u.size());
  std::iota(order.begin(), order.end(), int64_t{0});
  cb::harness::Rng rng(seed, stream);
  rng.Shuffle(std::span<int64_t>(order));
  for (int64_t y : order) {
    // The argmax has q = 1 > Uniform() (which is < 1), so the loop ends.
    if (rng.Uniform() < q[y]) return y;
  }
  throw std::logic_error("SamplePfLoop: no token accepted (unreachable)");
}

int64_t SamplePfNoise(std::span<const double> u, double temperature, uint64_t key,
                      uint64_t stream) {
  CheckLogits(u, temperature);
  return NoisyArgmax(u, temperature, key, stream, [](double r) { return -std::log(r); });
}

int64_t SampleSoftmaxGumbel(std::span<const double> u, double temperature, uint64_t key,
                            uint64_t stream) {
  CheckLogits(u, temperature);
  return NoisyArgmax(u, temperature, key, stream,
                     [](double r) { return -std::log(-std::log(r)); });
}

int64_t Greedy(std::span<const double> u) {
  CheckLogits(u, 1.0);
  return std::max_element(u.begin(), u.end()) - u.begin();  // first maximum
}

std::vector<double> SoftmaxProbabilities(std::span<const double> u, double temperature) {
  CheckLogits(u, temperature);
  std::vector<double> p = Ratios(u, temperature);
  const double sum = std::accumulate(p.begin(), p.end(), 0.0);
  for (double& v : p) v /= sum;
  return p;
}

std::vector<double> PfProbabilitiesEsp(std::span<const double> u, double temperature) {
  CheckLogits(u, temperature);
  const size_t n = u.size();
  if (n > 64) throw std::invalid_argument("PfProbabilitiesEsp: V must be <= 64");
  const std::vector<double> q = Ratios(u, temperature);
  // binom[k] = C(V-1, k) by the multiplicative recurrence, within a few
  // ulps; every term e_k / C is positive, so relative errors do not grow
  // in the sum.
  std::vector<double> binom(n, 1.0);
  for (size_t k = 1; k < n; ++k) binom[k] = binom[k - 1] * double(n - k) / double(k);
  std::vector<double> p(n), e(n);
  for (size_t i = 0; i < n; ++i) {
    // e[k] = e_k({1 - q_j}_{j != i}), built one element at a time.
    std::fill(e.begin(), e.end(), 0.0);
    e[0] = 1.0;
    size_t count = 0;
    for (size_t j = 0; j < n; ++j) {
      if (j == i) continue;
      ++count;
      const double x = 1.0 - q[j];
      for (size_t k = count; k >= 1; --k) e[k] += x * e[k - 1];
    }
    double s = 0;
    for (size_t k = 0; k < n; ++k) s += e[k] / binom[k];
    p[i] = q[i] * s / double(n);
  }
  return p;
}

std::vector<double> PfProbabilitiesIntegral(std::span<const double> u, double temperature) {
  CheckLogits(u, temperature);
  const size_t n = u.size();
  const std::vector<double> q = Ratios(u, temperature);
  const double mass = std::accumulate(q.begin(), q.end(), 0.0);  // S >= 1
  // The integrand prod_j (1 - q_j s) decays like exp(-S s): a first panel
  // [0, c] with S c = 1/64, then dyadic panels [c 2^k, c 2^(k+1)] up to 1,
  // each halved, with 16-point Gauss-Legendre on every half.
  static const GaussLegendre16 gl;
  std::vector<double> nodes, weights;
  auto add_panel = [&](double a, double b) {
    for (int h = 0; h < 2; ++h) {
      const double lo = a + (b - a) * h / 2, hi = a + (b - a) * (h + 1) / 2;
      for (int k = 0; k < 16; ++k) {
        nodes.push_back(0.5 * (lo + hi) + 0.5 * (hi - lo) * gl.x[k]);
        weights.push_back(0.5 * (hi - lo) * gl.w[k]);
      }
    }
  };
  double c = std::min(1.0, 1.0 / (64.0 * mass));
  add_panel(0.0, c);
  while (c < 1.0) {
    const double next = std::min(1.0, 2 * c);
    add_panel(c, next);
    c = next;
  }
  // log G(s) = sum_j log(1 - q_j s) at every node (s < 1, so finite).
  std::vector<double> log_g(nodes.size(), 0.0);
  for (size_t k = 0; k < nodes.size(); ++k) {
    double acc = 0;
    for (size_t j = 0; j < n; ++j) acc += std::log1p(-q[j] * nodes[k]);
    log_g[k] = acc;
  }
  std::vector<double> p(n);
  for (size_t i = 0; i < n; ++i) {
    if (q[i] == 0) continue;
    double s = 0;
    for (size_t k = 0; k < nodes.size(); ++k)
      s += weights[k] * std::exp(log_g[k] - std::log1p(-q[i] * nodes[k]));
    p[i] = q[i] * s;
  }
  return p;
}

std::vector<double> PfProbabilitiesEnumerate(std::span<const double> u, double temperature) {
  CheckLogits(u, temperature);
  const size_t n = u.size();
  if (n > 8) throw std::invalid_argument("PfProbabilitiesEnumerate: V must be <= 8");
  const std::vector<double> q = Ratios(u, temperature);
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::vector<double> p(n, 0.0);
  double orders = 0;
  do {
    double reach = 1.0;  // probability that every earlier token was rejected
    for (int y : order) {
      p[y] += reach * q[y];
      reach *= 1.0 - q[y];
    }
    orders += 1;
  } while (std::next_permutation(order.begin(), order.end()));
  for (double& v : p) v /= orders;
  return p;
}

std::vector<double> TopP(std::span<const double> u, double temperature, double p) {
  CheckLogits(u, temperature);
  if (!(p > 0 && p <= 1)) throw std::invalid_argument("top-p must lie in (0, 1]");
  std::vector<double> out(u.begin(), u.end());
  if (p >= 1) return out;
  const std::vector<double> prob = SoftmaxProbabilities(u, temperature);
  std::vector<size_t> idx(u.size());
  std::iota(idx.begin(), idx.end(), size_t{0});
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return prob[a] > prob[b]; });
  double cum = 0;
  size_t keep = 0;
  while (keep < idx.size() && cum < p) cum += prob[idx[keep++]];
  for (size_t k = keep; k < idx.size(); ++k) out[idx[k]] = kNegInf;
  return out;
}

const char* WatermarkName(Watermark w) {
  switch (w) {
    case Watermark::kNone: return "none";
    case Watermark::kPf: return "pf";
    case Watermark::kGumbel: return "gumbel";
    case Watermark::kKgw: return "kgw";
  }
  return "?";
}

uint64_t ContextHash(std::span<const Token> tokens, size_t t, int m) {
  if (m < 1) throw std::invalid_argument("watermark context m must be >= 1");
  if (t > tokens.size()) throw std::invalid_argument("ContextHash: position past the text");
  return ContextHashAt(tokens.data(), static_cast<int64_t>(t), m);
}

int64_t WatermarkedSample(Watermark w, const WatermarkParams& params, std::span<const double> u,
                          double temperature, std::span<const Token> tokens, size_t t,
                          uint64_t sampling_seed) {
  switch (w) {
    case Watermark::kNone:
      return SampleSoftmaxGumbel(u, temperature, sampling_seed, t);
    case Watermark::kPf:
      return SamplePfNoise(u, temperature, params.key, ContextHash(tokens, t, params.context));
    case Watermark::kGumbel:
      return SampleSoftmaxGumbel(u, temperature, params.key,
                                 ContextHash(tokens, t, params.context));
    case Watermark::kKgw: {
      CheckLogits(u, temperature);
      const uint64_t ctx = ContextHash(tokens, t, params.context);
      // a'(y) = u(y)/T + delta * green(y), i.e. u'(y) = u(y) + T delta green(y).
      std::vector<double> biased(u.begin(), u.end());
      for (size_t y = 0; y < biased.size(); ++y)
        if (KeyedUniformAt(params.key, ctx, y) < params.gamma)
          biased[y] += temperature * params.delta;
      return SampleSoftmaxGumbel(biased, temperature, sampling_seed, kKgwSamplingStream ^ t);
    }
  }
  throw std::invalid_argument("unknown watermark");
}

Detection Detect(Watermark w, const WatermarkParams& params, std::span<const Token> tokens,
                 Dedup dedup) {
  if (w == Watermark::kNone) throw std::invalid_argument("Detect: no watermark to detect");
  if (tokens.empty()) throw std::invalid_argument("Detect: empty text");
  if (params.context < 1) throw std::invalid_argument("watermark context m must be >= 1");
  if (w == Watermark::kKgw && !(params.gamma > 0 && params.gamma < 1))
    throw std::invalid_argument("KGW gamma must lie in (0, 1)");
  Detection d;
  KeySet seen(tokens.size());
  for (size_t t = static_cast<size_t>(params.context); t < tokens.size(); ++t) {
    if (tokens[t] < 0) throw std::invalid_argument("Detect: negative token at " + std::to_string(t));
    const uint64_t ctx = ContextHashAt(tokens.data(), static_cast<int64_t>(t), params.context);
    if (dedup == Dedup::kContext && !seen.Insert(ctx)) continue;
    if (dedup == Dedup::kContextToken &&
        !seen.Insert(Mix64(ctx ^ Mix64(static_cast<uint32_t>(tokens[t])))))
      continue;
    const double r = KeyedUniformAt(params.key, ctx, static_cast<uint64_t>(tokens[t]));
    ++d.scored;
    switch (w) {
      case Watermark::kPf: d.score += -std::log(r); break;
      case Watermark::kGumbel: d.score += -std::log1p(-r); break;
      case Watermark::kKgw: d.score += r < params.gamma ? 1.0 : 0.0; break;
      case Watermark::kNone: break;
    }
  }
  if (d.scored == 0) return d;  // nothing scored: no evidence, p = 1
  const double n = static_cast<double>(d.scored);
  if (w == Watermark::kKgw) {
    d.z = (d.score - params.gamma * n) / std::sqrt(n * params.gamma * (1 - params.gamma));
    d.p_value = 0.5 * std::erfc(d.z / std::sqrt(2.0));
  } else {
    d.p_value = GammaQ(n, d.score);
  }
  return d;
}

// ---------------------------------------------------------------------------
// Regularized incomplete gamma.

namespace {

void CheckGammaArgs(double a, double x) {
  if (!(a > 0) || !std::isfinite(a)) throw std::invalid_argument("incomplete gamma: a must be > 0");
  if (!(x >= 0) || std::isnan(x)) throw std::invalid_argument("incomplete gamma: x must be >= 0");
}

// The series and Lentz continued fraction are harness's (harness/stats.h),
// with this reference's tolerances: terms below 1e-17 of the sum, fraction
// steps within 1e-16 of 1, at most a million terms.
constexpr int kMaxGammaTerms = 1000000;

// P(a, x) by the lower series; for x < a + 1.
double LowerSeries(double a, double x) {
  return std::exp(cb::harness::LogGammaPrefactor(a, x) +
                  std::log(cb::harness::GammaLowerSeries(a, x, 1e-17, kMaxGammaTerms)));
}

// log Q(a, x) by the continued fraction; for x >= a + 1.
double LogUpperFraction(double a, double x) {
  return cb::harness::LogGammaPrefactor(a, x) +
         std::log(cb::harness::GammaUpperFraction(a, x, 1e-16, kMaxGammaTerms));
}

}  // namespace

double GammaP(double a, double x) {
  CheckGammaArgs(a, x);
  if (x == 0) return 0.0;
  if (std::isinf(x)) return 1.0;
  if (x < a + 1) return std::min(1.0, LowerSeries(a, x));
  return -std::expm1(LogUpperFraction(a, x));
}

double GammaQ(double a, double x) {
  CheckGammaArgs(a, x);
  if (x == 0) return 1.0;
  if (std::isinf(x)) return 0.0;
  if (x < a + 1) return std::max(0.0, 1.0 - LowerSeries(a, x));
  return std::exp(LogUpperFraction(a, x));
}

double LogGammaQ(double a, double x) {
  CheckGammaArgs(a, x);
  if (x == 0) return 0.0;
  if (std::isinf(x)) return kNegInf;
  if (x < a + 1) return std::log1p(-std::min(1.0, LowerSeries(a, x)));
  return LogUpperFraction(a, x);
}

}  // namespace cb::ref::pf
