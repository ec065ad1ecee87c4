// File: harness/cuda/cublas_loader.h
// -----------------------------------------------------------------------------
// cuBLAS and cuBLASLt are opened on first use (harness/cuda/cublas_loader.cpp)
// instead of linked: a process linked to libcublasLt.so pays ~0.5 s at start
// for the library's static initialisers whether or not it touches a GPU.
// Call sites use the ordinary cuBLAS API; these two functions are for the
// error path and the loader's own test.
#ifndef CB_HARNESS_CUDA_CUBLAS_LOADER_H_
#define CB_HARNESS_CUDA_CUBLAS_LOADER_H_

#include <string>
#include <vector>

namespace cb::harness::cuda_internal {

// Why the last cuBLAS call returned CUBLAS_STATUS_NOT_INITIALIZED without
// reaching the library (it could not be opened, or lacks the entry point);
// empty when every load so far succeeded.
std::string CublasLoadFailure();

// Opens both libraries and resolves every entry point the project calls;
// returns the names that did not resolve (empty on a complete toolkit).
std::vector<std::string> UnresolvedCublasEntryPoints();

}  // namespace cb::harness::cuda_internal

#endif  // CB_HARNESS_CUDA_CUBLAS_LOADER_H_
