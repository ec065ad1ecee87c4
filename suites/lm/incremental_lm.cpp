// File: suites/lm/incremental_lm.cpp
// The two backends of suites/lm/incremental_lm.h.
#include "suites/lm/incremental_lm.h"

#include <stdexcept>
#include <string>

#include "suites/lm/cuda_transformer.h"

namespace cb::lm_suite {
namespace {

class CpuState : public KvState {
 public:
  CpuKvCache cache;
  int length() const override { return cache.length; }
  std::unique_ptr<KvState> Truncated(int n) const override {
    auto out = std::make_unique<CpuState>();
    out->cache = cache.Truncated(n);
    return out;
  }
};

class CpuLm : public IncrementalLm {
 public:
  explicit CpuLm(const CpuTransformer& model) : IncrementalLm(model) {}
  harness::Backend backend() const override { return harness::Backend::kCpu; }
  std::unique_ptr<KvState> Prefill(std::span<const int> tokens, std::vector<float>& logits) const override {
    auto s = std::make_unique<CpuState>();
    logits = model().Prefill(tokens, s->cache);
    return s;
  }
  std::vector<float> Extend(std::span<const int> tokens, KvState& state) const override {
    CpuKvCache& cache = Own(state).cache;
    // One token: the fused matrix-vector decode step (same math, no [T, S] buffers).
    return tokens.size() == 1 ? model().DecodeStep(tokens[0], cache) : model().Extend(tokens, cache);
  }
  std::vector<float> DecodeBatch(std::span<const int> tokens, std::span<KvState* const> states) const override {
    std::vector<CpuKvCache*> caches;
    for (KvState* s : states) caches.push_back(s ? &Own(*s).cache : nullptr);
    return model().DecodeBatch(tokens, caches);
  }

 private:
  static CpuState& Own(KvState& s) {
    auto* p = dynamic_cast<CpuState*>(&s);
    if (!p) throw std::invalid_argument("incremental lm: a KV state of another backend");
    return *p;
  }
};

#if CB_HAVE_CUDA
class CudaState : public KvState {
 public:
  CudaKvCache cache;
  int length() const override { return cache.length(); }
  std::unique_ptr<KvState> Truncated(int n) const override {
    auto out = std::make_unique<CudaState>();
    out->cache = cache.Truncated(n);
    return out;
  }
};

class CudaLm : public IncrementalLm {
 public:
  explicit CudaLm(const CpuTransformer& model) : IncrementalLm(model), gpu_(model) {}
  harness::Backend backend() const override { return harness::Backend::kCuda; }
  std::unique_ptr<KvState> Prefill(std::span<const int> tokens, std::vector<float>& logits) const override {
    auto s = std::make_unique<CudaState>();
    logits = gpu_.Prefill(tokens, s->cache);
    return s;
  }
  std::vector<float> Extend(std::span<const int> tokens, KvState& state) const override {
    auto* s = dynamic_cast<CudaState*>(&state);
    if (!s) throw std::invalid_argument("incremental lm: a KV state of another backend");
    return tokens.size() == 1 ? gpu_.DecodeStep(tokens[0], s->cache) : gpu_.Extend(tokens, s->cache);
  }
  std::vector<float> DecodeBatch(std::span<const int> tokens, std::span<KvState* const> states) const override {
    if (tokens.size() != states.size() || tokens.empty())
      throw std::invalid_argument("incremental lm: DecodeBatch needs one token per state");
    std::vector<float> logits;
    for (size_t b = 0; b < tokens.size(); ++b) {
      if (!states[b]) throw std::invalid_argument("incremental lm: DecodeBatch given a null state");
      const std::vector<float> row = Extend(tokens.subspan(b, 1), *states[b]);
      logits.insert(logits.end(), row.begin(), row.end());
    }
    return logits;
  }

 private:
  CudaTransformer gpu_;
};
#endif

}  // namespace

std::unique_ptr<IncrementalLm> MakeIncrementalLm(const CpuTransformer& model, harness::Backend backend) {
  if (backend == harness::Backend::kCpu) return std::make_unique<CpuLm>(model);
  harness::RequireAvailable(backend);  // "cuda unavailable: <reason>"
#if CB_HAVE_CUDA
  return std::make_unique<CudaLm>(model);
#else
  throw std::logic_error("incremental lm: cuda reported available in a build without it");
#endif
}

}  // namespace cb::lm_suite
