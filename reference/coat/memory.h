// File: reference/coat/memory.h
// -----------------------------------------------------------------------------
// Analytic memory accounting for COAT (§6 "memory"; issue 8, claim C5): bytes
// per parameter and per saved activation, BF16 mixed-precision training vs
// COAT, for the paper's model configurations, giving the predicted
// end-to-end ratio. This is OUR accounting, stated term by term so it can be
// argued with; the paper measures memory with torch's memory_allocated().
//
// Per parameter (all sharded over `gpus` by FSDP):
//   BF16: fp32 master 4 + bf16 weights 2 + bf16 grads 2 + fp32 m, v 8 = 16
//   COAT: fp32 master 4 + fp8 weights 1 + bf16 grads 2 + E4M3 m, v with
//         per-1x128-group fp32 (s, k, c) 2 + 24/128                  = 9.1875
// Saved activations per token per decoder layer (d = hidden, f = ffn):
//   attention core (flash): q, k, v, out: 4d elements, bf16 in both;
//   the rest: RMSNorm inputs (2d), q/k/v-proj and gate/up-proj inputs (2d),
//   SiLU input, SiLU output, up output, down-proj input (4f): bf16 (2 B) vs
//   FP8 with 1x16 bf16 scales (1 + 2/16 B).
// Plus per token: the final norm input (d, same rule) and the logits
// (vocab, bf16 in both).
#ifndef CB_REFERENCE_COAT_MEMORY_H_
#define CB_REFERENCE_COAT_MEMORY_H_

#include <cstdint>
#include <string>
#include <vector>

namespace cb::ref::coat {

struct ModelConfig {
  std::string name;
  int64_t layers = 0, hidden = 0, ffn = 0, vocab = 0;
  bool tied_embeddings = false;
  int64_t seq_len = 0, micro_batch = 0, gpus = 1;
};

// Llama-2-7B, OLMo-1B and OLMo-7B as published, with the batch settings
// stated in each entry (micro-batch 2 per GPU, 8 GPUs: the paper's OLMo
// MemBench; Llama-2-7B with micro-batch 1 on 8 GPUs).
std::vector<ModelConfig> PaperConfigs();

struct BytesPerParam {
  double master = 0, weights = 0, grads = 0, optimizer = 0;
  double Total() const { return master + weights + grads + optimizer; }
};
BytesPerParam Bf16BytesPerParam();
BytesPerParam CoatBytesPerParam();
// Optimizer-state bytes per parameter of COAT: 2 codes + 2 x 3 fp32 / group.
double CoatOptimizerBytesPerParam(int64_t group_size = 128);

int64_t ParamCount(const ModelConfig& c);

struct MemoryEstimate {
  int64_t params = 0;
  double static_bytes_per_gpu = 0;      // parameters, grads, optimizer, sharded
  double activation_bytes_per_gpu = 0;  // saved activations of one micro-batch
  double Total() const { return static_bytes_per_gpu + activation_bytes_per_gpu; }
};
MemoryEstimate EstimateBf16(const ModelConfig& c);
MemoryEstimate EstimateCoat(const ModelConfig& c);

}  // namespace cb::ref::coat

#endif  // CB_REFERENCE_COAT_MEMORY_H_
