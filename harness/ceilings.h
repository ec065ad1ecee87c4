// File: harness/ceilings.h
// -----------------------------------------------------------------------------
// The machine's measured limits (DESIGN §5 "Ceilings"): every bandwidth- or
// FLOP-bound result is also stored as a fraction of one of these, so "how
// close to the limit" is a number in the ledger rather than a guess.
//
//   cpu_copy_bandwidth     GB/s     memcpy over buffers >> last-level cache,
//                                   all logical cores, bytes read + written
//   cpu_copy_bandwidth_1t  GB/s     the same on one thread (for results that
//                                   run on one core)
//   cpu_stream_copy        GB/s     STREAM kernels (McCalpin) on fp64 arrays
//   cpu_stream_scale                 each >= 4x the LLC, all logical cores,
//   cpu_stream_add                   wall time, STREAM's byte counts (copy,
//   cpu_stream_triad                 scale 16 B/element; add, triad 24; no
//   cpu_stream_read                  write-allocate); read: a read-only sum,
//                                    8 B/element. Plain stores (detail says
//                                    non_temporal_stores: false).
//   cpu_stream_*_1t        GB/s     the same five on one thread
//   cpu_sgemm              GFLOP/s  cblas_sgemm (OpenBLAS), 2 n^3 flops;
//                                    detail.blas names the library and core
//                                    as loaded, detail.warning says when it
//                                    runs generic kernels (harness/blas_info.h)
//   cpu_philox4x32_10      Gblock/s Philox4x32-10 blocks per second, all
//   cpu_philox4x32_10_1t             logical cores / one thread, with the
//                                    PF samplers' own AVX-512 kernel where
//                                    the CPU has it (harness/philox_rate.h):
//                                    the bound of a keyed-noise sampler
//   gpu_copy_bandwidth     GB/s     cudaMemcpyAsync device-to-device, bytes
//                                   read + written, CUDA events
//   gpu_sgemm              TFLOP/s  cuBLAS FP32 GEMM (no TF32), 2 n^3 flops
//   gpu_bf16_gemm          TFLOP/s  cuBLAS BF16 inputs/outputs, FP32 compute
//
// Each value is the best repetition (a ceiling is what the machine can do);
// `detail` carries every sample, the sizes, thread counts and the median, so
// a noisy ceiling is visible. Inputs are pseudo-random (Philox), never zeros:
// zero operands let GPUs skip work and draw less power, overstating the rate.
// Every GEMM's result is spot-checked against dot products in fp64, so a
// broken or misconfigured BLAS throws instead of reporting a fast ceiling.
#ifndef CB_HARNESS_CEILINGS_H_
#define CB_HARNESS_CEILINGS_H_

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace cb::harness {

struct CeilingMeasurement {
  std::string name;   // one of the names above
  double value = 0;   // in `unit`
  std::string unit;   // "GB/s", "GFLOP/s", "TFLOP/s", "Gblock/s"
  nlohmann::json detail;
};

// The CPU ceilings. quick: sizes and repetitions that take about 2 s of CPU
// on a 2-core machine (1024^3 SGEMM, 3 repetitions; copy buffers and STREAM
// arrays of max(32 MiB, 4x the last-level cache), capped at 256 MiB, with
// detail.below_4x_llc saying when the cap binds; STREAM kernels 2
// repetitions after a warm-up; 2^25 Philox blocks per thread, 3
// repetitions); otherwise 2048^3, more repetitions, a 128 MiB floor and
// 1 GiB cap, 2^27 blocks (QuickSizes() below: smaller in a sanitizer
// build). Throws std::runtime_error when a check of the work fails.
std::vector<CeilingMeasurement> MeasureCpuCeilings(bool quick);

// Quick mode's sizes. In a sanitizer build (ASan, TSan) every load is
// checked and the -O0 Philox intrinsics are calls: one quick measurement took
// ~26 s there, in each of the ~30 tests that start a ledger, and measured the
// instrumentation rather than the machine. There the buffers stay at the
// 32 MiB floor and Philox runs 2^21 blocks per thread, and every CPU
// ceiling's detail says "sanitizer_build": true.
struct QuickCeilingSizes {
  int64_t floor_bytes;     // each copy buffer / STREAM array at least this
  int64_t cap_bytes;       // and at most this (below_4x_llc when it binds)
  int64_t philox_blocks;   // Philox4x32-10 blocks per thread and repetition
  bool sanitizer_build;
};
QuickCeilingSizes QuickSizes();

// The names MeasureCpuCeilings returns, without measuring: a
// ledger whose stored ceilings lack one of them (stored by an older build)
// measures again.
std::vector<std::string> CpuCeilingNames();

// The GPU ceilings on CUDA device 0 (quick: 4096^3 GEMMs and 256 MiB copies;
// else 8192^3 and 1 GiB). Without a usable device (or on CPU-only builds)
// returns an empty vector and stores Availability's reason in
// `reason_if_none`. Throws CudaError when a device is present but fails.
std::vector<CeilingMeasurement> MeasureGpuCeilings(bool quick,
                                                   std::string* reason_if_none = nullptr);

// {"name", "value", "unit", "detail"} for the ledger and --json output.
nlohmann::json ToJson(const CeilingMeasurement& ceiling);

// Total last-level cache of the machine in bytes (the sum over distinct
// cache instances in sysfs, e.g. one L3 per CCD); where sysfs has no cache
// folders (some VMs), glibc's sysconf(_SC_LEVEL3_CACHE_SIZE), from CPUID;
// 0 if neither says.
int64_t LastLevelCacheBytes();

}  // namespace cb::harness

#endif  // CB_HARNESS_CEILINGS_H_
