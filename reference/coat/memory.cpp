// File: reference/coat/memory.cpp
// Analytic memory accounting, BF16 vs COAT; see memory.h for every term.
#include "reference/coat/memory.h"

namespace cb::ref::coat {
namespace {

constexpr double kBf16 = 2.0;
constexpr double kFp8Group16 = 1.0 + 2.0 / 16.0;  // E4M3 code + bf16 scale per 16

double ActivationBytesPerToken(const ModelConfig& c, double quantized_bytes) {
  const double d = double(c.hidden), f = double(c.ffn);
  const double attention_core = 4.0 * d * kBf16;
  const double per_layer = attention_core + (4.0 * d + 4.0 * f) * quantized_bytes;
  const double head = d * quantized_bytes + double(c.vocab) * kBf16;
  return double(c.layers) * per_layer + head;
}

MemoryEstimate Estimate(const ModelConfig& c, const BytesPerParam& bpp, double act_bytes) {
  MemoryEstimate e;
  e.params = ParamCount(c);
  e.static_bytes_per_gpu = double(e.params) * bpp.Total() / double(c.gpus);
  e.activation_bytes_per_gpu =
      double(c.seq_len) * double(c.micro_batch) * ActivationBytesPerToken(c, act_bytes);
  return e;
}

}  // namespace

std::vector<ModelConfig> PaperConfigs() {
  return {
      {"Llama-2-7B", 32, 4096, 11008, 32000, false, 2048, 1, 8},
      {"OLMo-1B", 16, 2048, 8192, 50304, true, 2048, 2, 8},
      {"OLMo-7B", 32, 4096, 11008, 50304, false, 2048, 2, 8},
  };
}

BytesPerParam Bf16BytesPerParam() { return {4.0, 2.0, 2.0, 8.0}; }

double CoatOptimizerBytesPerParam(int64_t group_size) {
  return 2.0 + 2.0 * 3.0 * 4.0 / double(group_size);
}

BytesPerParam CoatBytesPerParam() { return {4.0, 1.0, 2.0, CoatOptimizerBytesPerParam()}; }

int64_t ParamCount(const ModelConfig& c) {
  const int64_t d = c.hidden, f = c.ffn;
  const int64_t per_layer = 4 * d * d + 3 * d * f + 2 * d;  // attention, SwiGLU MLP, 2 norms
  const int64_t embeddings = c.vocab * d * (c.tied_embeddings ? 1 : 2);
  return c.layers * per_layer + embeddings + d;  // + final norm
}

MemoryEstimate EstimateBf16(const ModelConfig& c) { return Estimate(c, Bf16BytesPerParam(), kBf16); }

MemoryEstimate EstimateCoat(const ModelConfig& c) {
  return Estimate(c, CoatBytesPerParam(), kFp8Group16);
}

}  // namespace cb::ref::coat
