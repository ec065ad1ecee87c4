// File: reference/coat/adamw.cpp
// Fp32AdamW and CoatAdamW (COAT §4); see adamw.h.
#include "reference/coat/adamw.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace cb::ref::coat {
namespace {

struct Corrections {
  float c1;       // 1 - b1^t
  float c2_sqrt;  // sqrt(1 - b2^t)
};

Corrections BiasCorrections(const AdamWConfig& cfg, int step) {
  return {1.0f - std::pow(cfg.beta1, static_cast<float>(step)),
          std::sqrt(1.0f - std::pow(cfg.beta2, static_cast<float>(step)))};
}

// The fused update of one element; m and v come back unquantized.
inline void UpdateOne(const AdamWConfig& cfg, const Corrections& c, float g, float& p, float& m,
                      float& v) {
  m = cfg.beta1 * m + (1.0f - cfg.beta1) * g;
  v = cfg.beta2 * v + (1.0f - cfg.beta2) * g * g;
  const float denom = (std::sqrt(v) / c.c2_sqrt + cfg.eps) * c.c1;
  const float update = m / denom + cfg.weight_decay * p;
  p = p - cfg.lr * update;
}

void CheckSizes(int64_t n, std::span<float> params, std::span<const float> grads) {
  if (static_cast<int64_t>(params.size()) != n || static_cast<int64_t>(grads.size()) != n) {
    throw std::invalid_argument("AdamW::Step: params and grads must have the optimizer's size");
  }
}

}  // namespace

AllocationCounter& StateAllocations() {
  static AllocationCounter counter;
  return counter;
}

void ResetStateAllocationPeak() { StateAllocations().peak = StateAllocations().current; }

Fp32AdamW::Fp32AdamW(int64_t n, AdamWConfig cfg) : cfg_(cfg), m_(n, 0.0f), v_(n, 0.0f) {}

void Fp32AdamW::Step(std::span<float> params, std::span<const float> grads) {
  CheckSizes(static_cast<int64_t>(m_.size()), params, grads);
  ++step_;
  const Corrections c = BiasCorrections(cfg_, step_);
  for (size_t i = 0; i < params.size(); ++i) UpdateOne(cfg_, c, grads[i], params[i], m_[i], v_[i]);
}

int64_t Fp32AdamW::StateBytes() const {
  return static_cast<int64_t>((m_.capacity() + v_.capacity()) * sizeof(float));
}

CoatAdamW::CoatAdamW(int64_t n, AdamWConfig cfg, DreOptions dre)
    : cfg_(cfg), dre_(dre), n_(n) {
  // Zero moments quantize to all-zero groups: codes 0 with R = 1 parameters.
  const std::vector<float> zeros(std::min<int64_t>(n, kDreGroupSize), 0.0f);
  const int64_t groups = (n + kDreGroupSize - 1) / kDreGroupSize;
  const DreGroup zero_group = zeros.empty() ? DreGroup{} : DreParams(zeros, dre_);
  m_codes_.assign(n, 0);
  v_codes_.assign(n, 0);
  m_groups_.assign(groups, zero_group);
  v_groups_.assign(groups, zero_group);
}

void CoatAdamW::Step(std::span<float> params, std::span<const float> grads) {
  CheckSizes(n_, params, grads);
  ++step_;
  const Corrections c = BiasCorrections(cfg_, step_);
  float m[kDreGroupSize], v[kDreGroupSize];
  for (size_t gi = 0; gi < m_groups_.size(); ++gi) {
    const int64_t begin = static_cast<int64_t>(gi) * kDreGroupSize;
    const int64_t len = std::min<int64_t>(kDreGroupSize, n_ - begin);
    std::span<uint8_t> mq(m_codes_.data() + begin, len), vq(v_codes_.data() + begin, len);
    DreDecodeGroup(mq, m_groups_[gi], std::span<float>(m, len));
    DreDecodeGroup(vq, v_groups_[gi], std::span<float>(v, len));
    for (int64_t i = 0; i < len; ++i) {
      UpdateOne(cfg_, c, grads[begin + i], params[begin + i], m[i], v[i]);
    }
    m_groups_[gi] = DreParams(std::span<const float>(m, len), dre_);
    v_groups_[gi] = DreParams(std::span<const float>(v, len), dre_);
    DreEncodeGroup(std::span<const float>(m, len), m_groups_[gi], mq);
    DreEncodeGroup(std::span<const float>(v, len), v_groups_[gi], vq);
  }
}

std::vector<float> CoatAdamW::m() const {
  DreTensor t{n_, {m_codes_.begin(), m_codes_.end()}, {m_groups_.begin(), m_groups_.end()}};
  return DreDequantize(t);
}

std::vector<float> CoatAdamW::v() const {
  DreTensor t{n_, {v_codes_.begin(), v_codes_.end()}, {v_groups_.begin(), v_groups_.end()}};
  return DreDequantize(t);
}

int64_t CoatAdamW::StateBytes() const {
  return static_cast<int64_t>(m_codes_.capacity() + v_codes_.capacity() +
                              (m_groups_.capacity() + v_groups_.capacity()) * sizeof(DreGroup));
}

}  // namespace cb::ref::coat
