// File: reference/coat/quant.h
// -----------------------------------------------------------------------------
// COAT (Xi et al., "COAT: Compressing Optimizer states and Activation for
// memory-efficient FP8 Training", ICLR 2025): the quantizers, as CPU
// references in fp32 arithmetic that mirrors the authors' CUDA kernel (the
// formulas are float ops there, so a bit-level spec has to be too).
//
// 1. Dynamic Range Expansion (DRE, paper §4.1, eq. for f(x) = sign(x)|x|^k),
//    per 1x128 group of a flattened optimizer state x:
//      M = max|x| + 1e-30,  mu = min{|x| : x != 0} + 1e-30,  R = M / mu
//      c = sqrt(M) * sqrt(mu)                        (geometric centre)
//      kAuthorsKernel: k = floor(log2(448^2/2) / log2(R) * 16) / 16
//      kPaper:         k = log2(448 / 2^-9) / log2(R)   (k = log_R(R_E4M3))
//      y = sign(x) (|x|/c)^k,  s = (M/c)^k / 448,  q = e4m3_satfinite(y / s)
//    and back: x^ = sign(q) (|q| s)^(1/k) c.
//    k has no upper bound, as in the kernel (NVlabs/COAT
//    coat/optimizer/kernels/fp8_adamw_expand_cuda_kernel.cu, lines 170-172 at
//    715c1623bc85): a narrow group (R = 1.5) gets k = 28.375, and R -> 1 gives
//    k -> inf. DreOptions::k_cap names a capped variant (an older version of
//    this file capped k at 16 for every R < ~2.05, which moved 127 of 128
//    codes of such a group and doubled its error).
//    Edge cases (the kernel leaves them open; we specify them):
//      - R == 1 (constant-magnitude group, one nonzero, all zeros): log2 R = 0
//        gives k = inf, and the kernel then computes powf(1, inf) = 1 for the
//        scale and NaN-free but degenerate codes; we set k :=
//        k_if_ratio_is_one (16, in (1/16)Z). Any finite k maps |x| = c to
//        +-448 then, so the codes do not depend on that choice.
//      - all-zero group: mu := M, so R = 1; codes are all +-0, x^ = +-0.
//      - k < 1 (R > 448^2/2, ~1e5) is compression; the kernel keeps it,
//        clamp_k_at_least_one (torchao's choice) raises it to 1.
//      - the kernel's warp reduction skips zeros imperfectly (a lane-0 zero can
//        leak into the minimum or a whole warp can drop out); we compute the
//        intended min over nonzero |x| exactly. (An older copy of the kernel
//        does not skip zeros at all: DreOptions::min_includes_zeros.)
// 2. Per-group max scaling (the baseline DRE is compared with; also the
//    FP8 optimizer without expansion): s = (max|x| + 1e-20) / fp8_max,
//    q = fp8(x / s), x^ = q s.
// 3. Mixed-granularity activation quantization (§5): per-tensor scaling for
//    linear-layer inputs, 1x16 groups with bf16 scales (max|x| + 1e-10)/fp8_max
//    for the inputs that non-linear layers save, and "group scaling": the
//    per-tensor max computed from fp32 1x16 group maxima, which equals the
//    one-stage max bit for bit (max is exact and associative).
//
// Storage order: every tensor is a flat fp32 array; groups are consecutive
// runs of group_size elements, the last one possibly shorter.
#ifndef CB_REFERENCE_COAT_QUANT_H_
#define CB_REFERENCE_COAT_QUANT_H_

#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "reference/fp8.h"

namespace cb::ref::coat {

inline constexpr int kDreGroupSize = 128;   // asserted by the authors' kernel
inline constexpr int kActGroupSize = 16;    // 1x16 activation groups
inline constexpr float kDreMinVal = 1e-30f;  // QUANT_MIN_VAL of the expand kernel
inline constexpr float kMaxScaleEps = 1e-20f;  // the plain FP8 kernel's epsilon
inline constexpr float kActEps = 1e-10f;       // activation scale epsilon

enum class DreTarget {
  kAuthorsKernel,  // target range 448^2/2, k floored to a multiple of 1/expand_min
  kPaper,          // target range 448/2^-9 (E4M3's max/min subnormal), k unrounded
};
const char* DreTargetName(DreTarget t);  // "authors_kernel" | "paper"

struct DreOptions {
  DreTarget target = DreTarget::kAuthorsKernel;
  int expand_min = 16;                // k is a multiple of 1/expand_min (kAuthorsKernel)
  float k_if_ratio_is_one = 16.0f;    // R == 1 (log2 R = 0, the kernel's k = inf)
  float k_cap = INFINITY;             // the kernel has no cap; 16 = the old capped variant
  bool clamp_k_at_least_one = false;  // torchao's variant; the kernel does not clamp
  // The copy of the kernel in NVlabs/VILA (llava/model/coat/optimizer/kernels)
  // takes the minimum over ALL |x|, zeros included, with QUANT_MIN_VAL 1e-20:
  // a group holding one exact zero gets mu = 1e-20, a huge R and k << 1.
  // {min_includes_zeros = true, min_val = 1e-20f} emulates it.
  bool min_includes_zeros = false;
  float min_val = kDreMinVal;
};

// Per-group parameters stored beside the codes (3 x fp32 per group).
struct DreGroup {
  float scale = 0.0f;   // s
  float k = 0.0f;       // expansion exponent
  float center = 0.0f;  // c
};

struct DreTensor {
  int64_t size = 0;
  std::vector<uint8_t> codes;   // (size,) E4M3
  std::vector<DreGroup> groups;  // (ceil(size / 128),)
};

// DreParams()
//
// s, k, c of one group x (1 <= x.size() <= 128) as above.
DreGroup DreParams(std::span<const float> x, const DreOptions& opt);
// The same from a group's max|x| and its min|x| over the elements the
// minimum counts (nonzero ones, or all with min_includes_zeros; +inf when
// there is none): what DreParams computes after its scan, shared with the
// fast CPU path (suites/coat/coat_cpu.cpp) so that both give the same bits.
DreGroup DreParamsFromExtrema(float max_abs, float min_counted, const DreOptions& opt);

// DreEncodeGroup() / DreDecodeGroup()
//
// q = e4m3(sign(x)(|x|/c)^k / s) and back, for one group with given params.
void DreEncodeGroup(std::span<const float> x, const DreGroup& g, std::span<uint8_t> out);
void DreDecodeGroup(std::span<const uint8_t> q, const DreGroup& g, std::span<float> out);

DreTensor DreQuantize(std::span<const float> x, const DreOptions& opt = {});
std::vector<float> DreDequantize(const DreTensor& t);
void DreDequantizeInto(const DreTensor& t, std::span<float> out);

// Scaled FP8 tensor: code i belongs to group i / group_size, whose scale is
// scales[i / group_size]; x^ = Decode(code) * scale.
struct ScaledTensor {
  fp8::Format format = fp8::Format::kE4M3;
  int64_t group_size = 0;
  std::vector<uint8_t> codes;
  std::vector<float> scales;
};

// MaxScaleQuantize()
//
// Per-group max scaling with s = (max|x| + eps) / fp8_max, q = fp8(x / s).
// group_size >= x.size() gives per-tensor scaling.
ScaledTensor MaxScaleQuantize(std::span<const float> x, int64_t group_size, fp8::Format f,
                              float eps = kMaxScaleEps, bool bf16_scales = false);
std::vector<float> Dequantize(const ScaledTensor& t);

// Activation quantizers of §5.
ScaledTensor QuantizePerTensor(std::span<const float> x, fp8::Format f);
// 1x16 groups; each scale is rounded to bf16 BEFORE it divides x, so the bf16
// scale that is stored is exactly the one that was used.
ScaledTensor QuantizePerGroup16(std::span<const float> x, fp8::Format f);

// AbsMaxOneStage(): max|x| over the whole tensor (0 for an empty one).
// AbsMaxTwoStage(): fp32 max|x| per group of `group_size`, then the max of
// those; optionally returns the group maxima. Equal bit for bit to one stage.
float AbsMaxOneStage(std::span<const float> x);
float AbsMaxTwoStage(std::span<const float> x, int64_t group_size,
                     std::vector<float>* group_max = nullptr);

// Mean squared error, accumulated in fp64.
double Mse(std::span<const float> a, std::span<const float> b);

}  // namespace cb::ref::coat

#endif  // CB_REFERENCE_COAT_QUANT_H_
