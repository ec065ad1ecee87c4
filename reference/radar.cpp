// File: reference/radar.cpp
// fp64 reference of Radar decoding; the contract is in reference/radar.h.
#include "reference/radar.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "harness/random.h"

namespace cb::ref::radar {
namespace {

constexpr double kPhiFloor = 1e-18;  // upstream's additive floor

double Dot(const double* a, const double* b, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

template <class T>
void RequireFiniteImpl(const T* x, int64_t n, const char* what) {
  for (int64_t i = 0; i < n; ++i)
    if (!std::isfinite(x[i]))
      throw std::invalid_argument(std::string("radar: ") + what + " entry " + std::to_string(i) + " is " +
                                  (std::isnan(x[i]) ? "NaN" : "infinite"));
}

}  // namespace

void RequireFinite(const double* x, int64_t n, const char* what) { RequireFiniteImpl(x, n, what); }
void RequireFinite(const float* x, int64_t n, const char* what) { RequireFiniteImpl(x, n, what); }

const char* SelectionName(Selection s) {
  switch (s) {
    case Selection::kRadar: return "radar";
    case Selection::kOracle: return "oracle";
    case Selection::kRandom: return "random";
    case Selection::kLast: return "last";
  }
  return "?";
}

FeatureMap MakeFeatureMap(int d, int D, uint64_t seed, uint64_t stream) {
  if (d < 1) throw std::invalid_argument("radar: d must be >= 1");
  FeatureMap f;
  f.d = d;
  f.D = D > 0 ? D : 16 * d;
  f.omega.resize(static_cast<size_t>(f.d) * f.D);
  cb::harness::Rng rng(seed, stream);
  for (double& w : f.omega) w = rng.Normal();
  return f;
}

void Exponents(const FeatureMap& f, const double* x, double* plus, double* minus, uint64_t* macs) {
  const double scale = std::pow(static_cast<double>(f.d), -0.25);
  double norm2 = 0;
  for (int i = 0; i < f.d; ++i) norm2 += (scale * x[i]) * (scale * x[i]);
  // z = x~ Omega, row by row of Omega (contiguous reads).
  std::fill(plus, plus + f.D, 0.0);
  for (int i = 0; i < f.d; ++i) {
    const double xi = scale * x[i];
    const double* row = &f.omega[static_cast<size_t>(i) * f.D];
    for (int j = 0; j < f.D; ++j) plus[j] += xi * row[j];
  }
  for (int j = 0; j < f.D; ++j) {
    const double z = plus[j];
    plus[j] = z - norm2 / 2;
    minus[j] = -z - norm2 / 2;
  }
  if (macs) *macs += static_cast<uint64_t>(f.d) * f.D;
}

std::vector<double> Phi(const FeatureMap& f, const double* x, double s_plus, double s_minus,
                        uint64_t* macs) {
  std::vector<double> out(2 * static_cast<size_t>(f.D));
  Exponents(f, x, out.data(), out.data() + f.D, macs);
  const double norm = 1 / std::sqrt(2.0 * f.D);
  for (int j = 0; j < f.D; ++j) {
    out[j] = norm * std::exp(out[j] - s_plus) + kPhiFloor;
    out[f.D + j] = norm * std::exp(out[f.D + j] - s_minus) + kPhiFloor;
  }
  return out;
}

std::vector<double> PhiQuery(const FeatureMap& f, const double* q, uint64_t* macs) {
  std::vector<double> plus(f.D), minus(f.D);
  Exponents(f, q, plus.data(), minus.data(), macs);
  const double sp = *std::max_element(plus.begin(), plus.end());
  const double sm = *std::max_element(minus.begin(), minus.end());
  return Phi(f, q, sp, sm, nullptr);  // same exponents; counted once above
}

Cache::Cache(const Config& config) : config_(config) {
  if (config.d < 1 || config.sink < 0 || config.window < 0 || !(config.aspect > 0) ||
      (config.budget <= 0 && config.topk < 1)) {
    throw std::invalid_argument("radar: bad config (need d >= 1, sink, window >= 0, aspect > 0, "
                                "topk >= 1 or budget >= 1)");
  }
  features_ = MakeFeatureMap(config.d, config.D, config.seed, 0);
  config_.D = features_.D;
}

void Cache::Append(const double* keys, const double* values, int64_t n) {
  RequireFinite(keys, n * config_.d, "key");
  RequireFinite(values, n * config_.d, "value");
  keys_.insert(keys_.end(), keys, keys + n * config_.d);
  values_.insert(values_.end(), values, values + n * config_.d);
}

int64_t Cache::StoreSize() const {
  return std::max<int64_t>(0, size() - config_.sink - config_.window - 1);
}

bool Cache::BelowThreshold() const {
  const double n = static_cast<double>(StoreSize());
  if (config_.budget > 0) return n <= config_.budget;
  const double root = config_.topk / config_.aspect;
  return n < root * root;
}

void Cache::Rebuild() {
  const int64_t n = StoreSize();
  const int d = config_.d, D = features_.D;
  c_ = std::max<int64_t>(1, static_cast<int64_t>(std::floor(std::sqrt(double(n)) / config_.aspect)));
  n_seg_ = 0;
  summaries_.clear();
  // Stabilisers: max over every stored key (store tokens) of both halves.
  std::vector<double> plus(D), minus(D);
  s_plus_ = s_minus_ = -std::numeric_limits<double>::infinity();
  for (int64_t k = 0; k < n; ++k) {
    Exponents(features_, &keys_[(config_.sink + k) * d], plus.data(), minus.data(),
              &counters_.rebuild_macs);
    s_plus_ = std::max(s_plus_, *std::max_element(plus.begin(), plus.end()));
    s_minus_ = std::max(s_minus_, *std::max_element(minus.begin(), minus.end()));
  }
  ++counters_.rebuilds;
  const int64_t whole = n / c_;
  for (int64_t j = 0; j < whole; ++j) AppendSegment();
}

void Cache::AppendSegment() {
  const int d = config_.d, D = features_.D;
  const int64_t first = config_.sink + n_seg_ * c_;
  std::vector<double> mean(2 * static_cast<size_t>(D), 0.0);
  uint64_t macs = 0;
  for (int64_t k = first; k < first + c_; ++k) {
    const auto phi = Phi(features_, &keys_[k * d], s_plus_, s_minus_, &macs);
    for (int j = 0; j < 2 * D; ++j) mean[j] += phi[j];
    macs += 2 * static_cast<uint64_t>(D);
  }
  for (double& v : mean) v /= static_cast<double>(c_);
  summaries_.insert(summaries_.end(), mean.begin(), mean.end());
  ++n_seg_;
  counters_.rebuild_macs += macs;
}

void Cache::Organize() {
  if (BelowThreshold()) return;
  const int64_t n = StoreSize();
  if (c_ == 0 || n / c_ >= static_cast<int64_t>(2 * config_.aspect * config_.aspect * c_)) {
    Rebuild();
    return;
  }
  const int64_t rem = n - n_seg_ * c_;
  for (int64_t j = 0; j < rem / c_; ++j) {
    AppendSegment();
    ++counters_.segments_appended;
  }
}

std::vector<int64_t> Cache::Decode(const double* q, double* out) {
  if (size() < 1) throw std::invalid_argument("radar: Decode() on an empty cache");
  RequireFinite(q, config_.d, "query");
  Organize();
  const int d = config_.d, D = features_.D;
  const int64_t t = size();
  uint64_t macs = 0;
  std::vector<int64_t> tokens;
  const bool built = !BelowThreshold() && c_ > 0;
  int64_t k = 0;
  if (built) k = config_.budget > 0 ? config_.budget / c_ : config_.topk;
  counters_.exact = !built || k >= n_seg_;
  if (counters_.exact) {
    tokens.resize(static_cast<size_t>(t));
    std::iota(tokens.begin(), tokens.end(), int64_t{0});
  } else {
    std::vector<double> score(static_cast<size_t>(n_seg_));
    switch (config_.selection) {
      case Selection::kRadar: {
        const auto phi_q = PhiQuery(features_, q, &macs);
        for (int64_t j = 0; j < n_seg_; ++j)
          score[j] = Dot(phi_q.data(), &summaries_[j * 2 * D], 2 * D);
        macs += static_cast<uint64_t>(n_seg_) * 2 * D;
        break;
      }
      case Selection::kOracle: {
        const double inv = 1 / std::sqrt(double(d));
        const int64_t covered = n_seg_ * c_;
        std::vector<double> logit(static_cast<size_t>(covered));
        for (int64_t i = 0; i < covered; ++i)
          logit[i] = Dot(q, &keys_[(config_.sink + i) * d], d) * inv;
        const double mx = *std::max_element(logit.begin(), logit.end());
        for (int64_t j = 0; j < n_seg_; ++j) {
          double s = 0;
          for (int64_t i = j * c_; i < (j + 1) * c_; ++i) s += std::exp(logit[i] - mx);
          score[j] = s;
        }
        macs += static_cast<uint64_t>(covered) * d;
        break;
      }
      case Selection::kRandom: {
        cb::harness::Rng rng(config_.seed, 1 + step_);
        for (double& s : score) s = rng.Uniform();
        break;
      }
      case Selection::kLast:
        for (int64_t j = 0; j < n_seg_; ++j) score[j] = static_cast<double>(j);
        break;
    }
    std::vector<int64_t> order(static_cast<size_t>(n_seg_));
    std::iota(order.begin(), order.end(), int64_t{0});
    for (double& s : score) s = std::isnan(s) ? -HUGE_VAL : s;  // phi overflowed: ranks last
    std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int64_t a, int64_t b) {
      return score[a] > score[b] || (score[a] == score[b] && a < b);
    });
    std::vector<int64_t> chosen(order.begin(), order.begin() + k);
    std::sort(chosen.begin(), chosen.end());
    for (int64_t s = 0; s < config_.sink && s < t; ++s) tokens.push_back(s);
    for (int64_t j : chosen)
      for (int64_t i = 0; i < c_; ++i) tokens.push_back(config_.sink + j * c_ + i);
    for (int64_t i = config_.sink + n_seg_ * c_; i < t; ++i) tokens.push_back(i);  // rem + window
  }
  Attend(q, keys_.data(), values_.data(), d, tokens, out);
  macs += 2 * static_cast<uint64_t>(d) * tokens.size();
  counters_.decode_macs = macs;
  counters_.attended = tokens.size();
  counters_.segments = n_seg_;
  counters_.segment_len = c_;
  ++step_;
  return tokens;
}

void Attend(const double* q, const double* keys, const double* values, int d,
            const std::vector<int64_t>& tokens, double* out) {
  if (tokens.empty()) throw std::invalid_argument("radar: Attend() over no tokens");
  RequireFinite(q, d, "query");
  const double inv = 1 / std::sqrt(double(d));
  std::vector<double> logit(tokens.size());
  for (size_t i = 0; i < tokens.size(); ++i) logit[i] = Dot(q, keys + tokens[i] * d, d) * inv;
  const double mx = *std::max_element(logit.begin(), logit.end());
  double z = 0;
  for (double& l : logit) z += (l = std::exp(l - mx));
  std::fill(out, out + d, 0.0);
  for (size_t i = 0; i < tokens.size(); ++i) {
    const double* v = values + tokens[i] * d;
    for (int j = 0; j < d; ++j) out[j] += logit[i] / z * v[j];
  }
}

uint64_t DenseDecode(const double* q, const double* keys, const double* values, int64_t t, int d,
                     double* out) {
  std::vector<int64_t> all(static_cast<size_t>(t));
  std::iota(all.begin(), all.end(), int64_t{0});
  Attend(q, keys, values, d, all, out);
  return 2 * static_cast<uint64_t>(d) * t;
}

std::vector<int64_t> StreamingDecode(const double* q, const double* keys, const double* values,
                                     int64_t t, int d, int sink, int window, double* out) {
  std::vector<int64_t> tokens;
  const int64_t tail = std::max<int64_t>(0, t - window);
  for (int64_t i = 0; i < std::min<int64_t>(sink, tail); ++i) tokens.push_back(i);
  for (int64_t i = tail; i < t; ++i) tokens.push_back(i);
  Attend(q, keys, values, d, tokens, out);
  return tokens;
}

uint64_t PredictedDecodeMacs(int d, int D, int64_t n_seg, int64_t attended) {
  return static_cast<uint64_t>(d) * D + 2 * static_cast<uint64_t>(D) * n_seg +
         2 * static_cast<uint64_t>(d) * attended;
}

}  // namespace cb::ref::radar
