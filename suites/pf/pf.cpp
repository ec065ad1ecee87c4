// File: suites/pf/pf.cpp
// -----------------------------------------------------------------------------
// Input checks and backend dispatch of suites/pf/pf.h.
#include "suites/pf/pf.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "suites/pf/pf_cpu_internal.h"
#include "suites/pf/philox_avx512.h"

namespace cb::pf {

namespace h = cb::harness;

void CheckSampleShape(const LogitsView& logits, double temperature,
                      std::span<const uint64_t> streams) {
  if (logits.vocab <= 0) throw std::invalid_argument("logits: vocabulary size V = 0");
  if (logits.batch <= 0 || logits.data == nullptr) throw std::invalid_argument("logits: empty batch");
  if (logits.vocab > (int64_t{1} << 31) - 1)
    throw std::invalid_argument("logits: V above 2^31 - 1 (token ids are int32)");
  if (static_cast<int64_t>(streams.size()) != logits.batch)
    throw std::invalid_argument("streams: need one per row (" + std::to_string(logits.batch) +
                                "), got " + std::to_string(streams.size()));
  if (!(temperature > 0) || !std::isfinite(temperature))
    throw std::invalid_argument("temperature must be > 0 and finite, got " +
                                std::to_string(temperature));
}

void CheckSampleInput(const LogitsView& logits, double temperature,
                      std::span<const uint64_t> streams) {
  CheckSampleShape(logits, temperature, streams);
  const bool vector = CpuHasAvx512();
  for (int64_t b = 0; b < logits.batch; ++b) {
    // A fast pass over the row; the slow loop below only names the culprit.
    bool bad = false, any_finite = false;
    internal::ScanLogits(logits.data + b * logits.vocab, logits.vocab, vector, &bad, &any_finite);
    if (!bad && any_finite) continue;
    for (int64_t i = 0; i < logits.vocab; ++i) {
      const float v = logits.data[b * logits.vocab + i];
      if (std::isnan(v) || v == INFINITY)
        throw std::invalid_argument("logits: row " + std::to_string(b) + " column " +
                                    std::to_string(i) + " is " + (std::isnan(v) ? "NaN" : "+inf"));
      any_finite = any_finite || std::isfinite(v);
    }
    if (!any_finite) throw std::invalid_argument("logits: row " + std::to_string(b) + " is all -inf");
  }
}

std::vector<int32_t> Sample(h::Backend backend, const LogitsView& logits, double temperature,
                            Noise noise, uint64_t key, std::span<const uint64_t> streams) {
  std::vector<int32_t> tokens(static_cast<size_t>(logits.batch), -1);
  if (backend == h::Backend::kCpu) {
    // The CPU path checks each row's logits in the pass that scans them
    // (one read of the row instead of two) and throws as CheckSampleInput.
    CheckSampleShape(logits, temperature, streams);
    SampleCpu(logits, temperature, noise, key, streams, tokens);
    return tokens;
  }
  CheckSampleInput(logits, temperature, streams);
  h::RequireAvailable(backend);
#if CB_HAVE_CUDA
  SampleCuda(logits, temperature, noise, key, streams, tokens);
  return tokens;
#else
  throw std::logic_error("unreachable: cuda is available in a build without CUDA");
#endif
}

std::vector<double> ScoreTerms(h::Backend backend, cb::ref::pf::Watermark w,
                               const cb::ref::pf::WatermarkParams& params,
                               std::span<const int32_t> texts, int64_t count, int64_t n) {
  if (w == cb::ref::pf::Watermark::kNone) throw std::invalid_argument("no watermark to score");
  if (count <= 0 || n <= 0) throw std::invalid_argument("texts: empty");
  if (static_cast<int64_t>(texts.size()) != count * n)
    throw std::invalid_argument("texts: size is not count x n");
  if (params.context < 1) throw std::invalid_argument("watermark context m must be >= 1");
  for (size_t i = 0; i < texts.size(); ++i)
    if (texts[i] < 0) throw std::invalid_argument("texts: negative token at " + std::to_string(i));
  h::RequireAvailable(backend);
  std::vector<double> terms(texts.size(), 0.0);
  if (backend == h::Backend::kCpu) {
    ScoreTermsCpu(w, params, texts, count, n, terms);
    return terms;
  }
#if CB_HAVE_CUDA
  ScoreTermsCuda(w, params, texts, count, n, terms);
  return terms;
#else
  throw std::logic_error("unreachable: cuda is available in a build without CUDA");
#endif
}

}  // namespace cb::pf
