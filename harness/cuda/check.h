// File: harness/cuda/check.h
// -----------------------------------------------------------------------------
// Error checks for CUDA code (DESIGN §3; the pattern is nvbench's
// NVBENCH_CUDA_CALL). For .cu files only: it includes cuda_runtime.h. Host
// code catches cb::harness::CudaError from harness/cuda_error.h instead.
//
//   CB_CUDA_CHECK(cudaMalloc(&p, bytes));   // throws CudaError on failure
//   my_kernel<<<grid, block, 0, stream>>>(...);
//   CB_CUDA_CHECK_LAUNCH();                  // every launch is followed by this
//   CB_CUDA_CHECK_NOEXCEPT(cudaFree(p));     // destructors: report, never throw
//   CB_CUBLAS_CHECK(cublasSgemm(...));       // cuBLAS status, same exception
//
// On failure the sticky-error slot is cleared with cudaGetLastError() before
// throwing, so one failed call does not make the next, unrelated check fail
// too. (A real sticky error, e.g. an illegal address inside a kernel, stays:
// the context is dead and every later call reports it again, which is right.)
#ifndef CB_HARNESS_CUDA_CHECK_H_
#define CB_HARNESS_CUDA_CHECK_H_

#include <cuda_runtime.h>

#include "harness/cuda_error.h"

namespace cb::harness::cuda_internal {

// Throws CudaError{file, line, expr, code, cudaGetErrorName(code)}.
// REQUIRES: code != cudaSuccess.
[[noreturn]] void ThrowCudaError(const char* file, int line, const char* expr, cudaError_t code);

// Throws CudaError with cuBLAS's status name ("CUBLAS_STATUS_NOT_SUPPORTED").
// `status` is a cublasStatus_t as an int, so this header needs no cuBLAS include.
[[noreturn]] void ThrowCublasError(const char* file, int line, const char* expr, int status);

// Prints "file:line: expr failed: name (code): description" to stderr; for
// destructors and other places that must not throw.
void ReportCudaError(const char* file, int line, const char* expr, cudaError_t code) noexcept;

}  // namespace cb::harness::cuda_internal

#define CB_CUDA_CHECK(expr)                                                          \
  do {                                                                               \
    const cudaError_t cb_cuda_check_status_ = (expr);                                \
    if (cb_cuda_check_status_ != cudaSuccess) {                                      \
      cudaGetLastError();                                                            \
      ::cb::harness::cuda_internal::ThrowCudaError(__FILE__, __LINE__, #expr,        \
                                                   cb_cuda_check_status_);           \
    }                                                                                \
  } while (false)

// A launch reports configuration errors (bad grid/block, too much shared
// memory) only through cudaGetLastError(), which also clears them.
#define CB_CUDA_CHECK_LAUNCH()                                                       \
  do {                                                                               \
    const cudaError_t cb_cuda_launch_status_ = cudaGetLastError();                   \
    if (cb_cuda_launch_status_ != cudaSuccess) {                                     \
      ::cb::harness::cuda_internal::ThrowCudaError(__FILE__, __LINE__,               \
                                                   "kernel launch",                  \
                                                   cb_cuda_launch_status_);          \
    }                                                                                \
  } while (false)

#define CB_CUDA_CHECK_NOEXCEPT(expr)                                                 \
  do {                                                                               \
    const cudaError_t cb_cuda_check_status_ = (expr);                                \
    if (cb_cuda_check_status_ != cudaSuccess) {                                      \
      cudaGetLastError();                                                            \
      ::cb::harness::cuda_internal::ReportCudaError(__FILE__, __LINE__, #expr,       \
                                                    cb_cuda_check_status_);          \
    }                                                                                \
  } while (false)

#define CB_CUBLAS_CHECK(expr)                                                        \
  do {                                                                               \
    const int cb_cublas_check_status_ = static_cast<int>(expr);                      \
    if (cb_cublas_check_status_ != 0 /* CUBLAS_STATUS_SUCCESS */) {                  \
      ::cb::harness::cuda_internal::ThrowCublasError(__FILE__, __LINE__, #expr,      \
                                                     cb_cublas_check_status_);       \
    }                                                                                \
  } while (false)

#endif  // CB_HARNESS_CUDA_CHECK_H_
