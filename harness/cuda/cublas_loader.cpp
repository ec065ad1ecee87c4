// File: harness/cuda/cublas_loader.cpp
// -----------------------------------------------------------------------------
// The cuBLAS and cuBLASLt entry points the project calls, defined here and
// forwarded to the libraries opened with dlopen on first use.
//
// Why: linking the libraries runs their static initialisers in every process
// at start. Measured on the CI machine (2-core EPYC, CUDA 13): an empty main()
// linked to libcublasLt.so.13 takes 0.49 s, unlinked 0.00 s; every test binary
// and every `claimbench` call paid it, ~1000 test processes per ctest run.
//
// The definitions below have the headers' exact signatures (the compiler
// checks them against cublas_v2.h and cublasLt.h, and they inherit the
// headers' C linkage); cublas_v2.h's macros turn cublasCreate into
// cublasCreate_v2, so the symbol looked up is the versioned one. A library
// that cannot be opened, or lacks a symbol, makes the call return
// CUBLAS_STATUS_NOT_INITIALIZED, and CublasLoadFailure() says why (the
// CB_CUBLAS_CHECK error carries it).
//
// The libraries are found by soname (LD_LIBRARY_PATH, the loader cache), then
// in the toolkit directory the build used (CB_CUDA_LIBRARY_DIR, from CMake).
// They are never closed.
#include "harness/cuda/cublas_loader.h"

#include <cublasLt.h>
#include <cublas_v2.h>
#include <dlfcn.h>

#include <mutex>
#include <string>
#include <vector>

#ifndef CB_CUBLAS_SOVERSION
#error "CB_CUBLAS_SOVERSION (the toolkit's major version) must be defined by the build"
#endif
#ifndef CB_CUDA_LIBRARY_DIR
#error "CB_CUDA_LIBRARY_DIR (the toolkit's library directory) must be defined by the build"
#endif

namespace cb::harness::cuda_internal {
namespace {

std::mutex failure_mutex;
std::string failure;  // guarded by failure_mutex

void NoteFailure(const std::string& why) {
  std::lock_guard<std::mutex> lock(failure_mutex);
  failure = why;
}

// dlopen's handle, or null after NoteFailure.
void* Open(const std::string& soname) {
  if (void* h = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL)) return h;
  const std::string by_name = dlerror();
  const std::string path = std::string(CB_CUDA_LIBRARY_DIR) + "/" + soname;
  if (void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) return h;
  NoteFailure("cannot open " + soname + " (" + by_name + "; " + dlerror() + ")");
  return nullptr;
}

void* Cublas() {
  static void* const handle = Open("libcublas.so." CB_CUBLAS_SOVERSION);
  return handle;
}

void* CublasLt() {
  static void* const handle = Open("libcublasLt.so." CB_CUBLAS_SOVERSION);
  return handle;
}

void* Symbol(void* library, const char* name) {
  if (library == nullptr) return nullptr;
  void* address = dlsym(library, name);
  if (address == nullptr) NoteFailure(std::string("the cuBLAS library has no ") + name);
  return address;
}

}  // namespace
}  // namespace cb::harness::cuda_internal

// X(library, function, parameters, arguments): one row per entry point.
#define CB_CUBLAS_ENTRY_POINTS(X)                                                                  \
  X(Cublas, cublasCreate, (cublasHandle_t * handle), (handle))                                    \
  X(Cublas, cublasDestroy, (cublasHandle_t handle), (handle))                                     \
  X(Cublas, cublasSetStream, (cublasHandle_t handle, cudaStream_t streamId), (handle, streamId))  \
  X(Cublas, cublasSetMathMode, (cublasHandle_t handle, cublasMath_t mode), (handle, mode))        \
  X(Cublas, cublasSgemv,                                                                          \
    (cublasHandle_t handle, cublasOperation_t trans, int m, int n, const float* alpha,            \
     const float* A, int lda, const float* x, int incx, const float* beta, float* y, int incy),   \
    (handle, trans, m, n, alpha, A, lda, x, incx, beta, y, incy))                                 \
  X(Cublas, cublasSgemm,                                                                          \
    (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,      \
     int k, const float* alpha, const float* A, int lda, const float* B, int ldb,                 \
     const float* beta, float* C, int ldc),                                                       \
    (handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc))                       \
  X(Cublas, cublasSgemmStridedBatched,                                                            \
    (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,      \
     int k, const float* alpha, const float* A, int lda, long long int strideA, const float* B,   \
     int ldb, long long int strideB, const float* beta, float* C, int ldc,                        \
     long long int strideC, int batchCount),                                                      \
    (handle, transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB, beta, C, ldc,      \
     strideC, batchCount))                                                                        \
  X(Cublas, cublasGemmEx,                                                                         \
    (cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, int m, int n,      \
     int k, const void* alpha, const void* A, cudaDataType Atype, int lda, const void* B,         \
     cudaDataType Btype, int ldb, const void* beta, void* C, cudaDataType Ctype, int ldc,         \
     cublasComputeType_t computeType, cublasGemmAlgo_t algo),                                     \
    (handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc,   \
     computeType, algo))                                                                          \
  X(CublasLt, cublasLtCreate, (cublasLtHandle_t * lightHandle), (lightHandle))                    \
  X(CublasLt, cublasLtDestroy, (cublasLtHandle_t lightHandle), (lightHandle))                     \
  X(CublasLt, cublasLtMatmulDescCreate,                                                           \
    (cublasLtMatmulDesc_t * matmulDesc, cublasComputeType_t computeType,                          \
     cudaDataType_t scaleType),                                                                   \
    (matmulDesc, computeType, scaleType))                                                         \
  X(CublasLt, cublasLtMatmulDescDestroy, (cublasLtMatmulDesc_t matmulDesc), (matmulDesc))         \
  X(CublasLt, cublasLtMatmulDescSetAttribute,                                                     \
    (cublasLtMatmulDesc_t matmulDesc, cublasLtMatmulDescAttributes_t attr, const void* buf,       \
     size_t sizeInBytes),                                                                         \
    (matmulDesc, attr, buf, sizeInBytes))                                                         \
  X(CublasLt, cublasLtMatrixLayoutCreate,                                                         \
    (cublasLtMatrixLayout_t * matLayout, cudaDataType type, uint64_t rows, uint64_t cols,         \
     int64_t ld),                                                                                 \
    (matLayout, type, rows, cols, ld))                                                            \
  X(CublasLt, cublasLtMatrixLayoutDestroy, (cublasLtMatrixLayout_t matLayout), (matLayout))       \
  X(CublasLt, cublasLtMatmulPreferenceCreate, (cublasLtMatmulPreference_t * pref), (pref))        \
  X(CublasLt, cublasLtMatmulPreferenceDestroy, (cublasLtMatmulPreference_t pref), (pref))         \
  X(CublasLt, cublasLtMatmulPreferenceSetAttribute,                                               \
    (cublasLtMatmulPreference_t pref, cublasLtMatmulPreferenceAttributes_t attr, const void* buf, \
     size_t sizeInBytes),                                                                         \
    (pref, attr, buf, sizeInBytes))                                                               \
  X(CublasLt, cublasLtMatmulAlgoGetHeuristic,                                                     \
    (cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t operationDesc,                            \
     cublasLtMatrixLayout_t Adesc, cublasLtMatrixLayout_t Bdesc, cublasLtMatrixLayout_t Cdesc,    \
     cublasLtMatrixLayout_t Ddesc, cublasLtMatmulPreference_t preference,                         \
     int requestedAlgoCount, cublasLtMatmulHeuristicResult_t heuristicResultsArray[],             \
     int* returnAlgoCount),                                                                       \
    (lightHandle, operationDesc, Adesc, Bdesc, Cdesc, Ddesc, preference, requestedAlgoCount,      \
     heuristicResultsArray, returnAlgoCount))                                                     \
  X(CublasLt, cublasLtMatmul,                                                                     \
    (cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc, const void* alpha,           \
     const void* A, cublasLtMatrixLayout_t Adesc, const void* B, cublasLtMatrixLayout_t Bdesc,    \
     const void* beta, const void* C, cublasLtMatrixLayout_t Cdesc, void* D,                      \
     cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t* algo, void* workspace,             \
     size_t workspaceSizeInBytes, cudaStream_t stream),                                           \
    (lightHandle, computeDesc, alpha, A, Adesc, B, Bdesc, beta, C, Cdesc, D, Ddesc, algo,         \
     workspace, workspaceSizeInBytes, stream))

// Two levels, so that a name cublas_v2.h redefines is spelled as the symbol
// the library exports ("cublasCreate_v2").
#define CB_SYMBOL_NAME(function) CB_SYMBOL_NAME_(function)
#define CB_SYMBOL_NAME_(function) #function

#define CB_DEFINE_FORWARDER(library, function, parameters, arguments)                       \
  cublasStatus_t CUBLASWINAPI function parameters {                                         \
    using Fn = cublasStatus_t(*) parameters;                                                \
    static const Fn target = reinterpret_cast<Fn>(                                          \
        cb::harness::cuda_internal::Symbol(cb::harness::cuda_internal::library(),           \
                                           CB_SYMBOL_NAME(function)));                     \
    if (target == nullptr) return CUBLAS_STATUS_NOT_INITIALIZED;                            \
    return target arguments;                                                                \
  }

CB_CUBLAS_ENTRY_POINTS(CB_DEFINE_FORWARDER)

namespace cb::harness::cuda_internal {

std::string CublasLoadFailure() {
  std::lock_guard<std::mutex> lock(failure_mutex);
  return failure;
}

std::vector<std::string> UnresolvedCublasEntryPoints() {
  std::vector<std::string> missing;
#define CB_CHECK_ENTRY_POINT(library, function, parameters, arguments) \
  if (Symbol(library(), CB_SYMBOL_NAME(function)) == nullptr) missing.push_back(CB_SYMBOL_NAME(function));
  CB_CUBLAS_ENTRY_POINTS(CB_CHECK_ENTRY_POINT)
#undef CB_CHECK_ENTRY_POINT
  return missing;
}

}  // namespace cb::harness::cuda_internal
