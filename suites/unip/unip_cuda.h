// File: suites/unip/unip_cuda.h
// -----------------------------------------------------------------------------
// Host-only declarations of UNIP's CUDA path (unip.cu), called by the
// dispatch in unip_backend.cpp with fp64 host arrays after it has checked
// the inputs. The device computes in fp64 as the reference does
// (reference/unip), so only the order of the sums differs.
// Every function throws cb::harness::CudaError on a CUDA failure.
//
// What runs on the device: the NMI of many attention maps at once (one
// thread block per map) and the attention-distillation KL with its gradient
// (one warp per row of logits).
#ifndef CB_SUITES_UNIP_UNIP_CUDA_H_
#define CB_SUITES_UNIP_UNIP_CUDA_H_

#if CB_HAVE_CUDA
#include <vector>

namespace cb::unip::cuda {

// maps [count, q, k] (checked: entries finite and >= 0, every row's sum
// with eps positive); nmi [count] receives each map's NMI as
// ref::unip::Nmi(map, q, k, eps).
void BatchNmi(const std::vector<double>& maps, int count, int q, int k, double eps, std::vector<double>& nmi);

// student, teacher [rows, k] (checked: finite); row_kl [rows] receives each
// row's KL(softmax T || softmax S); grad (nullptr: not wanted) [rows, k]
// receives (softmax S - softmax T) / rows.
void AttentionKlRows(const std::vector<double>& student, const std::vector<double>& teacher, int rows, int k,
                     std::vector<double>& row_kl, std::vector<double>* grad);

}  // namespace cb::unip::cuda
#endif

#endif  // CB_SUITES_UNIP_UNIP_CUDA_H_
