// File: suites/coat/coat_cuda.h
// -----------------------------------------------------------------------------
// The CUDA side of the COAT path, private to the suite: called by the
// dispatchers in coat.cpp (and by this suite's
// benchmarks, tests and claims that time the device alone); users call the
// public Fn(Backend, ...) in suites/coat/coat.h. CUDA builds only.
#ifndef CB_SUITES_COAT_COAT_CUDA_H_
#define CB_SUITES_COAT_COAT_CUDA_H_

#include "suites/coat/coat.h"

#if CB_HAVE_CUDA

namespace cb::coat {

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

}  // namespace cb::coat

#endif  // CB_HAVE_CUDA

#endif  // CB_SUITES_COAT_COAT_CUDA_H_
