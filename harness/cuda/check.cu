// File: harness/cuda/check.cu
// -----------------------------------------------------------------------------
// Out-of-line halves of the CB_CUDA_CHECK family (harness/cuda/check.h): the
// throw and report paths are cold, so they stay out of every call site.
//
// cuBLAS status names come from our own switch rather than
// cublasGetStatusName(), so that naming an error never opens libcublas.so
// (harness/cuda/cublas_loader.h).
#include "harness/cuda/check.h"

#include "harness/cuda/cublas_loader.h"

#include <cublas_api.h>

#include <cstdio>
#include <string>

namespace cb::harness::cuda_internal {

void ThrowCudaError(const char* file, int line, const char* expr, cudaError_t code) {
  throw CudaError(file, line, expr, static_cast<int>(code), cudaGetErrorName(code),
                  cudaGetErrorString(code));
}

namespace {

const char* CublasStatusName(int status) {
  switch (static_cast<cublasStatus_t>(status)) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
  }
  return "CUBLAS_STATUS_UNKNOWN";
}

}  // namespace

void ThrowCublasError(const char* file, int line, const char* expr, int status) {
  // NOT_INITIALIZED is also what a library that could not be opened returns.
  const std::string why = status == CUBLAS_STATUS_NOT_INITIALIZED ? CublasLoadFailure() : "";
  throw CudaError(file, line, expr, status, CublasStatusName(status), why);
}

void ReportCudaError(const char* file, int line, const char* expr, cudaError_t code) noexcept {
  std::fprintf(stderr, "%s:%d: %s failed: %s (%d): %s\n", file, line, expr,
               cudaGetErrorName(code), static_cast<int>(code), cudaGetErrorString(code));
}

}  // namespace cb::harness::cuda_internal
