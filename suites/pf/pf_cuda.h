// File: suites/pf/pf_cuda.h
// -----------------------------------------------------------------------------
// The CUDA side of the Permute-and-Flip path, private to the suite: called by the
// dispatchers in pf.cpp (and by this suite's
// benchmarks, tests and claims that time the device alone); users call the
// public Fn(Backend, ...) in suites/pf/pf.h. CUDA builds only.
#ifndef CB_SUITES_PF_PF_CUDA_H_
#define CB_SUITES_PF_PF_CUDA_H_

#include "suites/pf/pf.h"

#if CB_HAVE_CUDA

namespace cb::pf {

// The CUDA paths (pf.cu): upload, fused noise + argmax kernels, download.
void SampleCuda(const LogitsView& logits, double temperature, Noise noise, uint64_t key,
                std::span<const uint64_t> streams, std::span<int32_t> tokens);
void ScoreTermsCuda(cb::ref::pf::Watermark w, const cb::ref::pf::WatermarkParams& params,
                    std::span<const int32_t> texts, int64_t count, int64_t n,
                    std::span<double> terms);
// Seconds of one device-only sampling call on resident logits (CUDA events),
// for the bandwidth benchmark.
double TimeSampleCuda(const LogitsView& logits, double temperature, Noise noise, uint64_t key,
                      int repeats);

}  // namespace cb::pf

#endif  // CB_HAVE_CUDA

#endif  // CB_SUITES_PF_PF_CUDA_H_
