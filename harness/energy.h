// File: harness/energy.h
// -----------------------------------------------------------------------------
// Energy meters and measurement windows (DESIGN §5 "Energy"; anchors §3.5).
//
//   NvmlMeter   the GPU's total-energy counter (mJ since driver load, Volta and
//               later) via libnvidia-ml.so.1, loaded with dlopen at run time:
//               no build-time dependency and no nvml.h.
//   RaplMeter   Linux powercap RAPL, package domains only (psys contains
//               package contains core/uncore/dram, so summing more would count
//               twice), with counter wrap-around handled.
//   MeasureEnergy        loops a workload until the window is >= min_window_s
//                        (NVML updates every 20-100 ms, so short windows read
//                        mostly quantisation) and reads after a sync at both
//                        edges; returns joules per iteration.
//   MeasureIdleBaseline  the same meter over an idle window, recorded
//                        separately so a result can subtract it.
//
// No meter means no number: joules are std::nullopt and `source` carries
// "unavailable: <reason>". Nothing here estimates energy from TDP or load.
#ifndef CB_HARNESS_ENERGY_H_
#define CB_HARNESS_ENERGY_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/backend.h"

namespace cb::harness {

// A cumulative energy counter. ReadJoules() differences are what count; the
// origin is arbitrary.
class EnergyMeter {
 public:
  virtual ~EnergyMeter() = default;

  // "nvml" or "rapl": the `source` recorded with a measurement.
  virtual std::string Name() const = 0;

  // Empty when the meter can be read; otherwise "unavailable: <reason>".
  virtual std::string Unavailable() const = 0;

  // Joules since an arbitrary origin fixed at construction; nondecreasing.
  // nullopt when the meter is unavailable or this read failed (LastError()
  // says why). Not thread-safe.
  virtual std::optional<double> ReadJoules() = 0;

  // Called often (every workload iteration) while a window is open. Meters
  // whose raw counter wraps read it here, rate-limited, so that no wrap
  // between two reads goes unseen. Default: nothing to do.
  virtual void Poll() {}

  // Why the last ReadJoules() returned nullopt ("" if it did not).
  const std::string& LastError() const { return last_error_; }

 protected:
  std::string last_error_;
};

// ---------------------------------------------------------------------------
// NVML

// One GPU's energy counter. `nvml_index` is NVML's device index, which is in
// PCI bus order; it equals the CUDA ordinal when CUDA_DEVICE_ORDER=PCI_BUS_ID
// or there is one GPU.
class NvmlMeter : public EnergyMeter {
 public:
  explicit NvmlMeter(int nvml_index = 0);

  std::string Name() const override { return "nvml"; }
  std::string Unavailable() const override { return unavailable_; }
  std::optional<double> ReadJoules() override;

 private:
  void* device_ = nullptr;  // nvmlDevice_t
  std::string unavailable_;
};

// The current SM clock in MHz (nvmlDeviceGetClockInfo, NVML_CLOCK_SM), for
// the timing rows; nullopt with `reason` set when NVML or the GPU is missing.
std::optional<int> CurrentSmClockMhz(int nvml_index = 0, std::string* reason = nullptr);

// Static facts NVML knows and the CUDA runtime does not; for the platform
// fingerprint.
struct NvmlDeviceFacts {
  std::string uuid;                    // "GPU-..."
  std::string vbios;                   // "" when NVML will not say
  std::optional<int64_t> power_limit_mw;  // the enforced power cap
};
struct NvmlFacts {
  std::string driver_version;          // "580.159.03"
  std::vector<NvmlDeviceFacts> devices;
};
// nullopt with `reason` set ("unavailable: libnvidia-ml.so.1 not found ...")
// when NVML cannot be used.
std::optional<NvmlFacts> QueryNvmlFacts(std::string* reason = nullptr);

// ---------------------------------------------------------------------------
// RAPL

// Sum of the package domains /<root>/intel-rapl:N (N digits; the
// subdomains intel-rapl:N:M are skipped) whose `name` starts with "package".
// Each domain's energy_uj wraps at max_energy_range_uj; a negative step
// between two reads gets the range added back, so reads must be closer
// together than one wrap (minutes at full load; Poll() keeps them so).
class RaplMeter : public EnergyMeter {
 public:
  // `root` is the powercap folder; tests point it at a fake tree.
  explicit RaplMeter(std::string root = "/sys/class/powercap");

  std::string Name() const override { return "rapl"; }
  std::string Unavailable() const override { return unavailable_; }
  std::optional<double> ReadJoules() override;
  void Poll() override;

  // The domain folders being summed, e.g. ".../intel-rapl:0".
  std::vector<std::string> Domains() const;

  // Reads closer together than this are skipped by Poll().
  static constexpr double kPollIntervalSeconds = 0.05;

 private:
  struct Domain {
    std::string path;
    int64_t max_range_uj = 0;
    int64_t last_raw_uj = 0;
  };
  std::string unavailable_;
  std::vector<Domain> domains_;
  int64_t accumulated_uj_ = 0;  // integer microjoules: sums stay exact
  std::chrono::steady_clock::time_point last_read_;
};

// The meter for a backend's energy: NVML for kCuda, RAPL for kCpu.
std::unique_ptr<EnergyMeter> MakeEnergyMeter(Backend backend);

// ---------------------------------------------------------------------------
// Windows

struct EnergyWindow {
  std::optional<double> joules;        // per workload iteration; nullopt: no meter
  std::optional<double> total_joules;  // the whole window
  double seconds = 0.0;                // window length, sync to sync
  int64_t iterations = 0;
  std::string source;                  // "nvml" | "rapl" | "unavailable: <reason>"

  // Mean power over the window; nullopt without a measurement.
  std::optional<double> watts() const;
};

// Runs `workload` at least once and until at least `min_window_s` have
// passed, with `sync` (e.g. cudaDeviceSynchronize) before the first and
// after the last read so the window holds exactly the work it times. Returns
// joules per iteration. When the meter is unavailable, or its first read
// fails, the workload is not run and `source` says why; a failed last read
// also leaves joules nullopt.
// REQUIRES: min_window_s finite and >= 0 (throws std::invalid_argument).
EnergyWindow MeasureEnergy(EnergyMeter& meter, const std::function<void()>& workload,
                           double min_window_s = 1.0, const std::function<void()>& sync = {});

// The meter over `seconds` of sleep (the same edges as MeasureEnergy):
// joules == total_joules for the whole window (iterations = 1); divide by
// seconds for idle watts.
// REQUIRES: seconds finite and >= 0 (throws std::invalid_argument).
EnergyWindow MeasureIdleBaseline(EnergyMeter& meter, double seconds = 1.0,
                                 const std::function<void()>& sync = {});

}  // namespace cb::harness

#endif  // CB_HARNESS_ENERGY_H_
