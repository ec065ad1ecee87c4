// File: harness/cuda/ceilings_gpu.h
// -----------------------------------------------------------------------------
// Host-callable GPU ceiling measurements (harness/cuda/ceilings_gpu.cu, CUDA
// builds only); host code uses MeasureGpuCeilings() in harness/ceilings.h.
// Plain structs, no JSON: cb_harness_cuda does not link nlohmann_json.
#ifndef CB_HARNESS_CUDA_CEILINGS_GPU_H_
#define CB_HARNESS_CUDA_CEILINGS_GPU_H_

#include <string>
#include <utility>
#include <vector>

namespace cb::harness::cuda_internal {

// The raw measurement; the host (harness/ceilings.cpp) turns it into a
// CeilingMeasurement, taking the best sample as the value, exactly as it does
// for the CPU ceilings.
struct GpuCeiling {
  std::string name;             // "gpu_copy_bandwidth", "gpu_sgemm", "gpu_bf16_gemm"
  std::string unit;             // "GB/s" or "TFLOP/s"
  int warmup = 0;               // untimed calls before the samples
  std::vector<double> samples;  // every timed repetition, in `unit`
  std::vector<std::pair<std::string, double>> numbers;       // sizes, counts
  std::vector<std::pair<std::string, std::string>> strings;  // device, method
};

// REQUIRES: a usable CUDA device (Availability(kCuda).ok). Uses device 0.
// Throws CudaError on any CUDA or cuBLAS failure, and std::runtime_error when
// a GEMM's spot check against fp64 dot products on the host fails.
std::vector<GpuCeiling> MeasureGpuCeilingsCuda(bool quick);

}  // namespace cb::harness::cuda_internal

#endif  // CB_HARNESS_CUDA_CEILINGS_GPU_H_
