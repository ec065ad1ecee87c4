// File: suites/unip/unip_backend.h
// -----------------------------------------------------------------------------
// UNIP's attention statistics on a chosen backend (DESIGN §3): the NMI of
// many attention maps (a layer profile over images and heads) and the
// attention-distillation loss with its gradient. kCpu is the fp64 reference
// itself (reference/unip/nmi.h, distill.h); kCuda is unip.cu in fp64, held
// to the reference at the tolerances below (only the order of sums differs).
//
// Errors: an unavailable backend throws as harness::RequireAvailable does;
// bad input (shapes, negative or non-finite entries, a zero row, non-finite
// logits) throws one-line std::invalid_argument on every backend, before any
// device work; a CUDA failure throws CudaError.
#ifndef CB_SUITES_UNIP_UNIP_BACKEND_H_
#define CB_SUITES_UNIP_UNIP_BACKEND_H_

#include <span>
#include <vector>

#include "harness/backend.h"
#include "reference/unip/nmi.h"

namespace cb::unip {

// |NMI_cuda - NMI_ref| (NMI is in [0, 1]); fp64 on both sides, sums of up to
// ~1e5 terms in another order.
inline constexpr double kNmiAbsTolerance = 1e-11;
// |loss_cuda - loss_ref| <= kKlRelTolerance * max(loss_ref, 1e-3), and each
// gradient entry within kKlRelTolerance * max |grad_ref|.
inline constexpr double kKlRelTolerance = 1e-10;

// maps [count, q, k]: each map's NMI, as ref::unip::Nmi(map, q, k, eps).
// REQUIRES: count >= 1 and Nmi's requirements for every map.
std::vector<double> BatchNmi(harness::Backend backend, std::span<const double> maps, int count, int q, int k,
                             double eps = ref::unip::kNmiEps);

// ref::unip::LayerNmi on `backend`: a [images, heads, n, n], the mean NMI of
// every (image, head) map with the CLS token dropped (drop_cls) or not.
double LayerNmi(harness::Backend backend, std::span<const double> a, int images, int heads, int n,
                bool drop_cls = true, double eps = ref::unip::kNmiEps);

// ref::unip::AttentionKl on `backend`: student, teacher [rows, k]; grad
// (empty: not wanted) [rows, k] receives d loss / d student.
double AttentionKl(harness::Backend backend, std::span<const double> student, std::span<const double> teacher,
                   int k, std::span<double> grad = {});

}  // namespace cb::unip

#endif  // CB_SUITES_UNIP_UNIP_BACKEND_H_
