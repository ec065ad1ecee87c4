// File: suites/lm/cuda_transformer.h
// -----------------------------------------------------------------------------
// The CUDA path of the transformer substrate (issue 18): the fp32 model of
// cpu_transformer.h (same math, same flat parameter layout in ParamSlot
// order, same Batch, same KV cache layout [t, KV*d] per layer), with every
// matrix product a cuBLAS SGEMM/SGEMV and the element-wise steps (embedding
// gather, RMSNorm, RoPE, masked softmax, SwiGLU, cross-entropy, the attention
// backward's dS, the embedding-gradient scatter) small kernels in
// cuda_transformer.cu. Batched forward, hand-derived backward (gradient
// downloaded to the host in the flat layout), and a device-resident KV cache
// with prefill and a batch-1 decode step.
//
// Host-only header: no CUDA types, so any translation unit can include it;
// its contents exist in CUDA builds only (CB_HAVE_CUDA), like docs_cuda.h.
// Agreement with the fp64 reference: suites/lm/cuda_transformer_test.cpp.
//
// Usage:
//   CpuTransformer cpu(ref::lm::RandomInit(config, seed));
//   CudaTransformer gpu(cpu);                           // uploads the weights once
//   std::vector<float> logits = gpu.Forward(tokens);    // [T, V]
//   std::vector<float> grad(gpu.num_params());
//   double loss = gpu.LossAndGrad(batch, grad);         // grad overwritten
//   CudaKvCache cache; gpu.Prefill(prompt, cache); gpu.DecodeStep(tok, cache);
//   CpuKvCache host = cache.Download();                 // keys/values per layer
//
// The model is a snapshot: later changes to the CpuTransformer's params()
// are not seen (construct a new CudaTransformer, or call Upload()).
//
// Threads: a CudaTransformer keeps its device workspace between calls, so
// even its const methods must not run concurrently (one per thread). All work
// runs on the default stream of the current device; results are downloaded
// synchronously.
//
// Determinism: no atomics anywhere; cuBLAS on one handle and stream is
// deterministic for a fixed GPU model and toolkit, so the same call gives
// bitwise the same logits, loss and gradient run to run. The results are not
// bitwise equal to the CPU path's (different summation orders).
//
// Errors: bad input throws std::invalid_argument with one line, checked on
// the host before anything is launched (the same checks as the CPU path); no
// usable device throws std::runtime_error("cuda unavailable: <reason>") from
// the constructor; a CUDA or cuBLAS failure throws cb::harness::CudaError.
#ifndef CB_SUITES_LM_CUDA_TRANSFORMER_H_
#define CB_SUITES_LM_CUDA_TRANSFORMER_H_

#include "suites/lm/cpu_transformer.h"

#if CB_HAVE_CUDA

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

namespace cb::lm_suite {

class CudaTransformer;

// A causal model's KV cache in device memory: per layer the rotated keys and
// the values of every position so far, [t, KV*d] (CpuKvCache's layout), in
// buffers of max_position_embeddings rows allocated by Prefill. Move-only.
// Belongs to the CudaTransformer that filled it (DecodeStep checks the shape).
class CudaKvCache {
 public:
  CudaKvCache();
  ~CudaKvCache();
  CudaKvCache(CudaKvCache&&) noexcept;
  CudaKvCache& operator=(CudaKvCache&&) noexcept;
  CudaKvCache(const CudaKvCache&) = delete;
  CudaKvCache& operator=(const CudaKvCache&) = delete;

  // Positions cached (0 before Prefill).
  int length() const;
  // Forgets every position from `length` on (a draft's rejected tokens, or a
  // benchmark's rewind). REQUIRES: 0 < length <= this->length().
  void Truncate(int length);
  // A new cache holding a device copy of the first `length` positions (a fork
  // at a shorter prefix, e.g. one of MTAD's draft beams). REQUIRES: 0 < length
  // <= this->length().
  CudaKvCache Truncated(int length) const;
  // Keys and values of layer `layer`, [length, KV*d] each, downloaded.
  std::vector<float> Keys(int layer) const;
  std::vector<float> Values(int layer) const;
  // The whole cache in the CPU path's layout (for tests, Radar, MTAD).
  CpuKvCache Download() const;

 private:
  friend class CudaTransformer;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

class CudaTransformer {
 public:
  // Uploads `model`'s flat fp32 parameters. Throws std::runtime_error when the
  // CUDA backend is unavailable here (harness/backend.h's reason).
  explicit CudaTransformer(const CpuTransformer& model);
  ~CudaTransformer();
  CudaTransformer(const CudaTransformer&) = delete;
  CudaTransformer& operator=(const CudaTransformer&) = delete;

  const ref::lm::TransformerConfig& config() const;
  const ref::lm::Architecture& arch() const;
  size_t num_params() const;

  // Replaces the device weights by `flat` [num_params] (e.g. after an
  // optimizer step on the host).
  void Upload(std::span<const float> flat);

  // Logits [T, V] of one sequence.
  std::vector<float> Forward(std::span<const int> tokens) const;
  // Logits [B*T, V] of a batch (positions 0..T-1 in every sequence).
  std::vector<float> ForwardBatch(std::span<const int> tokens, int batch, int seq) const;
  // The final-norm hidden states xf [B*T, D] of the same pass (what a head
  // other than the LM head reads, e.g. CB-pLM's concept bottleneck).
  std::vector<float> ForwardHiddenBatch(std::span<const int> tokens, int batch, int seq) const;
  // The batch's weighted mean cross-entropy; `grad` [num_params] receives its
  // gradient, downloaded in the flat layout (overwritten).
  double LossAndGrad(const Batch& batch, std::span<float> grad) const;
  // The loss alone.
  double Loss(const Batch& batch) const;

  // Causal models. Prefill clears `cache`, runs `tokens` at positions 0..T-1
  // and returns their logits [T, V]; DecodeStep runs one token at position
  // cache.length() and returns its logits [V]; Extend runs T >= 1 tokens at
  // positions cache.length() .. +T-1 in one batched forward and returns their
  // logits [T, V] (CpuTransformer::Extend's contract).
  std::vector<float> Prefill(std::span<const int> tokens, CudaKvCache& cache) const;
  std::vector<float> DecodeStep(int token, CudaKvCache& cache) const;
  std::vector<float> Extend(std::span<const int> tokens, CudaKvCache& cache) const;

  // Benchmarks: the same work with inputs uploaded first and nothing
  // downloaded, timed on the device by CUDA events (DESIGN §5); seconds.
  // TimeLossAndGrad: forward, cross-entropy and backward (the gradient stays
  // on the device). TimePrefill / TimeDecodeStep: as above, on `cache`.
  double TimeLossAndGrad(const Batch& batch) const;
  double TimePrefill(std::span<const int> tokens, CudaKvCache& cache) const;
  double TimeDecodeStep(int token, CudaKvCache& cache) const;

 private:
  // Checks and uploads a batch of tokens and runs the forward pass.
  void RunTokens(std::span<const int> tokens, int batch, int seq) const;

  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cb::lm_suite

#endif  // CB_HAVE_CUDA

#endif  // CB_SUITES_LM_CUDA_TRANSFORMER_H_
