// File: reference/coat/adamw.h
// -----------------------------------------------------------------------------
// Two AdamW optimizers with the same update arithmetic (the authors' fused
// kernel, fp32):
//   m = b1 m + (1 - b1) g,  v = b2 v + (1 - b2) g^2
//   denom = (sqrt(v) / sqrt(1 - b2^t) + eps) (1 - b1^t)
//   p -= lr (m / denom + wd p)
// Fp32AdamW keeps m and v in fp32 (8 bytes per parameter). CoatAdamW (COAT
// §4) keeps both as E4M3 codes with Dynamic Range Expansion per 1x128 group
// plus fp32 (s, k, c) per group per moment: 2 + 24/128 = 2.1875 bytes per
// parameter. Each step dequantizes a group's moments, applies the update
// with the unquantized new m and v, and requantizes them.
//
// State storage goes through CountingAllocator, so the bytes each optimizer
// really holds (current and peak) are measured, not computed from a formula.
#ifndef CB_REFERENCE_COAT_ADAMW_H_
#define CB_REFERENCE_COAT_ADAMW_H_

#include <cstddef>
#include <cstdint>
#include <new>
#include <span>
#include <vector>

#include "reference/coat/quant.h"

namespace cb::ref::coat {

// Bytes allocated through CountingAllocator: now and the high-water mark.
struct AllocationCounter {
  int64_t current = 0;
  int64_t peak = 0;
  void Add(int64_t bytes) {
    current += bytes;
    if (current > peak) peak = current;
  }
};
AllocationCounter& StateAllocations();  // process-wide, single-threaded use
void ResetStateAllocationPeak();        // peak := current

template <typename T>
struct CountingAllocator {
  using value_type = T;
  CountingAllocator() = default;
  template <typename U>
  CountingAllocator(const CountingAllocator<U>&) {}
  T* allocate(std::size_t n) {
    StateAllocations().Add(static_cast<int64_t>(n * sizeof(T)));
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t n) {
    StateAllocations().Add(-static_cast<int64_t>(n * sizeof(T)));
    ::operator delete(p);
  }
  template <typename U>
  bool operator==(const CountingAllocator<U>&) const { return true; }
};

template <typename T>
using CountedVector = std::vector<T, CountingAllocator<T>>;

struct AdamWConfig {  // the authors' defaults
  float lr = 1e-3f;
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  float eps = 1e-8f;
  float weight_decay = 1e-2f;
};

class Fp32AdamW {
 public:
  Fp32AdamW(int64_t n, AdamWConfig cfg = {});
  // One step on params (n,) with grads (n,). REQUIRES: sizes equal n.
  void Step(std::span<float> params, std::span<const float> grads);
  std::span<const float> m() const { return m_; }
  std::span<const float> v() const { return v_; }
  int64_t StateBytes() const;  // bytes held by m and v
  int step() const { return step_; }

 private:
  AdamWConfig cfg_;
  int step_ = 0;
  CountedVector<float> m_, v_;
};

class CoatAdamW {
 public:
  CoatAdamW(int64_t n, AdamWConfig cfg = {}, DreOptions dre = {});
  void Step(std::span<float> params, std::span<const float> grads);
  // Dequantized moments (n,).
  std::vector<float> m() const;
  std::vector<float> v() const;
  int64_t StateBytes() const;  // codes + per-group (s, k, c) of both moments
  int step() const { return step_; }

 private:
  AdamWConfig cfg_;
  DreOptions dre_;
  int64_t n_;
  int step_ = 0;
  CountedVector<uint8_t> m_codes_, v_codes_;  // (n,) E4M3
  CountedVector<DreGroup> m_groups_, v_groups_;  // (ceil(n/128),)
};

}  // namespace cb::ref::coat

#endif  // CB_REFERENCE_COAT_ADAMW_H_
