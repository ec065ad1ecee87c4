// File: suites/cbplm/cb_batched.h
// -----------------------------------------------------------------------------
// Batched CB-pLM pieces with a backend switch (DESIGN §3): the additive
// ProtParam concepts of many sequences, the concept-bottleneck head's
// forward (reference/cbplm/cb_head.h) on fp32 hidden states, and the whole
// CB-MLM forward (the substrate's encoder, then the head).
//   kCpu   the references themselves: reference/protparam (fp64) and the
//          fp64 head, its outputs rounded to fp32;
//   kCuda  cb_cuda.cu: one thread per sequence for the concepts (fp64, the
//          CPU's summation order: equal bit for bit), fp32 kernels for the
//          head (agreement with fp64 within fp32 rounding, cb_batched_test).
// The CUDA path was NEVER RUN ON A GPU (written where there was no device).
//
// Errors: an unavailable backend, an empty sequence or a residue outside the
// 20 standard ones throw std::invalid_argument with one line.
#ifndef CB_SUITES_CBPLM_CB_BATCHED_H_
#define CB_SUITES_CBPLM_CB_BATCHED_H_

#include <array>
#include <string>
#include <vector>

#include "harness/backend.h"
#include "reference/cbplm/cb_head.h"
#include "suites/cbplm/cb_mlm.h"

namespace cb::cbplm {

// gravy, avg_hydrophilicity, avg_surface_accessibility, aromaticity,
// molar_extinction_coefficient_reduced, molar_extinction_coefficient_oxidized.
inline constexpr int kNumBatchedConcepts = 6;
using AdditiveRow = std::array<double, kNumBatchedConcepts>;

std::vector<AdditiveRow> AdditiveConceptsBatch(harness::Backend backend, const std::vector<std::string>& sequences);

struct HeadForwardResult {
  std::vector<float> pred;    // [B, C]
  std::vector<float> logits;  // [B*T, V]
};
// c_in [B, C] (fp32) or empty: the decoder reads the predicted concepts.
HeadForwardResult CbHeadForward(harness::Backend backend, const ref::cbplm::CbHead& head, const std::vector<float>& xf,
                                int batch, int seq, const std::vector<float>& c_in);

// Logits [B*T, V] of the CB model on tokens [B, T], decoding with the
// concepts c_in [B, C] (fp32) or, empty, the predicted ones.
//   kCpu   CbMlm::Logits (fp32 encoder, fp64 head), rounded to fp32;
//   kCuda  the substrate's CudaTransformer for the encoder
//          (ForwardHiddenBatch), then CbHeadForward on the device.
// Only the concept-bottleneck model (Conditioning::kCbm): pre_encoder writes
// concepts into the input embeddings, which the CUDA encoder does not take.
std::vector<float> CbMlmLogits(harness::Backend backend, const CbMlm& model, const std::vector<int>& tokens,
                               int batch, const std::vector<float>& c_in);

}  // namespace cb::cbplm

#endif  // CB_SUITES_CBPLM_CB_BATCHED_H_
