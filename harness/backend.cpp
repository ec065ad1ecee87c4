// File: harness/backend.cpp
#include "harness/backend.h"

#include <stdexcept>

#if CB_HAVE_CUDA
#include "harness/cuda/probe.h"
#endif

namespace cb::harness {

void RequireAvailable(Backend backend) {
  const BackendStatus status = Availability(backend);
  if (!status.ok) {
    throw std::runtime_error(std::string(BackendName(backend)) + " unavailable: " + status.reason);
  }
}

BackendStatus Availability(Backend backend) {
  switch (backend) {
    case Backend::kCpu:
      return {true, ""};
    case Backend::kCuda: {
#if CB_HAVE_CUDA
      static const BackendStatus status = [] {
        const std::string reason = cuda_internal::ProbeCuda();
        return BackendStatus{reason.empty(), reason};
      }();
      return status;
#else
      return {false, "built without CUDA"};
#endif
    }
  }
  return {false, "unknown backend"};
}

std::string_view BackendName(Backend backend) {
  return backend == Backend::kCpu ? "cpu" : "cuda";
}

std::optional<Backend> ParseBackend(std::string_view name) {
  if (name == "cpu") return Backend::kCpu;
  if (name == "cuda") return Backend::kCuda;
  return std::nullopt;
}

std::vector<Backend> AllBackends() { return {Backend::kCpu, Backend::kCuda}; }

}  // namespace cb::harness
