// File: suites/odeformer/trained_pair.h
// -----------------------------------------------------------------------------
// The two models the trained claims compare, trained once per (profile, seed)
// and process (the claims that read them share one training): a tiny
// neural-ODE transformer (OdeLm) and a vanilla substrate transformer
// (suites/lm, Llama blocks) with as many layers as the ODE has Euler steps
// and its SwiGLU width chosen so the two parameter counts are as close as one
// width step allows. Both are trained by the substrate's trainer with the
// same options on the same token stream (the substrate's corpus with a
// 512-token BPE) and evaluated on its held-out stream.
#ifndef CB_SUITES_ODEFORMER_TRAINED_PAIR_H_
#define CB_SUITES_ODEFORMER_TRAINED_PAIR_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "harness/claim.h"
#include "suites/lm/cpu_transformer.h"
#include "suites/lm/trainer.h"
#include "suites/odeformer/ode_lm.h"

namespace cb::odeformer {

struct TrainedPair {
  uint64_t seed = 0;
  std::unique_ptr<OdeLm> ode;
  std::unique_ptr<lm_suite::CpuTransformer> vanilla;
  int64_t ode_params = 0, vanilla_params = 0;
  double ode_loss = 0, vanilla_loss = 0;  // held-out mean next-token loss (nats / BPE token)
  double seconds = 0;                     // both trainings
};

struct TrainedSet {
  lm_suite::TrainOptions options;
  std::vector<int> heldout;  // the held-out token stream
  int eval_batches = 0;
  std::vector<TrainedPair> pairs;  // one per training seed
};

// Trains (or returns the process's copy of) the pairs for ctx's profile and
// seed: smoke 1 seed x 30 steps, quick 3 x 300, full 5 x 1500.
const TrainedSet& Trained(const harness::ClaimContext& ctx);

// The ODE model's config used by the trained claims.
ref::odeformer::OdeConfig TrainedOdeConfig(int vocab, int positions);

}  // namespace cb::odeformer

#endif  // CB_SUITES_ODEFORMER_TRAINED_PAIR_H_
