// File: suites/radar/radar_lm_experiment.cpp
// -----------------------------------------------------------------------------
// RunPerplexity (radar_lm_experiment.h). The probes use the fp64 reference
// cache (reference/radar.h) for Radar's structure and selection; random and
// last-segment selection reuse that structure (same c, segments, remainder
// and window: only the chosen segments differ), so every method attends the
// same number of tokens except StreamingLLM, whose window is w + 1 + B.
#include "suites/radar/radar_lm_experiment.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>

#include "harness/blas_threads.h"
#include "harness/interrupt.h"
#include "harness/random.h"
#include "reference/radar.h"

namespace cb::radar {
namespace {

namespace rr = cb::ref::radar;

double RelErr(const std::vector<double>& got, const std::vector<double>& want) {
  double num = 0, den = 0;
  for (size_t i = 0; i < got.size(); ++i) num += (got[i] - want[i]) * (got[i] - want[i]), den += want[i] * want[i];
  return std::sqrt(num / std::max(den, 1e-300));
}

double Nll(const std::vector<float>& logits, int target) {
  const double mx = *std::max_element(logits.begin(), logits.end());
  double z = 0;
  for (float x : logits) z += std::exp(double(x) - mx);
  return mx + std::log(z) - logits[target];
}

// Tokens of the structure with segments `chosen` (ascending) attended.
std::vector<int64_t> Selected(const rr::Config& c, int64_t seg_len, int64_t n_seg, int64_t t,
                              const std::vector<int64_t>& chosen) {
  std::vector<int64_t> tok;
  for (int64_t i = 0; i < std::min<int64_t>(c.sink, t); ++i) tok.push_back(i);
  for (int64_t j : chosen)
    for (int64_t i = c.sink + j * seg_len; i < c.sink + (j + 1) * seg_len; ++i) tok.push_back(i);
  for (int64_t i = c.sink + n_seg * seg_len; i < t; ++i) tok.push_back(i);
  return tok;
}

// Probes one layer of the dense pass at step t (every KV head and query
// head) and writes exact attention (fp64, rounded) to a.out.
void ProbeLayer(const lm_suite::DecodeAttention& a, const ProbeSetting& ps, int seq, uint64_t step,
                std::vector<ProbeSample>& out) {
  const int d = a.head_dim, KV = a.kv_heads, KVd = KV * d, rep = a.heads / KV;
  const int64_t t = a.t;
  const double scale = 1.0 / std::sqrt(double(d));
  std::vector<double> K(size_t(t) * d), V(K.size()), q(d), exact(d), got(d);
  for (int g = 0; g < KV; ++g) {
    for (int64_t i = 0; i < t; ++i)
      for (int j = 0; j < d; ++j) {
        K[size_t(i) * d + j] = a.keys[size_t(i) * KVd + g * d + j];
        V[size_t(i) * d + j] = a.values[size_t(i) * KVd + g * d + j];
      }
    rr::Config cfg = ps.radar;
    cfg.d = d;
    cfg.selection = rr::Selection::kRadar;
    cfg.seed = ps.radar.seed + static_cast<uint64_t>(a.layer * KV + g);
    rr::Cache cache(cfg);
    cache.Append(K.data(), V.data(), t);
    for (int r = 0; r < rep; ++r) {
      const int h = g * rep + r;
      for (int j = 0; j < d; ++j) q[j] = a.q[size_t(h) * d + j];
      rr::DenseDecode(q.data(), K.data(), V.data(), t, d, exact.data());
      for (int j = 0; j < d; ++j) a.out[size_t(h) * d + j] = static_cast<float>(exact[j]);
      ProbeSample s{.seq = seq, .t = static_cast<int>(t), .layer = a.layer, .head = h};
      const std::vector<int64_t> radar_tok = cache.Decode(q.data(), got.data());
      s.err_radar = RelErr(got, exact);
      const int64_t c = cache.segment_len(), n_seg = cache.segments();
      const int64_t k = c > 0 ? cfg.budget / c : 0;
      rr::StreamingDecode(q.data(), K.data(), V.data(), t, d, cfg.sink, cfg.window + 1 + cfg.budget, got.data());
      s.err_streaming = RelErr(got, exact);
      s.segments = n_seg;
      s.segment_len = c;
      if (cache.counters().exact || k <= 0) {  // not built or k covers all: nothing to choose
        s.err_random = s.err_last = s.err_radar;
        out.push_back(s);
        continue;
      }
      std::vector<int64_t> last(k), random;
      std::iota(last.begin(), last.end(), n_seg - k);
      std::vector<int64_t> perm(n_seg);
      std::iota(perm.begin(), perm.end(), int64_t{0});
      cb::harness::Rng rng(cfg.seed, 1000 + step * 64 + h);
      for (int64_t i = 0; i < k; ++i) std::swap(perm[i], perm[i + rng.UniformInt(0, n_seg - 1 - i)]);
      random.assign(perm.begin(), perm.begin() + k);
      std::sort(random.begin(), random.end());
      rr::Attend(q.data(), K.data(), V.data(), d, Selected(cfg, c, n_seg, t, random), got.data());
      s.err_random = RelErr(got, exact);
      rr::Attend(q.data(), K.data(), V.data(), d, Selected(cfg, c, n_seg, t, last), got.data());
      s.err_last = RelErr(got, exact);
      // Exact segment masses (shifted by the store's max logit).
      std::vector<double> logit(size_t(n_seg * c));
      for (int64_t i = 0; i < n_seg * c; ++i) {
        double dot = 0;
        for (int j = 0; j < d; ++j) dot += q[j] * K[size_t(cfg.sink + i) * d + j];
        logit[i] = dot * scale;
      }
      const double mx = *std::max_element(logit.begin(), logit.end());
      std::vector<double> mass(n_seg, 0.0);
      for (int64_t i = 0; i < n_seg * c; ++i) mass[i / c] += std::exp(logit[i] - mx);
      std::vector<double> sorted = mass;
      std::nth_element(sorted.begin(), sorted.begin() + n_seg / 2, sorted.end());
      const double median = sorted[n_seg / 2];
      auto chosen = [&](int64_t j) {
        return std::binary_search(radar_tok.begin(), radar_tok.end(), cfg.sink + j * c);
      };
      std::vector<int64_t> order(n_seg);
      std::iota(order.begin(), order.end(), int64_t{0});
      std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return mass[x] > mass[y]; });
      int overlap = 0;
      for (int64_t i = 0; i < k; ++i) overlap += chosen(order[i]) ? 1 : 0;
      s.topk_overlap = double(overlap) / double(k);
      for (int64_t j = 0; j < n_seg; ++j)
        if (mass[j] >= 10 * median) {
          ++s.high_mass;
          s.high_mass_hit += chosen(j) ? 1 : 0;
        }
      out.push_back(s);
    }
  }
}

}  // namespace

PerplexityRun RunPerplexity(lm_suite::CpuTransformer& model, const std::vector<LmMethodSpec>& methods,
                            const std::vector<std::vector<int>>& sequences, const ProbeSetting& probes,
                            const std::function<void(double)>& progress) {
  if (methods.empty() || !methods[0].dense) throw std::invalid_argument("radar lm: methods[0] must be dense");
  for (const auto& s : sequences)
    if (s.size() < 2) throw std::invalid_argument("radar lm: every sequence needs >= 2 tokens");
  const cb::harness::OpenBlasOneThread one_thread;
  PerplexityRun run;
  run.nll.assign(methods.size(), {});
  run.seconds.assign(methods.size(), 0.0);
  size_t total = 0, done = 0;
  for (const auto& s : sequences) total += s.size() * methods.size();
  for (size_t m = 0; m < methods.size(); ++m) {
    run.methods.push_back(methods[m].name);
    std::unique_ptr<LmAttention> attn;
    if (!methods[m].dense) attn = std::make_unique<LmAttention>(model.config(), methods[m].attention);
    for (size_t si = 0; si < sequences.size(); ++si) {
      if (cb::harness::InterruptRequested()) {  // the check point: one per sequence and method
        model.set_decode_attention_hook({});    // it may point into `attn`
        throw cb::harness::Interrupted{"in " + methods[m].name + ", after " + std::to_string(si) + " of " +
                                       std::to_string(sequences.size()) + " sequences"};
      }
      const std::vector<int>& seq = sequences[si];
      std::vector<double> nll(seq.size(), std::numeric_limits<double>::quiet_NaN());
      lm_suite::CpuKvCache kv;
      const auto start = std::chrono::steady_clock::now();
      model.set_decode_attention_hook({});
      std::vector<float> logits = model.Prefill(std::span<const int>(seq).first(1), kv);
      nll[1] = Nll(logits, seq[1]);
      if (attn) {
        attn->Reset();
        model.set_decode_attention_hook(attn->Hook());
      }
      for (size_t i = 1; i + 1 < seq.size(); ++i) {
        const int t = kv.length + 1;
        const bool probe = methods[m].dense &&
                           std::find(probes.steps.begin(), probes.steps.end(), t) != probes.steps.end();
        if (probe) {
          model.set_decode_attention_hook([&](const lm_suite::DecodeAttention& a) {
            ProbeLayer(a, probes, static_cast<int>(si), static_cast<uint64_t>(t), run.probes);
          });
        }
        logits = model.DecodeStep(seq[i], kv);
        if (probe) model.set_decode_attention_hook({});
        nll[i + 1] = Nll(logits, seq[i + 1]);
        if (progress && ++done % 256 == 0) progress(double(done) / double(total));
      }
      done += 1;
      run.seconds[m] += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      model.set_decode_attention_hook({});
      if (methods[m].dense && si + 1 == sequences.size()) run.last_dense_cache = kv;
      run.nll[m].push_back(std::move(nll));
    }
  }
  if (progress) progress(1.0);
  return run;
}

std::vector<std::pair<int, int>> LengthBuckets(int T) {
  std::vector<std::pair<int, int>> b;
  int lo = 1, hi = 16;
  while (lo < T) {
    b.push_back({lo, std::min(hi, T)});
    lo = hi;
    hi *= 2;
  }
  return b;
}

std::vector<double> BucketValues(const PerplexityRun& run, size_t m, int lo, int hi, bool paired) {
  std::vector<double> v;
  for (size_t s = 0; s < run.nll[m].size(); ++s)
    for (int p = lo; p < hi && p < static_cast<int>(run.nll[m][s].size()); ++p)
      v.push_back(run.nll[m][s][p] - (paired ? run.nll[0][s][p] : 0.0));
  return v;
}

}  // namespace cb::radar
