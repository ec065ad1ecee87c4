// File: harness/energy.cpp
// -----------------------------------------------------------------------------
// NVML (dlopen) and RAPL (powercap sysfs) meters and the measurement windows
// of harness/energy.h.
#include "harness/energy.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string_view>
#include <thread>

namespace cb::harness {
namespace {

// ---------------------------------------------------------------------------
// NVML, declared by hand: the few entry points we call, with the types of
// nvml.h (nvmlReturn_t and nvmlClockType_t are C enums, i.e. int; nvmlDevice_t
// is an opaque pointer). Keeping nvml.h out means nothing at build time
// depends on the driver.

using NvmlReturn = int;
using NvmlDevice = void*;
constexpr NvmlReturn kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;  // NVML_CLOCK_SM

struct NvmlLib {
  NvmlReturn (*init)() = nullptr;                                   // nvmlInit_v2
  NvmlReturn (*handle_by_index)(unsigned, NvmlDevice*) = nullptr;   // nvmlDeviceGetHandleByIndex_v2
  NvmlReturn (*total_energy)(NvmlDevice, unsigned long long*) = nullptr;  // mJ
  NvmlReturn (*clock_info)(NvmlDevice, int, unsigned*) = nullptr;   // MHz
  const char* (*error_string)(NvmlReturn) = nullptr;
  // Optional (facts for the fingerprint); absent symbols stay null.
  NvmlReturn (*device_count)(unsigned*) = nullptr;                  // nvmlDeviceGetCount_v2
  NvmlReturn (*driver_version)(char*, unsigned) = nullptr;          // nvmlSystemGetDriverVersion
  NvmlReturn (*uuid)(NvmlDevice, char*, unsigned) = nullptr;        // nvmlDeviceGetUUID
  NvmlReturn (*vbios)(NvmlDevice, char*, unsigned) = nullptr;       // nvmlDeviceGetVbiosVersion
  NvmlReturn (*power_limit)(NvmlDevice, unsigned*) = nullptr;       // nvmlDeviceGetEnforcedPowerLimit, mW
  std::string unavailable;  // empty once loaded and initialised

  std::string Error(NvmlReturn r) const {
    const char* s = error_string != nullptr ? error_string(r) : nullptr;
    return s != nullptr ? std::string(s) : "NVML error " + std::to_string(r);
  }
};

template <typename Fn>
bool Bind(void* handle, const char* symbol, Fn* fn) {
  *fn = reinterpret_cast<Fn>(dlsym(handle, symbol));
  return *fn != nullptr;
}

NvmlLib LoadNvml() {
  NvmlLib lib;
  // Never dlclose'd and never nvmlShutdown'd: NVML stays initialised for the
  // life of the process, so meters and clock reads cost no re-initialisation.
  void* handle = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* detail = dlerror();
    lib.unavailable = std::string("unavailable: libnvidia-ml.so.1 not found (") +
                      (detail != nullptr ? detail : "dlopen failed") + ")";
    return lib;
  }
  const bool complete = Bind(handle, "nvmlInit_v2", &lib.init) &&
                        Bind(handle, "nvmlDeviceGetHandleByIndex_v2", &lib.handle_by_index) &&
                        Bind(handle, "nvmlDeviceGetTotalEnergyConsumption", &lib.total_energy) &&
                        Bind(handle, "nvmlDeviceGetClockInfo", &lib.clock_info) &&
                        Bind(handle, "nvmlErrorString", &lib.error_string);
  if (!complete) {
    lib.unavailable = "unavailable: libnvidia-ml.so.1 lacks a required symbol (driver too old)";
    return lib;
  }
  Bind(handle, "nvmlDeviceGetCount_v2", &lib.device_count);
  Bind(handle, "nvmlSystemGetDriverVersion", &lib.driver_version);
  Bind(handle, "nvmlDeviceGetUUID", &lib.uuid);
  Bind(handle, "nvmlDeviceGetVbiosVersion", &lib.vbios);
  Bind(handle, "nvmlDeviceGetEnforcedPowerLimit", &lib.power_limit);
  const NvmlReturn r = lib.init();
  if (r != kNvmlSuccess) lib.unavailable = "unavailable: nvmlInit_v2 failed: " + lib.Error(r);
  return lib;
}

const NvmlLib& Nvml() {
  static const NvmlLib lib = LoadNvml();
  return lib;
}

// Device handle for `index`, or a reason.
std::optional<NvmlDevice> NvmlHandle(int index, std::string* reason) {
  const NvmlLib& lib = Nvml();
  if (!lib.unavailable.empty()) {
    *reason = lib.unavailable;
    return std::nullopt;
  }
  NvmlDevice device = nullptr;
  const NvmlReturn r = lib.handle_by_index(static_cast<unsigned>(index), &device);
  if (r != kNvmlSuccess) {
    *reason = "unavailable: nvmlDeviceGetHandleByIndex_v2(" + std::to_string(index) +
              ") failed: " + lib.Error(r);
    return std::nullopt;
  }
  return device;
}

// ---------------------------------------------------------------------------
// sysfs reads with errno, so "permission denied" (RAPL is root-only since
// Linux 5.10, CVE-2020-8694) is told apart from "absent".

std::optional<std::string> ReadSmallFile(const std::string& path, std::string* error) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    *error = (e == EACCES || e == EPERM)
                 ? "permission denied reading " + path + " (RAPL is root-only since Linux 5.10)"
                 : "cannot open " + path + ": " + std::strerror(e);
    return std::nullopt;
  }
  std::string text;
  char buf[256];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0) {
      const int e = errno;
      if (e == EINTR) continue;
      close(fd);
      *error = (e == EACCES || e == EPERM) ? "permission denied reading " + path
                                           : "cannot read " + path + ": " + std::strerror(e);
      return std::nullopt;
    }
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

std::optional<int64_t> ReadInt64File(const std::string& path, std::string* error) {
  const auto text = ReadSmallFile(path, error);
  if (!text) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long long v = std::strtoll(text->c_str(), &end, 10);
  if (text->empty() || errno != 0 || *end != '\0' || v < 0) {
    *error = "not a non-negative integer in " + path + ": '" + *text + "'";
    return std::nullopt;
  }
  return static_cast<int64_t>(v);
}

// "intel-rapl:<digits>" exactly: a top-level (package/psys) zone, not a
// subzone "intel-rapl:0:1" and not the duplicate "intel-rapl-mmio:0".
bool IsTopLevelRaplZone(const std::string& name) {
  static constexpr std::string_view kPrefix = "intel-rapl:";
  if (name.size() <= kPrefix.size() || name.compare(0, kPrefix.size(), kPrefix) != 0) return false;
  return std::all_of(name.begin() + kPrefix.size(), name.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

// ---------------------------------------------------------------------------
// NvmlMeter

NvmlMeter::NvmlMeter(int nvml_index) {
  const auto device = NvmlHandle(nvml_index, &unavailable_);
  if (!device) return;
  device_ = *device;
  // A trial read: pre-Volta parts and some virtualised GPUs answer
  // NOT_SUPPORTED, which must surface as "unavailable", not as a failed run.
  unsigned long long mj = 0;
  const NvmlReturn r = Nvml().total_energy(device_, &mj);
  if (r != kNvmlSuccess) {
    unavailable_ = "unavailable: nvmlDeviceGetTotalEnergyConsumption failed: " + Nvml().Error(r);
    device_ = nullptr;
  }
}

std::optional<double> NvmlMeter::ReadJoules() {
  if (!unavailable_.empty()) {
    last_error_ = unavailable_;
    return std::nullopt;
  }
  unsigned long long mj = 0;  // 64-bit millijoules since driver load: no wrap in practice
  const NvmlReturn r = Nvml().total_energy(device_, &mj);
  if (r != kNvmlSuccess) {
    last_error_ = "nvmlDeviceGetTotalEnergyConsumption failed: " + Nvml().Error(r);
    return std::nullopt;
  }
  last_error_.clear();
  return static_cast<double>(mj) / 1000.0;
}

std::optional<int> CurrentSmClockMhz(int nvml_index, std::string* reason) {
  std::string why;
  const auto device = NvmlHandle(nvml_index, &why);
  if (device) {
    unsigned mhz = 0;
    const NvmlReturn r = Nvml().clock_info(*device, kNvmlClockSm, &mhz);
    if (r == kNvmlSuccess) return static_cast<int>(mhz);
    why = "unavailable: nvmlDeviceGetClockInfo failed: " + Nvml().Error(r);
  }
  if (reason != nullptr) *reason = why;
  return std::nullopt;
}

std::optional<NvmlFacts> QueryNvmlFacts(std::string* reason) {
  const NvmlLib& lib = Nvml();
  auto fail = [&](std::string why) -> std::optional<NvmlFacts> {
    if (reason != nullptr) *reason = std::move(why);
    return std::nullopt;
  };
  if (!lib.unavailable.empty()) return fail(lib.unavailable);
  if (lib.device_count == nullptr) return fail("unavailable: NVML lacks nvmlDeviceGetCount_v2");
  NvmlFacts facts;
  char buf[96];
  if (lib.driver_version != nullptr && lib.driver_version(buf, sizeof(buf)) == kNvmlSuccess) {
    facts.driver_version = buf;
  }
  unsigned count = 0;
  const NvmlReturn r = lib.device_count(&count);
  if (r != kNvmlSuccess) return fail("unavailable: nvmlDeviceGetCount_v2 failed: " + lib.Error(r));
  for (unsigned i = 0; i < count; ++i) {
    NvmlDevice device = nullptr;
    if (lib.handle_by_index(i, &device) != kNvmlSuccess) continue;
    NvmlDeviceFacts d;
    if (lib.uuid != nullptr && lib.uuid(device, buf, sizeof(buf)) == kNvmlSuccess) d.uuid = buf;
    if (lib.vbios != nullptr && lib.vbios(device, buf, sizeof(buf)) == kNvmlSuccess) d.vbios = buf;
    unsigned mw = 0;
    if (lib.power_limit != nullptr && lib.power_limit(device, &mw) == kNvmlSuccess) {
      d.power_limit_mw = mw;
    }
    facts.devices.push_back(std::move(d));
  }
  return facts;
}

// ---------------------------------------------------------------------------
// RaplMeter

RaplMeter::RaplMeter(std::string root) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    unavailable_ = "unavailable: no powercap at " + root;
    return;
  }
  std::vector<std::string> zones;
  for (const auto& entry : fs::directory_iterator(root, ec)) {
    const std::string name = entry.path().filename().string();
    if (IsTopLevelRaplZone(name)) zones.push_back(entry.path().string());
  }
  if (ec) {
    unavailable_ = "unavailable: cannot list " + root + ": " + ec.message();
    return;
  }
  std::sort(zones.begin(), zones.end());  // stable order for Domains()
  std::string error;
  for (const std::string& zone : zones) {
    const auto kind = ReadSmallFile(zone + "/name", &error);
    if (!kind) {
      unavailable_ = "unavailable: " + error;
      return;
    }
    if (kind->rfind("package", 0) != 0) continue;  // psys would double count
    const auto range = ReadInt64File(zone + "/max_energy_range_uj", &error);
    const auto raw = range ? ReadInt64File(zone + "/energy_uj", &error) : std::nullopt;
    if (!raw) {
      unavailable_ = "unavailable: " + error;
      domains_.clear();
      return;
    }
    if (*range <= 0) {
      unavailable_ = "unavailable: zero max_energy_range_uj in " + zone;
      domains_.clear();
      return;
    }
    domains_.push_back({zone, *range, *raw});
  }
  if (domains_.empty()) {
    unavailable_ = "unavailable: no RAPL package domains under " + root;
    return;
  }
  last_read_ = std::chrono::steady_clock::now();
}

std::vector<std::string> RaplMeter::Domains() const {
  std::vector<std::string> paths;
  for (const Domain& d : domains_) paths.push_back(d.path);
  return paths;
}

std::optional<double> RaplMeter::ReadJoules() {
  if (!unavailable_.empty()) {
    last_error_ = unavailable_;
    return std::nullopt;
  }
  // Read every domain before committing any, so a failed read leaves the
  // meter's state as it was.
  std::vector<int64_t> raws;
  raws.reserve(domains_.size());
  for (const Domain& d : domains_) {
    const auto raw = ReadInt64File(d.path + "/energy_uj", &last_error_);
    if (!raw) return std::nullopt;
    raws.push_back(*raw);
  }
  for (size_t i = 0; i < domains_.size(); ++i) {
    Domain& d = domains_[i];
    int64_t delta = raws[i] - d.last_raw_uj;
    if (delta < 0) delta += d.max_range_uj;  // the counter wrapped once since the last read
    accumulated_uj_ += delta;
    d.last_raw_uj = raws[i];
  }
  last_read_ = std::chrono::steady_clock::now();
  last_error_.clear();
  return static_cast<double>(accumulated_uj_) / 1e6;
}

void RaplMeter::Poll() {
  if (!unavailable_.empty()) return;
  if (SecondsSince(last_read_) < kPollIntervalSeconds) return;
  // A failed poll is not fatal: the edge read reports it.
  ReadJoules();
}

std::unique_ptr<EnergyMeter> MakeEnergyMeter(Backend backend) {
  if (backend == Backend::kCuda) return std::make_unique<NvmlMeter>();
  return std::make_unique<RaplMeter>();
}

// ---------------------------------------------------------------------------
// Windows

std::optional<double> EnergyWindow::watts() const {
  if (!total_joules || seconds <= 0.0) return std::nullopt;
  return *total_joules / seconds;
}

namespace {

// Both windows: unless the meter is unavailable, sync, read, run `body`
// (which returns the iterations it ran), sync, read. A failed first read ends
// the window at once, before any work, since nothing could be measured.
EnergyWindow RunWindow(EnergyMeter& meter, const std::function<void()>& sync,
                       const std::function<int64_t(std::chrono::steady_clock::time_point)>& body) {
  EnergyWindow w;
  if (const std::string why = meter.Unavailable(); !why.empty()) {
    w.source = why;
    return w;
  }
  if (sync) sync();
  const auto t0 = std::chrono::steady_clock::now();
  const auto start_joules = meter.ReadJoules();
  if (!start_joules) {
    w.source = "unavailable: read failed: " + meter.LastError();
    return w;
  }
  w.iterations = body(t0);
  if (sync) sync();
  const auto end_joules = meter.ReadJoules();
  w.seconds = SecondsSince(t0);
  if (!end_joules) {
    w.source = "unavailable: read failed: " + meter.LastError();
    return w;
  }
  w.source = meter.Name();
  w.total_joules = *end_joules - *start_joules;
  w.joules = *w.total_joules / static_cast<double>(w.iterations);
  return w;
}

void RequireWindowLength(double seconds, const char* fn) {
  if (!(seconds >= 0.0 && std::isfinite(seconds))) {
    throw std::invalid_argument(std::string(fn) + ": window length must be finite and >= 0");
  }
}

}  // namespace

EnergyWindow MeasureEnergy(EnergyMeter& meter, const std::function<void()>& workload,
                           double min_window_s, const std::function<void()>& sync) {
  RequireWindowLength(min_window_s, "MeasureEnergy");
  return RunWindow(meter, sync, [&](std::chrono::steady_clock::time_point t0) {
    int64_t iterations = 0;
    // The host clock decides when to stop; for asynchronous GPU work the host
    // runs ahead by at most the launch queue's depth, and the final sync makes
    // the measured window cover all of it.
    do {
      workload();
      ++iterations;
      meter.Poll();
    } while (SecondsSince(t0) < min_window_s);
    return iterations;
  });
}

EnergyWindow MeasureIdleBaseline(EnergyMeter& meter, double seconds,
                                 const std::function<void()>& sync) {
  RequireWindowLength(seconds, "MeasureIdleBaseline");
  return RunWindow(meter, sync, [&](std::chrono::steady_clock::time_point t0) {
    // Sleep in slices so a wrapping counter is still polled often enough.
    while (SecondsSince(t0) < seconds) {
      const double left = seconds - SecondsSince(t0);
      std::this_thread::sleep_for(std::chrono::duration<double>(std::min(left, 0.02)));
      meter.Poll();
    }
    return int64_t{1};
  });
}

}  // namespace cb::harness
