// File: harness/cuda_error.h
// -----------------------------------------------------------------------------
// CudaError: the exception every failed CUDA runtime or cuBLAS call becomes
// (DESIGN §3). It lives in its own host-safe header, with no CUDA include, so
// host code (tests, the runner, benchmarks) can catch it and record the failed
// row; the macros that throw it are in harness/cuda/check.h (for .cu files).
//
// Header-only on purpose: cb_harness_cuda throws it but does not link
// cb_harness, so an out-of-line constructor there would be an unresolved
// symbol for the static link order cb_harness -> cb_harness_cuda.
#ifndef CB_HARNESS_CUDA_ERROR_H_
#define CB_HARNESS_CUDA_ERROR_H_

#include <stdexcept>
#include <string>
#include <utility>

namespace cb::harness {

class CudaError : public std::runtime_error {
 public:
  // `code` is the cudaError_t (or cublasStatus_t) value as an int and `name`
  // its symbolic name ("cudaErrorInvalidConfiguration"); `description` is the
  // library's one-line explanation, appended to what().
  CudaError(std::string file, int line, std::string expr, int code, std::string name,
            const std::string& description = "")
      : std::runtime_error(Format(file, line, expr, code, name, description)),
        file_(std::move(file)),
        line_(line),
        expr_(std::move(expr)),
        code_(code),
        name_(std::move(name)) {}

  const std::string& file() const { return file_; }
  int line() const { return line_; }
  // The failing expression as written at the call site.
  const std::string& expr() const { return expr_; }
  int code() const { return code_; }
  const std::string& name() const { return name_; }

 private:
  static std::string Format(const std::string& file, int line, const std::string& expr, int code,
                            const std::string& name, const std::string& description) {
    std::string msg = file + ":" + std::to_string(line) + ": " + expr + " failed: " + name +
                      " (" + std::to_string(code) + ")";
    if (!description.empty()) msg += ": " + description;
    return msg;
  }

  std::string file_;
  int line_;
  std::string expr_;
  int code_;
  std::string name_;
};

}  // namespace cb::harness

namespace cb {
// DESIGN §3 spells it cb::CudaError; both names refer to the same type.
using harness::CudaError;
}  // namespace cb

#endif  // CB_HARNESS_CUDA_ERROR_H_
