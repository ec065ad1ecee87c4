// File: suites/cbplm/cb_cuda.h
// -----------------------------------------------------------------------------
// Host-only declarations of the CUDA path (cb_cuda.cu), called by the dispatch
// in cb_batched.cpp. Every function throws cb::harness::CudaError on a CUDA
// failure. NEVER RUN ON A GPU yet (written where there was no device).
#ifndef CB_SUITES_CBPLM_CB_CUDA_H_
#define CB_SUITES_CBPLM_CB_CUDA_H_

#if CB_HAVE_CUDA
#include <cstdint>
#include <vector>

namespace cb::cbplm::cuda {

// residues: every sequence's standard-residue indices (0..19) back to back;
// offsets [n + 1]; tables kd, hw, em [20] (fp64). out [n, 6]: gravy,
// avg_hydrophilicity, avg_surface_accessibility, aromaticity,
// extinction reduced, extinction oxidized (fp64, Biopython's summation order).
void AdditiveConcepts(const std::vector<uint8_t>& residues, const std::vector<int64_t>& offsets,
                      const double* kd, const double* hw, const double* em, double* out);

// The CB head forward in fp32 (reference/cbplm/cb_head.h): params in the
// head's flat layout (as float), offsets of its 13 tensors in slot order;
// xf [B*T, D]; c_in [B, C] or empty (the predicted concepts are used);
// ln_eps the head's LayerNorm epsilon (CbHeadConfig::ln_eps).
// pred [B, C] and logits [B*T, V] out.
void HeadForward(const std::vector<float>& params, const std::vector<size_t>& offsets, int D, int C, int E, int V,
                 float ln_eps, const std::vector<float>& xf, int B, int T, const std::vector<float>& c_in,
                 float* pred, float* logits);

}  // namespace cb::cbplm::cuda
#endif

#endif  // CB_SUITES_CBPLM_CB_CUDA_H_
