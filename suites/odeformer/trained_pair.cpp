// File: suites/odeformer/trained_pair.cpp
// -----------------------------------------------------------------------------
// Training of the ODE / vanilla pair (trained_pair.h).
#include "suites/odeformer/trained_pair.h"

#include <array>
#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <utility>

#include "harness/blas_threads.h"
#include "reference/lm/transformer.h"
#include "suites/lm/substrate_data.h"

namespace cb::odeformer {

namespace ro = cb::ref::odeformer;

ro::OdeConfig TrainedOdeConfig(int vocab, int positions) {
  // T = L = 4: each fw_w holds four weight matrices, so the ODE block has
  // about as many parameters as four vanilla layers.
  return {.vocab_size = vocab, .hidden_size = 32, .num_heads = 2, .mlp_size = 128, .num_steps = 4,
          .max_positions = positions, .sinusoidal_dim = 16, .tembed_dim = 4};
}

namespace {

constexpr int kVocab = 512;

int64_t LlamaParams(const ref::lm::TransformerConfig& c) {
  const int64_t D = c.hidden_size, I = c.intermediate_size, L = c.num_hidden_layers;
  const int64_t kv = int64_t(c.num_key_value_heads) * c.HeadDim();
  const int64_t layer = D * D * 2 + 2 * D * kv + 3 * D * I + 2 * D;
  return int64_t(c.vocab_size) * D * (c.tie_word_embeddings ? 1 : 2) + L * layer + D;
}

ref::lm::TransformerConfig VanillaConfig(const ro::OdeConfig& ode) {
  ref::lm::TransformerConfig c;
  c.vocab_size = ode.vocab_size;
  c.hidden_size = ode.hidden_size;
  c.num_hidden_layers = ode.num_steps;
  c.num_attention_heads = ode.num_heads;
  c.num_key_value_heads = ode.num_heads;
  c.max_position_embeddings = ode.max_positions;
  c.rms_norm_eps = 1e-5;
  c.tie_word_embeddings = true;
  // The SwiGLU width whose count is closest to the ODE model's.
  const int64_t want = ro::CountParams(ode);
  auto gap = [&](int I) {
    c.intermediate_size = I;
    return std::abs(LlamaParams(c) - want);
  };
  int best = 1;
  for (int I = 1; I <= 64 * ode.hidden_size; ++I) {
    if (gap(I) < gap(best)) best = I;
    if (LlamaParams(c) >= want) break;  // gap(I) set c to I; the count only grows with I
  }
  c.intermediate_size = best;
  return c;
}

TrainedSet TrainSet(harness::Profile profile, uint64_t seed) {
  const harness::OpenBlasOneThread pinned;  // the vanilla model's values independent of the core count
  TrainedSet set;
  const int p = profile == harness::Profile::kSmoke ? 0 : profile == harness::Profile::kQuick ? 1 : 2;
  const int seeds = std::array{1, 3, 5}[p];
  set.options.steps = std::array{30, 300, 1500}[p];
  set.options.batch = 8;
  set.options.seq = std::array{32, 64, 64}[p];
  set.options.warmup = set.options.steps / 10;
  set.options.lr = 3e-3;
  set.eval_batches = std::array{2, 16, 32}[p];
  const lm_suite::SubstrateData data = lm_suite::MakeSubstrateData(kVocab);
  set.heldout = data.heldout_stream;
  const ro::OdeConfig oc = TrainedOdeConfig(kVocab, set.options.seq + 1);
  const ref::lm::TransformerConfig vc = VanillaConfig(oc);
  for (int s = 0; s < seeds; ++s) {
    TrainedPair pair;
    pair.seed = seed + s;
    const auto start = std::chrono::steady_clock::now();
    set.options.seed = pair.seed;
    pair.ode = std::make_unique<OdeLm>(oc, ro::RandomParams(oc, pair.seed));
    lm_suite::Trainer ode_trainer(*pair.ode, data.train_stream, set.options);
    ode_trainer.Run(nullptr);
    pair.ode_loss = ode_trainer.Evaluate(set.heldout, set.eval_batches, 0xE7A1);
    pair.vanilla = std::make_unique<lm_suite::CpuTransformer>(ref::lm::RandomInit(vc, pair.seed));
    lm_suite::Trainer van_trainer(*pair.vanilla, data.train_stream, set.options);
    van_trainer.Run(nullptr);
    pair.vanilla_loss = van_trainer.Evaluate(set.heldout, set.eval_batches, 0xE7A1);
    pair.ode_params = ro::CountParams(oc);
    pair.vanilla_params = int64_t(pair.vanilla->num_params());
    pair.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    set.pairs.push_back(std::move(pair));
  }
  return set;
}

}  // namespace

const TrainedSet& Trained(const harness::ClaimContext& ctx) {
  static std::mutex mu;
  static std::map<std::pair<int, uint64_t>, TrainedSet> cache;
  std::lock_guard<std::mutex> lock(mu);
  const auto key = std::make_pair(int(ctx.profile()), ctx.seed());
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, TrainSet(ctx.profile(), ctx.seed())).first;
  return it->second;
}

}  // namespace cb::odeformer
