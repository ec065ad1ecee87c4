// File: harness/backend.h
// -----------------------------------------------------------------------------
// The execution backends every method runs on (DESIGN §3): the CPU reference
// path and the CUDA path. A backend that cannot run here says why.
#ifndef CB_HARNESS_BACKEND_H_
#define CB_HARNESS_BACKEND_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cb::harness {

enum class Backend { kCpu, kCuda };

struct BackendStatus {
  bool ok = false;
  std::string reason;  // empty when ok, e.g. "built without CUDA"
};

// Whether `backend` can run on this machine, and if not, why:
// "built without CUDA", "no device: cudaErrorNoDevice",
// "insufficient driver: cudaErrorInsufficientDriver", ...
// The CUDA probe runs once per process.
BackendStatus Availability(Backend backend);

// Throws std::runtime_error("<backend> unavailable: <reason>") unless
// `backend` can run here: the first line of every method's dispatch.
void RequireAvailable(Backend backend);

// "cpu" / "cuda".
std::string_view BackendName(Backend backend);
std::optional<Backend> ParseBackend(std::string_view name);

// Every backend, available or not (tests instantiate over all of them so a
// missing backend shows up as a SKIP with its reason).
std::vector<Backend> AllBackends();

}  // namespace cb::harness

#endif  // CB_HARNESS_BACKEND_H_
