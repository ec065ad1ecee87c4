// File: suites/coat/coat.h
// -----------------------------------------------------------------------------
// Host dispatch of COAT's quantizers (Xi et al., ICLR 2025) on a backend:
//   EncodeFp8        fp32 -> FP8 codes (saturating RNE; reference/fp8.h)
//   DreQuantize      Dynamic Range Expansion per 1x128 group (reference/coat/quant.h)
//   DreDequantize    and back
//   QuantizeGroup16  1x16 activation groups with bf16 scales
// The CPU path is coat_cpu.cpp's vectorised code: bit-identical to the
// reference for FP8 encodes and 1x16 quantization; for DRE, libmvec's
// log2/exp2 replace two powf per element (codes equal to the reference's
// except for values within a few ulp of an FP8 rounding boundary).
// The CUDA path (coat.cu) uses
// cuda_fp8.h's __nv_cvt_float_to_fp8 (cvt.rn.satfinite on sm_89+), one block
// per 128-group for DRE. Host-only: never includes cuda_runtime.h.
#ifndef CB_SUITES_COAT_COAT_H_
#define CB_SUITES_COAT_COAT_H_

#include <cstdint>
#include <span>
#include <vector>

#include "harness/backend.h"
#include "reference/coat/quant.h"
#include "reference/fp8.h"

namespace cb::coat {

// Each throws std::runtime_error naming the backend and the reason when the
// backend is unavailable, and cb::harness::CudaError on a CUDA failure.
std::vector<uint8_t> EncodeFp8(harness::Backend b, std::span<const float> x, ref::fp8::Format f);
ref::coat::DreTensor DreQuantize(harness::Backend b, std::span<const float> x,
                                 const ref::coat::DreOptions& opt = {});
std::vector<float> DreDequantize(harness::Backend b, const ref::coat::DreTensor& t);
ref::coat::ScaledTensor QuantizeGroup16(harness::Backend b, std::span<const float> x,
                                        ref::fp8::Format f);

// The fast CPU DRE path (AVX2+FMA; the reference on other CPUs or with
// use_simd = false, which tests use to reach that fallback).
ref::coat::DreTensor DreQuantizeCpu(std::span<const float> x, const ref::coat::DreOptions& opt,
                                    bool use_simd = true);
// REQUIRES: out.size() == t.size (else std::invalid_argument).
void DreDequantizeCpu(const ref::coat::DreTensor& t, std::span<float> out, bool use_simd = true);

// E4M3 encode / decode on 8 lanes (AVX2), bit-identical to reference/fp8.
void EncodeE4M3Cpu(std::span<const float> in, std::span<uint8_t> out, bool use_simd = true);
void DecodeE4M3Cpu(std::span<const uint8_t> in, std::span<float> out, bool use_simd = true);
// 1x16 activation quantization and scaled-tensor dequantization, the same
// bits as ref::coat::QuantizePerGroup16 / Dequantize (vectorised for E4M3,
// the reference for E5M2).
ref::coat::ScaledTensor QuantizeGroup16Cpu(std::span<const float> x, ref::fp8::Format f, bool use_simd = true);
std::vector<float> DequantizeCpu(const ref::coat::ScaledTensor& t, bool use_simd = true);

// FP8 (E4M3 x E4M3 -> BF16, cuBLASLt) vs BF16 (BF16 x BF16 -> BF16) GEMM time
// for D (m, n) = A (m, k) B (k, n), median of `repetitions` event timings.
struct GemmComparison {
  double fp8_seconds = 0, bf16_seconds = 0;
  std::vector<double> fp8_samples, bf16_samples;
};

#if CB_HAVE_CUDA
std::vector<uint8_t> EncodeFp8Cuda(std::span<const float> x, ref::fp8::Format f);
ref::coat::DreTensor DreQuantizeCuda(std::span<const float> x, const ref::coat::DreOptions& opt);
std::vector<float> DreDequantizeCuda(const ref::coat::DreTensor& t);
ref::coat::ScaledTensor QuantizeGroup16Cuda(std::span<const float> x, ref::fp8::Format f);
// Throws CudaError (e.g. CUBLAS_STATUS_NOT_SUPPORTED before sm_89).
GemmComparison CompareGemmCuda(int64_t m, int64_t n, int64_t k, int repetitions);
// Bandwidth of DRE quantize + dequantize on the device: seconds per call each.
struct DreKernelTiming {
  std::vector<double> quantize_samples, dequantize_samples;
};
DreKernelTiming TimeDreCuda(int64_t n, int repetitions);
#endif

}  // namespace cb::coat

#endif  // CB_SUITES_COAT_COAT_H_
