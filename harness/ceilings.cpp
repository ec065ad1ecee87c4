// File: harness/ceilings.cpp
// -----------------------------------------------------------------------------
// CPU ceilings (copy and STREAM bandwidth, OpenBLAS SGEMM, Philox blocks/s)
// and the host side of the GPU ceilings (harness/ceilings.h).
//
// Napkin math for this project's 2-core CI machine (AMD EPYC, 32 MiB L3):
// one core streams ~10-20 GB/s (read + write), so a 4x-LLC copy takes tens of
// ms; a 1024^3 SGEMM is 2.1 GFLOP, ~20 ms at ~100 GFLOP/s on two AVX-512
// cores. Quick mode is a few hundred ms in all.
#include "harness/ceilings.h"

#include <cblas.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <new>
#include <stdexcept>
#include <thread>
#include <utility>

#include "harness/backend.h"
#include "harness/blas_info.h"
#include "harness/energy.h"
#include "harness/philox_rate.h"
#include "harness/random.h"
#include "harness/stats.h"

#if CB_HAVE_CUDA
#include "harness/cuda/ceilings_gpu.h"
#endif

// OpenBLAS's own query. Declared weak so that a build against another CBLAS
// (whose header lacks it) still links; the thread count then comes from the
// environment.
extern "C" int openblas_get_num_threads(void) __attribute__((weak));

namespace cb::harness {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// A ceiling from its per-repetition rates (in `unit`): the best repetition
// is the value, since a ceiling is what the machine can do; `detail` gains
// every sample, their median, and the warm-up and repetition counts, so a
// noisy ceiling is visible.
CeilingMeasurement FromSamples(std::string name, std::string unit,
                               const std::vector<double>& samples, int warmup, json detail) {
  if (samples.empty()) throw std::logic_error("ceiling " + name + ": no samples");
  detail["warmup"] = warmup;
  detail["repetitions"] = samples.size();
  detail["samples"] = samples;
  detail["median"] = Median(samples);
  const double best = *std::max_element(samples.begin(), samples.end());
  return CeilingMeasurement{std::move(name), best, std::move(unit), std::move(detail)};
}

// "32K", "32768K", "1M" (sysfs cache size) -> bytes.
int64_t ParseCacheSize(const std::string& text) {
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (end == text.c_str() || v <= 0) return 0;
  switch (*end) {
    case 'K': return v << 10;
    case 'M': return v << 20;
    case 'G': return v << 30;
    default: return v;
  }
}

std::string FirstLine(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::string s;
  std::getline(in, s);
  return s;
}

// Owning, page-aligned byte buffer; first touch is left to the caller so
// each thread can fault in its own slice.
struct AlignedBytes {
  explicit AlignedBytes(size_t n)
      : size(n), data(static_cast<unsigned char*>(std::aligned_alloc(4096, n))) {
    if (data == nullptr) throw std::bad_alloc();
  }
  ~AlignedBytes() { std::free(data); }
  AlignedBytes(const AlignedBytes&) = delete;
  AlignedBytes& operator=(const AlignedBytes&) = delete;
  size_t size;
  unsigned char* data;
};

// Runs fn(thread_index, begin, end) over [0, bytes) split into `threads`
// 64-byte-aligned slices, one std::thread each (the caller's thread takes
// slice 0). Thread start-up (~50 us) is noise next to a >= 10 ms copy.
template <typename Fn>
void ParallelSlices(int threads, size_t bytes, Fn fn) {
  const size_t slice = ((bytes / threads) + 63) & ~size_t{63};
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) {
    const size_t begin = std::min(bytes, slice * t), end = std::min(bytes, slice * (t + 1));
    pool.emplace_back(fn, t, begin, end);
  }
  fn(0, 0, std::min(bytes, slice));
  for (auto& th : pool) th.join();
}

// Bytes per copy buffer or STREAM array: >= 4x the whole LLC (STREAM's rule)
// so the kernels stream from DRAM even on big-cache parts; quick keeps the
// floor at 32 MiB and caps at 256 MiB, full 128 MiB and 1 GiB. A cap binds
// where the machine reports a large LLC (a VM may report its host's whole
// L3: 508 MiB seen on a 2-core EPYC guest, where quick ceilings of 1 GiB
// arrays blocked every other measurer for minutes under ASan); the detail
// records it as below_4x_llc.
size_t BufferBytes(bool quick, int64_t llc) {
  const size_t floor_bytes = quick ? size_t(QuickSizes().floor_bytes) : (size_t{128} << 20);
  const size_t cap_bytes = quick ? size_t(QuickSizes().cap_bytes) : (size_t{1} << 30);
  return std::min<size_t>(cap_bytes, std::max<size_t>(floor_bytes, 4 * llc));
}

CeilingMeasurement CopyBandwidth(bool quick, int threads, const char* name) {
  const int64_t llc = LastLevelCacheBytes();
  const size_t bytes = BufferBytes(quick, llc);
  AlignedBytes src(bytes), dst(bytes);
  ParallelSlices(threads, bytes, [&](int, size_t b, size_t e) {
    std::memset(src.data + b, 0x5A, e - b);  // fault pages in, in the thread that copies them
    std::memset(dst.data + b, 0, e - b);
  });
  const int warmup = 1, reps = quick ? 3 : 7;
  std::vector<double> samples;  // GB/s
  for (int r = 0; r < warmup + reps; ++r) {
    const auto t0 = Clock::now();
    ParallelSlices(threads, bytes,
                   [&](int, size_t b, size_t e) { std::memcpy(dst.data + b, src.data + b, e - b); });
    const double s = Seconds(t0, Clock::now());
    if (r >= warmup) samples.push_back(2.0 * static_cast<double>(bytes) / s / 1e9);
  }
  // Keep the copy observable so it cannot be optimised away.
  if (dst.data[bytes / 2] != 0x5A) throw std::runtime_error("CPU copy ceiling: copy did not happen");
  return FromSamples(name, "GB/s", samples, warmup,
                     json{{"bytes_per_buffer", bytes},
                          {"bytes_counted", "read+write"},
                          {"last_level_cache_bytes", llc},
                          {"below_4x_llc", int64_t(bytes) < 4 * llc},
                          {"threads", threads},
                          {"method", "memcpy, one slice per thread"}});
}

// The STREAM kernels (McCalpin, "Memory Bandwidth and Machine Balance",
// 1995; stream.c v5.10) on doubles, with STREAM's byte counts: only the
// bytes the kernel names, read + written; the write-allocate read of a
// destination line is not counted, exactly as STREAM does not.
enum class StreamKernel { kCopy, kScale, kAdd, kTriad, kRead };

struct StreamSpec {
  StreamKernel kernel;
  const char* name;     // ceiling name without the thread suffix
  const char* formula;  // for the detail JSON
  int arrays;           // arrays touched
  int bytes_per_elem;   // counted bytes per element
};

constexpr StreamSpec kStream[] = {
    {StreamKernel::kCopy, "cpu_stream_copy", "c[i] = a[i]", 2, 16},
    {StreamKernel::kScale, "cpu_stream_scale", "b[i] = q * c[i]", 2, 16},
    {StreamKernel::kAdd, "cpu_stream_add", "c[i] = a[i] + b[i]", 3, 24},
    {StreamKernel::kTriad, "cpu_stream_triad", "a[i] = b[i] + q * c[i]", 3, 24},
    {StreamKernel::kRead, "cpu_stream_read", "s += a[i] (read only, 16 partial sums)", 1, 8},
};

// GCC/Clang vector of 4 doubles: the compiler lowers it to whatever SIMD
// the target has, so the read-only sum is not bound by one scalar add chain
// (a plain `s += a[i]` cannot be vectorised without -ffast-math).
typedef double V4 __attribute__((vector_size(32)));

// sum of a[b, e) with 4 independent vector accumulators; (e - b) % 16 == 0.
double SumSlice(const double* a, size_t b, size_t e) {
  V4 s0 = {0, 0, 0, 0}, s1 = s0, s2 = s0, s3 = s0;
  for (size_t i = b; i < e; i += 16) {
    V4 x0, x1, x2, x3;
    std::memcpy(&x0, a + i, sizeof x0);
    std::memcpy(&x1, a + i + 4, sizeof x1);
    std::memcpy(&x2, a + i + 8, sizeof x2);
    std::memcpy(&x3, a + i + 12, sizeof x3);
    s0 += x0;
    s1 += x1;
    s2 += x2;
    s3 += x3;
  }
  const V4 s = (s0 + s1) + (s2 + s3);
  return (s[0] + s[1]) + (s[2] + s[3]);
}

// The three STREAM arrays, allocated and faulted in once for all ten STREAM
// ceilings (page faults of ~400 MiB cost more than the kernels themselves).
struct StreamArrays {
  explicit StreamArrays(size_t elements)
      : n(elements),
        a_buf(n * sizeof(double)),
        b_buf(n * sizeof(double)),
        c_buf(n * sizeof(double)),
        a(reinterpret_cast<double*>(a_buf.data)),
        b(reinterpret_cast<double*>(b_buf.data)),
        c(reinterpret_cast<double*>(c_buf.data)) {}
  size_t n;
  AlignedBytes a_buf, b_buf, c_buf;
  double *a, *b, *c;
};

// Elements per STREAM array (BufferBytes), a multiple of 16 (SumSlice's
// stride).
size_t StreamElements(bool quick) {
  return BufferBytes(quick, LastLevelCacheBytes()) / sizeof(double) / 16 * 16;
}

CeilingMeasurement StreamBandwidth(bool quick, int threads, const StreamSpec& spec,
                                   std::string name, StreamArrays& arrays) {
  const int64_t llc = LastLevelCacheBytes();
  const size_t n = arrays.n;
  double* a = arrays.a;
  double* b = arrays.b;
  double* c = arrays.c;
  // Slices in elements, 16-aligned so SumSlice's stride divides each.
  const size_t slice = ((n / threads) + 15) & ~size_t{15};
  auto run = [&](auto fn) {
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) {
      pool.emplace_back(fn, t, std::min(n, slice * t), std::min(n, slice * (t + 1)));
    }
    fn(0, size_t{0}, std::min(n, slice));
    for (auto& th : pool) th.join();
  };
  // STREAM's values, reset before each kernel so its check below is exact.
  run([&](int, size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i) a[i] = 1.0, b[i] = 2.0, c[i] = 0.0;
  });
  const double q = 3.0;
  std::vector<double> partial(static_cast<size_t>(threads), 0.0);
  const int warmup = 1, reps = quick ? 2 : 7;
  std::vector<double> samples;  // GB/s
  for (int r = 0; r < warmup + reps; ++r) {
    const auto t0 = Clock::now();
    run([&](int t, size_t lo, size_t hi) {
      switch (spec.kernel) {
        case StreamKernel::kCopy: for (size_t i = lo; i < hi; ++i) c[i] = a[i]; break;
        case StreamKernel::kScale: for (size_t i = lo; i < hi; ++i) b[i] = q * c[i]; break;
        case StreamKernel::kAdd: for (size_t i = lo; i < hi; ++i) c[i] = a[i] + b[i]; break;
        case StreamKernel::kTriad: for (size_t i = lo; i < hi; ++i) a[i] = b[i] + q * c[i]; break;
        case StreamKernel::kRead: partial[static_cast<size_t>(t)] += SumSlice(a, lo, hi); break;
      }
    });
    const double s = Seconds(t0, Clock::now());  // wall time
    if (r >= warmup) samples.push_back(double(spec.bytes_per_elem) * double(n) / s / 1e9);
  }
  // The results stay observable, and are checked: a kernel that did not run
  // (or was optimised away) throws instead of reporting a bandwidth.
  const size_t mid = n / 2;
  bool ok = true;
  switch (spec.kernel) {
    case StreamKernel::kCopy: ok = c[mid] == 1.0; break;
    case StreamKernel::kScale: ok = b[mid] == 0.0; break;  // c was 0
    case StreamKernel::kAdd: ok = c[mid] == 3.0; break;
    case StreamKernel::kTriad: ok = a[mid] == 2.0; break;  // 2 + 3 * 0
    case StreamKernel::kRead: {
      double total = 0;
      for (double p : partial) total += p;
      ok = total == double(n) * (warmup + reps);  // every a[i] == 1, exact in fp64
      break;
    }
  }
  if (!ok) throw std::runtime_error(std::string("CPU ceiling ") + spec.name + ": wrong result");
  return FromSamples(std::move(name), "GB/s", samples, warmup,
                     json{{"bytes_per_array", n * sizeof(double)},
                          {"arrays", spec.arrays},
                          {"elements", n},
                          {"kernel", spec.formula},
                          {"bytes_counted_per_element", spec.bytes_per_elem},
                          {"bytes_counted",
                           spec.kernel == StreamKernel::kRead ? "read" : "read+write"},
                          {"write_allocate_counted", false},
                          {"non_temporal_stores", false},
                          {"last_level_cache_bytes", llc},
                          {"below_4x_llc", int64_t(n * sizeof(double)) + 128 < 4 * llc},
                          {"threads", threads},
                          {"timing", "wall clock (steady_clock) around all threads"},
                          {"method",
                           "STREAM (McCalpin) kernel on fp64 arrays of 4x LLC (at least 32 MiB "
                           "quick, 128 MiB full; at most 1 GiB), one contiguous "
                           "slice per std::thread, first touch by the owning thread, plain stores "
                           "(compiler -O2 vectorisation), best of the repetitions"}});
}

// Operands uniform in (-1, 1) from the project's generator (DESIGN §4):
// element i is 2 u_i - 1 with u_i = PhiloxUniformAt(seed, 0, i), the same
// values the GPU ceilings generate on the device. Never zeros, which could
// take shortcuts in some BLAS builds.
std::vector<float> UniformOperand(size_t elems, uint64_t seed) {
  std::vector<float> v(elems);
  Rng rng(seed);
  for (float& x : v) x = static_cast<float>(2.0 * rng.Uniform() - 1.0);
  return v;
}

// Whether `got` is the fp32 product of row i of the row-major n x n matrix a
// and column j of b, within the worst-case error of any fp32 summation order,
// gamma_n = n 2^-24 / (1 - n 2^-24) of sum_k |a_ik b_kj| (Higham, Accuracy and
// Stability of Numerical Algorithms, 3.1), plus the final rounding. NaN fails.
bool ProductEntryIsRight(const std::vector<float>& a, const std::vector<float>& b, int n, int i,
                         int j, float got) {
  double want = 0.0, magnitude = 0.0;
  for (int k = 0; k < n; ++k) {
    const double p = static_cast<double>(a[static_cast<size_t>(i) * n + k]) *
                     b[static_cast<size_t>(k) * n + j];
    want += p;
    magnitude += std::abs(p);
  }
  const double u = 0x1p-24;
  const double gamma = n * u / (1.0 - n * u);
  return std::abs(static_cast<double>(got) - want) <= gamma * magnitude + u * std::abs(want);
}

int BlasThreads(std::string* source) {
  if (openblas_get_num_threads != nullptr) {
    *source = "openblas_get_num_threads";
    return openblas_get_num_threads();
  }
  for (const char* var : {"OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"}) {
    if (const char* v = std::getenv(var); v != nullptr && std::atoi(v) > 0) {
      *source = var;
      return std::atoi(v);
    }
  }
  *source = "hardware_concurrency";
  return static_cast<int>(std::thread::hardware_concurrency());
}

CeilingMeasurement Sgemm(bool quick) {
  const int n = quick ? 1024 : 2048;
  const size_t elems = static_cast<size_t>(n) * n;
  const std::vector<float> a = UniformOperand(elems, 1), b = UniformOperand(elems, 2);
  std::vector<float> c(elems, 0.0f);
  const int warmup = 1, reps = quick ? 3 : 5;
  const double flops = 2.0 * n * static_cast<double>(n) * n;
  std::vector<double> samples;  // GFLOP/s
  for (int r = 0; r < warmup + reps; ++r) {
    const auto t0 = Clock::now();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(), n,
                0.0f, c.data(), n);
    const double s = Seconds(t0, Clock::now());
    if (r >= warmup) samples.push_back(flops / s / 1e9);
  }
  // Spot checks against plain dot products (two corners, so a transposed
  // operand is caught too): a broken BLAS must not report a fast ceiling for
  // wrong results.
  if (!ProductEntryIsRight(a, b, n, 0, n - 1, c[static_cast<size_t>(n - 1)]) ||
      !ProductEntryIsRight(a, b, n, n - 1, 0, c[static_cast<size_t>(n - 1) * n])) {
    throw std::runtime_error("CPU SGEMM ceiling: cblas_sgemm result is wrong");
  }
  std::string thread_source;
  const int threads = BlasThreads(&thread_source);
  const BlasInfo blas = DetectBlas();
  const std::string warning = BlasKernelWarning(blas, CpuFlags());
  return FromSamples("cpu_sgemm", "GFLOP/s", samples, warmup,
                     json{{"n", n},
                          {"blas", ToJson(blas)},
                          {"warning", warning.empty() ? json(nullptr) : json(warning)},
                          {"flops_per_call", flops},
                          {"threads", threads},
                          {"threads_from", thread_source},
                          {"method", "cblas_sgemm row-major NN, alpha 1, beta 0"}});
}

// Philox4x32-10 blocks per second (harness/philox_rate.h) on `threads`
// threads: the bound of kernels that draw a keyed block per element. Quick:
// 2^25 blocks per thread and repetition (tens of ms), full 2^27.
CeilingMeasurement PhiloxRate(bool quick, int threads, std::string name) {
  const int64_t blocks = quick ? QuickSizes().philox_blocks : int64_t{1} << 27;
  const int warmup = 1, reps = quick ? 3 : 7;
  std::vector<double> samples;  // Gblock/s
  for (int r = 0; r < warmup + reps; ++r) {
    const double rate = PhiloxBlocksPerSecond(threads, blocks);
    if (r >= warmup) samples.push_back(rate / 1e9);
  }
  return FromSamples(std::move(name), "Gblock/s", samples, warmup,
                     json{{"blocks_per_thread", blocks},
                          {"threads", threads},
                          {"kernel", PhiloxRateKernel()},
                          {"timing", "wall clock (steady_clock) around all threads"},
                          {"method",
                           "consecutive counters of one stream per thread, every output word "
                           "xor-folded, the first 64 blocks of each thread checked against "
                           "harness/philox.h"}});
}

}  // namespace

int64_t LastLevelCacheBytes() {
  namespace fs = std::filesystem;
  // Highest cache level per CPU, keyed by its shared_cpu_list so each
  // physical cache instance counts once.
  std::map<std::string, int64_t> instances;
  int best_level = 0;
  std::error_code ec;
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  for (long cpu = 0; cpu < cpus; ++cpu) {
    const fs::path dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cache";
    if (!fs::is_directory(dir, ec)) continue;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      if (entry.path().filename().string().rfind("index", 0) != 0) continue;
      const std::string type = FirstLine(entry.path() / "type");
      if (type == "Instruction") continue;
      const int level = std::atoi(FirstLine(entry.path() / "level").c_str());
      const int64_t size = ParseCacheSize(FirstLine(entry.path() / "size"));
      const std::string shared = FirstLine(entry.path() / "shared_cpu_list");
      if (level > best_level) {
        best_level = level;
        instances.clear();
      }
      if (level == best_level && size > 0) instances[shared] = size;
    }
  }
  int64_t total = 0;
  for (const auto& [shared, size] : instances) total += size;
  if (total == 0) {
    const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    total = l3 > 0 ? l3 : 0;
  }
  return total;
}

QuickCeilingSizes QuickSizes() {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
  constexpr bool kSanitized = true;
#else
  constexpr bool kSanitized = false;
#endif
#else
  constexpr bool kSanitized = false;
#endif
  return {int64_t{32} << 20, kSanitized ? int64_t{32} << 20 : int64_t{256} << 20,
          int64_t{1} << (kSanitized ? 21 : 25), kSanitized};
}

std::vector<CeilingMeasurement> MeasureCpuCeilings(bool quick) {
  const int cores = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  std::vector<CeilingMeasurement> out;
  out.push_back(CopyBandwidth(quick, cores, "cpu_copy_bandwidth"));
  out.push_back(CopyBandwidth(quick, 1, "cpu_copy_bandwidth_1t"));
  StreamArrays arrays(StreamElements(quick));
  for (const StreamSpec& spec : kStream) {
    out.push_back(StreamBandwidth(quick, cores, spec, spec.name, arrays));
    out.push_back(StreamBandwidth(quick, 1, spec, std::string(spec.name) + "_1t", arrays));
  }
  // Before the SGEMM: OpenBLAS's workers spin on the other cores for a while
  // after a call, and a multi-threaded measurement right after it shared its
  // cores with them (two of three all-core Philox samples ran at one core's
  // rate on this project's 2-core machine).
  out.push_back(PhiloxRate(quick, cores, "cpu_philox4x32_10"));
  out.push_back(PhiloxRate(quick, 1, "cpu_philox4x32_10_1t"));
  out.push_back(Sgemm(quick));
  for (auto& m : out) m.detail["sanitizer_build"] = quick && QuickSizes().sanitizer_build;
  return out;
}

std::vector<std::string> CpuCeilingNames() {
  std::vector<std::string> names = {"cpu_copy_bandwidth", "cpu_copy_bandwidth_1t"};
  for (const StreamSpec& spec : kStream) {
    names.push_back(spec.name);
    names.push_back(std::string(spec.name) + "_1t");
  }
  for (const char* name : {"cpu_philox4x32_10", "cpu_philox4x32_10_1t", "cpu_sgemm"}) {
    names.push_back(name);
  }
  return names;
}

std::vector<CeilingMeasurement> MeasureGpuCeilings([[maybe_unused]] bool quick,
                                                   std::string* reason_if_none) {
  const BackendStatus status = Availability(Backend::kCuda);
  if (!status.ok) {
    if (reason_if_none != nullptr) *reason_if_none = status.reason;
    return {};
  }
#if CB_HAVE_CUDA
  std::vector<CeilingMeasurement> out;
  for (const auto& g : cuda_internal::MeasureGpuCeilingsCuda(quick)) {
    json detail = json::object();
    for (const auto& [k, v] : g.numbers) detail[k] = v;
    for (const auto& [k, v] : g.strings) detail[k] = v;
    out.push_back(FromSamples(g.name, g.unit, g.samples, g.warmup, std::move(detail)));
  }
  // The clock right after the GEMMs says whether the card was boosting or
  // throttled while the ceilings were taken.
  std::string reason;
  const auto mhz = CurrentSmClockMhz(0, &reason);
  for (auto& c : out) c.detail["sm_clock_mhz_after"] = mhz ? json(*mhz) : json(reason);
  return out;
#else
  // Unreachable: Availability(kCuda) is never ok without CUDA.
  if (reason_if_none != nullptr) *reason_if_none = "built without CUDA";
  return {};
#endif
}

json ToJson(const CeilingMeasurement& c) {
  return json{{"name", c.name}, {"value", c.value}, {"unit", c.unit}, {"detail", c.detail}};
}

}  // namespace cb::harness
