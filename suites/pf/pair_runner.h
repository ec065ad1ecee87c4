// File: suites/pf/pair_runner.h
// -----------------------------------------------------------------------------
// Runs two pieces of work at once: one on the calling thread, one on a
// persistent helper thread. Sampling one row of V = 128k logits takes a few
// tens of microseconds on two cores, about what creating a std::thread costs
// (16 us measured here), so the PF CPU path keeps one helper alive. After a
// job the helper spins briefly (so back-to-back decoding steps find it
// awake), then sleeps on a futex (std::atomic::wait). This is why PF does
// not use cb::harness::ParallelFor (harness/parallel.h), which starts its
// threads per call: that would double a single row's latency.
//
// Thread safety: concurrent callers are fine; while one caller owns the
// helper, the others run both pieces on their own thread, one after the other.
#ifndef CB_SUITES_PF_PAIR_RUNNER_H_
#define CB_SUITES_PF_PAIR_RUNNER_H_

#include <functional>

namespace cb::pf {

// Runs `helper_part` and `own_part` (possibly concurrently) and returns when
// both are done. Exceptions must not escape either part.
void RunPair(const std::function<void()>& helper_part, const std::function<void()>& own_part);

}  // namespace cb::pf

#endif  // CB_SUITES_PF_PAIR_RUNNER_H_
