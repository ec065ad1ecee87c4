// File: suites/mia/score_kernel.h
// -----------------------------------------------------------------------------
// The per-position scoring kernel a user needs for real LLM logits (Min-K%++,
// brief §1 step 2): for logits (T, V) in fp32 or bf16 and targets (T),
//   logp[t]   = log softmax(z_t)[target_t]
//   mu[t]     = sum_v p log p
//   sigma2[t] = sum_v p (log p)^2 - mu^2   (= Var_p(log p), never negative)
// computed stably with y = z - max(z) (so exp never overflows):
//   S0 = sum e^y, S1 = sum e^y y, S2 = sum e^y y^2,
//   log Z = max + log S0, logp = z_target - log Z,
//   mu = S1/S0 - log S0, sigma2 = S2/S0 - (S1/S0)^2.
// Outputs are fp32; sums are accumulated in fp32 blocks flushed into fp64
// (CPU) or per-thread fp32 with an fp64 block reduction (CUDA).
//
// Backends:
//   kCpu   the CPU fast path (score_kernel.cpp): one pass per row in
//          L1-sized chunks (chunk max, then 2^u and the three sums in base 2,
//          with rescaling when the maximum rises), AVX-512 / AVX2 / portable
//          code picked by CPU feature, rows split over `threads` threads;
//   kCuda  mia.cu: one block per row, online max/sum (each thread keeps
//          (max, S0, S1, S2) and rescales when its max grows; the block
//          combines the partial states), bf16 or fp32 loads, V up to 2^18 and
//          beyond (grid-stride over the row).
// Both agree with the fp64 reference (reference/mia/mia.h StatsFromLogits)
// within 1e-4 relative (mia_test.cpp, on fresh random peaked and flat rows).
//
// Errors: a target outside [0, V), a non-finite logit (NaN or +-Inf), or
// sizes that do not match throw std::invalid_argument naming the row.
#ifndef CB_SUITES_MIA_SCORE_KERNEL_H_
#define CB_SUITES_MIA_SCORE_KERNEL_H_

#include <cstdint>
#include <span>
#include <vector>

#include "harness/backend.h"

namespace cb::mia {

enum class LogitType { kF32, kBf16 };

// Logits (rows, vocab), row-major; bf16 stored as its 16 raw bits.
struct LogitsView {
  const void* data = nullptr;
  int64_t rows = 0;
  int64_t vocab = 0;
  LogitType type = LogitType::kF32;
  size_t ElementBytes() const { return type == LogitType::kF32 ? 4 : 2; }
};

struct PositionScores {
  std::vector<float> logp, mu, sigma2;  // (rows) each
};

// fp32 <-> bf16 (round to nearest even; NaN stays NaN).
uint16_t FloatToBf16(float f);
float Bf16ToFloat(uint16_t b);

// Dispatch. REQUIRES: targets.size() == rows, vocab >= 1. Throws
// std::runtime_error when the backend is unavailable (with its reason).
PositionScores ScorePositions(cb::harness::Backend backend, const LogitsView& logits,
                              std::span<const int32_t> targets, int threads = 1);

// Instruction set of the CPU fast path: kAuto picks the best this CPU runs
// (AVX-512F, else AVX2+FMA, else portable); tests force each one.
enum class CpuPath { kAuto, kAvx512, kAvx2, kPortable };
const char* CpuPathName(CpuPath path);  // "auto" | "avx512" | "avx2" | "portable"
bool CpuPathAvailable(CpuPath path);
CpuPath BestCpuPath();  // never kAuto

// The CPU fast path (also used directly by benchmarks). Throws
// std::runtime_error when `path` needs instructions this CPU lacks.
PositionScores ScorePositionsCpu(const LogitsView& logits, std::span<const int32_t> targets,
                                 int threads = 1, CpuPath path = CpuPath::kAuto);

}  // namespace cb::mia

#endif  // CB_SUITES_MIA_SCORE_KERNEL_H_
