// File: reference/mia/mia.cpp
// fp64 reference of the membership-inference scores; see mia.h.
#include "reference/mia/mia.h"

#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace cb::ref::mia {
namespace {

double Mean(std::span<const double> v, const char* what) {
  if (v.empty()) throw std::invalid_argument(std::string(what) + ": empty (no scored token)");
  double s = 0;
  for (double x : v) {
    if (std::isnan(x)) throw std::invalid_argument(std::string(what) + ": NaN");
    s += x;
  }
  return s / double(v.size());
}

std::string KName(const char* prefix, double k) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%s_%.1f", prefix, k);
  return buf;
}

}  // namespace

PositionStats StatsFromLogits(std::span<const double> z, int64_t target) {
  if (z.empty()) throw std::invalid_argument("StatsFromLogits: empty row");
  if (target < 0 || target >= int64_t(z.size())) throw std::invalid_argument("StatsFromLogits: target out of range");
  double m = -INFINITY;
  for (double x : z) {
    if (!std::isfinite(x)) throw std::invalid_argument("StatsFromLogits: non-finite logit");
    m = std::max(m, x);
  }
  double sum = 0;
  for (double x : z) sum += std::exp(x - m);
  const double lse = m + std::log(sum);
  PositionStats s;
  s.logp = z[target] - lse;
  for (double x : z) {
    const double lp = x - lse;
    s.mu += std::exp(lp) * lp;
  }
  for (double x : z) {
    const double lp = x - lse, d = lp - s.mu;
    s.sigma2 += std::exp(lp) * d * d;
  }
  return s;
}

PositionStats StatsFromDistribution(std::span<const double> p, int64_t target) {
  if (target < 0 || target >= int64_t(p.size()) || !(p[target] > 0)) {
    throw std::invalid_argument("StatsFromDistribution: target out of range or p = 0");
  }
  PositionStats s;
  s.logp = std::log(p[target]);
  for (double q : p) if (q > 0) s.mu += q * std::log(q);
  for (double q : p) {
    if (q > 0) {
      const double d = std::log(q) - s.mu;
      s.sigma2 += q * d * d;
    }
  }
  return s;
}

std::vector<double> MinKppTokenScores(std::span<const double> ll, std::span<const double> mu,
                                      std::span<const double> sigma2) {
  if (ll.size() != mu.size() || ll.size() != sigma2.size()) {
    throw std::invalid_argument("MinKppTokenScores: ll, mu and sigma2 differ in length");
  }
  std::vector<double> s(ll.size());
  for (size_t t = 0; t < ll.size(); ++t) {
    const double sigma = std::sqrt(std::max(sigma2[t], 0.0));
    s[t] = (ll[t] - mu[t]) / std::max(sigma, kSigmaFloor);
  }
  return s;
}

size_t MinKCount(size_t n, double k, KCount mode) {
  if (n == 0) throw std::invalid_argument("MinKCount: n = 0 (no scored token)");
  if (!(k > 0 && k <= 1)) throw std::invalid_argument("MinKCount: k not in (0, 1]");
  size_t m = 0;
  if (mode == KCount::kAuthors) {
    // Python's int() of the correctly rounded fp64 product: truncation, which
    // for a positive value is floor. No guard: the authors have none.
    m = size_t(double(n) * k);
  } else {
    const double micro = k * 1e6;
    const double rounded = std::round(micro);
    if (std::fabs(micro - rounded) > 1e-6) {
      throw std::invalid_argument("MinKCount: k has more than 6 decimal places for kExactDecimal");
    }
    m = size_t(uint64_t(rounded) * uint64_t(n) / 1000000u);
  }
  return std::max<size_t>(1, m);
}

double MeanOfSmallest(std::span<const double> v, double k, KCount mode) {
  if (v.empty()) throw std::invalid_argument("MeanOfSmallest: empty (no scored token)");
  if (!(k > 0 && k <= 1)) throw std::invalid_argument("MeanOfSmallest: k not in (0, 1]");
  std::vector<double> c(v.begin(), v.end());
  for (double x : c) if (std::isnan(x)) throw std::invalid_argument("MeanOfSmallest: NaN");
  const size_t m = MinKCount(c.size(), k, mode);
  std::nth_element(c.begin(), c.begin() + (m - 1), c.end());
  std::sort(c.begin(), c.begin() + m);
  double s = 0;
  for (size_t i = 0; i < m; ++i) s += c[i];
  return s / double(m);
}

int64_t ZlibLength(std::string_view text) {
  uLongf len = compressBound(text.size());
  std::string out(len, '\0');
  if (compress2(reinterpret_cast<Bytef*>(out.data()), &len,
                reinterpret_cast<const Bytef*>(text.data()), text.size(), 6) != Z_OK) {
    throw std::runtime_error("ZlibLength: compress2 failed");
  }
  return static_cast<int64_t>(len);
}

std::vector<double> KGrid() {
  // i / 10.0 is correctly rounded, so each k is the same double as the
  // authors' literal 0.1, ..., 1.0 in run.py's ratio list.
  std::vector<double> k;
  for (int i = 1; i <= 10; ++i) k.push_back(i / 10.0);
  return k;
}

double LossScore(const TextStats& s) { return Mean(s.ll, "Loss"); }

double ZlibScore(const TextStats& s) {
  if (s.text.empty()) throw std::invalid_argument("Zlib: text missing");
  return LossScore(s) / double(ZlibLength(s.text));
}

double LowercaseScore(const TextStats& s) {
  return Mean(s.ll_lower, "Lowercase") / LossScore(s);
}

double MinKScore(const TextStats& s, double k, KCount mode) { return MeanOfSmallest(s.ll, k, mode); }

double MinKppScore(const TextStats& s, double k, KCount mode) {
  return MeanOfSmallest(MinKppTokenScores(s.ll, s.mu, s.sigma2), k, mode);
}

double RefScore(const TextStats& s) { return LossScore(s) - Mean(s.ll_ref, "Ref"); }

double FsdScore(const TextStats& s, std::string_view base) {
  // S' (lower = member) under a model whose per-token ll are `ll` / `ll_lower`.
  auto lower_is_member = [&](std::span<const double> ll, std::span<const double> ll_lower) {
    const double nll = -Mean(ll, "FSD");
    if (base == "loss") return std::exp(nll);                        // PPL
    if (base == "zlib") return nll / double(ZlibLength(s.text));      // log PPL / zlib_len
    if (base == "lowercase") return -(-Mean(ll_lower, "FSD lowercase") / nll);
    if (base == "mink") return -MeanOfSmallest(ll, 0.2);
    throw std::invalid_argument("FsdScore: unknown base score '" + std::string(base) + "'");
  };
  if (base == "zlib" && s.text.empty()) throw std::invalid_argument("FSD zlib: text missing");
  return lower_is_member(s.ll_ft, s.ll_lower_ft) - lower_is_member(s.ll, s.ll_lower);
}

std::vector<MethodScores> ScoreAll(std::span<const TextStats> texts) {
  auto all = [&](auto has) {
    return !texts.empty() && std::all_of(texts.begin(), texts.end(), has);
  };
  const bool text = all([](const TextStats& s) { return !s.text.empty(); });
  const bool lower = all([](const TextStats& s) { return !s.ll_lower.empty(); });
  const bool moments = all([](const TextStats& s) { return !s.mu.empty() && !s.sigma2.empty(); });
  const bool ref = all([](const TextStats& s) { return !s.ll_ref.empty(); });
  const bool ft = all([](const TextStats& s) { return !s.ll_ft.empty(); });
  const bool ft_lower = ft && all([](const TextStats& s) { return !s.ll_lower_ft.empty(); });

  std::vector<MethodScores> out;
  auto add = [&](std::string name, auto fn) {
    MethodScores m{std::move(name), {}};
    for (const auto& s : texts) m.scores.push_back(fn(s));
    out.push_back(std::move(m));
  };
  add("loss", LossScore);
  if (text) add("zlib", ZlibScore);
  if (lower) add("lowercase", LowercaseScore);
  for (double k : KGrid()) add(KName("mink", k), [k](const TextStats& s) { return MinKScore(s, k); });
  if (moments) {
    for (double k : KGrid()) {
      add(KName("minkpp", k), [k](const TextStats& s) { return MinKppScore(s, k); });
    }
  }
  if (ref) add("ref", RefScore);
  if (ft) {
    add("fsd_loss", [](const TextStats& s) { return FsdScore(s, "loss"); });
    if (text) add("fsd_zlib", [](const TextStats& s) { return FsdScore(s, "zlib"); });
    if (ft_lower && lower) add("fsd_lowercase", [](const TextStats& s) { return FsdScore(s, "lowercase"); });
    add("fsd_mink", [](const TextStats& s) { return FsdScore(s, "mink"); });
  }
  return out;
}

}  // namespace cb::ref::mia
