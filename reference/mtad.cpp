// File: reference/mtad.cpp
// The fp64 reference decoders of reference/mtad.h: ancestral, speculative,
// MTAD (beam draft + joint verification), exact MTJD by enumeration, and the
// chi-square goodness-of-fit used to test losslessness.
#include "reference/mtad.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "harness/random.h"

namespace cb::ref::mtad {
namespace {

namespace h = cb::harness;
constexpr double kInf = std::numeric_limits<double>::infinity();

void Fail(const std::string& what) { throw std::invalid_argument("mtad: " + what); }

void CheckCommon(const NextTokenModel& target, const NextTokenModel* draft,
                 std::span<const Token> prompt, int n) {
  const int v = target.vocab_size();
  if (draft != nullptr && draft->vocab_size() != v) {
    Fail("draft vocabulary " + std::to_string(draft->vocab_size()) +
         " differs from the target's " + std::to_string(v));
  }
  if (n < 0) Fail("length n = " + std::to_string(n) + " is negative");
  for (size_t i = 0; i < prompt.size(); ++i) {
    if (prompt[i] < 0 || prompt[i] >= v) {
      Fail("prompt token " + std::to_string(prompt[i]) + " at position " + std::to_string(i) +
           " is outside [0, " + std::to_string(v) + ")");
    }
  }
}

// Filtered distribution of `model` after `prefix`.
void FilteredNext(const NextTokenModel& model, std::span<const Token> prefix, const Filter& f,
                  std::span<double> out) {
  model.Next(prefix, out);
  ApplyFilter(out, f);
}

// Filtered distributions of `model` after ctx + block[0..i), i = 0..g, into
// p[0..g]: one target call.
void FilteredNextBlock(const NextTokenModel& model, std::span<const Token> ctx, std::span<const Token> block,
                       const Filter& f, std::vector<std::vector<double>>& p) {
  const size_t v = static_cast<size_t>(model.vocab_size());
  std::vector<double> rows((block.size() + 1) * v);
  model.NextBlock(ctx, block, rows);
  for (size_t i = 0; i <= block.size(); ++i) {
    std::copy_n(rows.begin() + i * v, v, p[i].begin());
    ApplyFilter(p[i], f);
  }
}

double SafeLog(double x) { return x > 0 ? std::log(x) : -kInf; }

// Draws up to k distinct indices of `weights` without replacement, each in
// turn with probability proportional to the remaining weights (one Uniform
// per draw). Stops early when no mass remains.
std::vector<int64_t> SampleWithoutReplacement(std::vector<double> weights, int k, h::Rng& rng) {
  std::vector<int64_t> chosen;
  for (int i = 0; i < k; ++i) {
    double mass = 0;
    for (double w : weights) mass += w;
    if (!(mass > 0)) break;
    const int64_t idx = SampleIndex(weights, rng.Uniform());
    chosen.push_back(idx);
    weights[idx] = 0;
  }
  return chosen;
}

}  // namespace

// ---------------------------------------------------------------------------
// Models.

void NextTokenModel::NextBlock(std::span<const Token> ctx, std::span<const Token> block,
                               std::span<double> out) const {
  const size_t v = static_cast<size_t>(vocab_size());
  if (out.size() != (block.size() + 1) * v) Fail("NextBlock: out is not [(g + 1) * V]");
  std::vector<Token> prefix(ctx.begin(), ctx.end());
  for (size_t i = 0; i <= block.size(); ++i) {
    Next(prefix, out.subspan(i * v, v));
    if (i < block.size()) prefix.push_back(block[i]);
  }
}

void NextTokenModel::NextMany(std::span<const std::vector<Token>> prefixes, std::span<double> out) const {
  const size_t v = static_cast<size_t>(vocab_size());
  if (out.size() != prefixes.size() * v) Fail("NextMany: out is not [n * V]");
  for (size_t b = 0; b < prefixes.size(); ++b) Next(prefixes[b], out.subspan(b * v, v));
}

void KnModel::Next(std::span<const Token> prefix, std::span<double> out) const {
  lm_.Distribution(prefix, prefix.size(), out);
}

NoisyModel::NoisyModel(const NextTokenModel& base, double lambda, uint64_t noise_seed)
    : base_(base), lambda_(lambda) {
  if (!(lambda >= 0 && lambda <= 1)) Fail("lambda must lie in [0, 1]");
  const int v = base.vocab_size();
  noise_.assign(static_cast<size_t>(v + 1) * v, 0.0);
  for (int u = 0; u <= v; ++u) {
    h::Rng rng(noise_seed, static_cast<uint64_t>(u));
    double sum = 0;
    double* row = noise_.data() + static_cast<size_t>(u) * v;
    for (int w = 0; w < v; ++w) {
      const double e = -std::log(rng.Uniform());
      row[w] = e * e * e * e;
      sum += row[w];
    }
    for (int w = 0; w < v; ++w) row[w] /= sum;
  }
}

void NoisyModel::Next(std::span<const Token> prefix, std::span<double> out) const {
  base_.Next(prefix, out);
  if (lambda_ == 0) return;
  const int v = vocab_size();
  const int u = prefix.empty() ? v : prefix.back();
  const double* row = noise_.data() + static_cast<size_t>(u) * v;
  for (int w = 0; w < v; ++w) out[w] = (1 - lambda_) * out[w] + lambda_ * row[w];
}

// ---------------------------------------------------------------------------
// Filtering and sampling.

void CheckFilter(const Filter& f, int vocab_size) {
  if (f.top_k < 0) Fail("top_k = " + std::to_string(f.top_k) + " is negative");
  if (!(f.top_p > 0 && f.top_p <= 1)) Fail("top_p must lie in (0, 1]");
  (void)vocab_size;
}

void ApplyFilter(std::span<double> p, const Filter& f) {
  const int v = static_cast<int>(p.size());
  std::vector<int> order(v);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return p[a] > p[b]; });
  const int k = (f.top_k > 0 && f.top_k < v) ? f.top_k : v;
  double total = 0;
  for (int i = 0; i < k; ++i) total += p[order[i]];
  // Nucleus over the kept k, on their renormalised mass (HF applies top-p to
  // the softmax of the top-k-masked logits).
  int keep = 0;
  double cum = 0;
  while (keep < k) {
    cum += p[order[keep]];
    ++keep;
    if (cum >= f.top_p * total) break;
  }
  double kept = 0;
  for (int i = 0; i < keep; ++i) kept += p[order[i]];
  for (int i = keep; i < v; ++i) p[order[i]] = 0;
  for (int i = 0; i < keep; ++i) p[order[i]] /= kept;
}

Token SampleIndex(std::span<const double> p, double u) {
  double total = 0;
  for (double x : p) total += x;
  const double target = u * total;
  double cum = 0;
  int last_positive = -1;
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] <= 0) continue;
    last_positive = static_cast<int>(i);
    cum += p[i];
    if (target < cum) return static_cast<Token>(i);
  }
  if (last_positive < 0) throw std::logic_error("mtad: SampleIndex on zero mass");
  return last_positive;  // rounding at the top end
}

Costs& Costs::operator+=(const Costs& o) {
  target_calls += o.target_calls;
  target_positions += o.target_positions;
  draft_evals += o.draft_evals;
  tokens += o.tokens;
  flop_proxy += o.flop_proxy;
  return *this;
}

// ---------------------------------------------------------------------------
// Decoders.

Generation Ancestral(const NextTokenModel& target, std::span<const Token> prompt, int n,
                     const Filter& filter, h::Rng& rng) {
  CheckCommon(target, nullptr, prompt, n);
  CheckFilter(filter, target.vocab_size());
  Generation g;
  std::vector<Token> ctx(prompt.begin(), prompt.end());
  std::vector<double> p(target.vocab_size());
  for (int t = 0; t < n; ++t) {
    FilteredNext(target, ctx, filter, p);
    const Token x = SampleIndex(p, rng.Uniform());
    ctx.push_back(x);
    g.tokens.push_back(x);
    g.accepted.push_back(0);
    ++g.costs.target_calls;
    ++g.costs.target_positions;
    g.costs.flop_proxy += target.EvalCost();
  }
  g.costs.tokens = n;
  return g;
}

Generation Speculative(const NextTokenModel& target, const NextTokenModel& draft,
                       std::span<const Token> prompt, int n, const SpecParams& params,
                       h::Rng& rng) {
  CheckCommon(target, &draft, prompt, n);
  CheckFilter(params.filter, target.vocab_size());
  if (params.gamma < 1) Fail("gamma = " + std::to_string(params.gamma) + " must be >= 1");
  const int v = target.vocab_size(), gamma = params.gamma;
  Generation g;
  std::vector<Token> ctx(prompt.begin(), prompt.end());
  std::vector<std::vector<double>> q(gamma, std::vector<double>(v));
  std::vector<std::vector<double>> p(gamma + 1, std::vector<double>(v));
  std::vector<Token> block(gamma);
  while (static_cast<int>(g.tokens.size()) < n) {
    // Draft gamma tokens from filtered q.
    const size_t base = ctx.size();
    for (int i = 0; i < gamma; ++i) {
      FilteredNext(draft, ctx, params.filter, q[i]);
      block[i] = SampleIndex(q[i], rng.Uniform());
      ctx.push_back(block[i]);
    }
    ctx.resize(base);
    g.costs.draft_evals += gamma;
    g.costs.flop_proxy += gamma * draft.EvalCost();
    // One target call scores gamma + 1 positions.
    FilteredNextBlock(target, ctx, block, params.filter, p);
    ++g.costs.target_calls;
    g.costs.target_positions += gamma + 1;
    g.costs.flop_proxy += (gamma + 1) * target.EvalCost();
    int accepted = 0;
    Token next = -1;
    for (int i = 0; i < gamma; ++i) {
      const double ratio = p[i][block[i]] / q[i][block[i]];
      if (rng.Uniform() < std::min(1.0, ratio)) {
        ++accepted;
        continue;
      }
      std::vector<double> residual(v);
      double residual_mass = 0;
      for (int w = 0; w < v; ++w) {
        residual[w] = std::max(0.0, p[i][w] - q[i][w]);
        residual_mass += residual[w];
      }
      // (p - q)+ is empty only when p = q up to rounding, where a rejection
      // itself is a rounding event: draw from p then.
      next = SampleIndex(residual_mass > 0 ? residual : p[i], rng.Uniform());
      break;
    }
    if (accepted == gamma) next = SampleIndex(p[gamma], rng.Uniform());
    for (int i = 0; i < accepted; ++i) ctx.push_back(block[i]);
    ctx.push_back(next);
    g.tokens.insert(g.tokens.end(), ctx.begin() + base, ctx.end());
    g.accepted.push_back(accepted);
  }
  g.tokens.resize(n);
  g.costs.tokens = n;
  return g;
}

void CheckMtadParams(const MtadParams& p, int vocab_size) {
  if (p.gamma < 1) Fail("gamma = " + std::to_string(p.gamma) + " must be >= 1");
  if (p.beams < 1) Fail("beams = " + std::to_string(p.beams) + " must be >= 1");
  if (std::isnan(p.tau) || p.tau < 0) Fail("tau must be >= 0 (infinity allowed)");
  CheckFilter(p.filter, vocab_size);
}

void ExpandScores(std::span<const double> w, std::span<const double> q, int vocab_size,
                  std::span<double> out) {
  const size_t beams = w.size();
  double total = 0;
  for (size_t b = 0; b < beams; ++b) {
    for (int v = 0; v < vocab_size; ++v) {
      out[b * vocab_size + v] = w[b] * q[b * vocab_size + v];
      total += out[b * vocab_size + v];
    }
  }
  if (!(total > 0)) throw std::logic_error("mtad: ExpandScores on zero mass");
  for (size_t i = 0; i < beams * vocab_size; ++i) out[i] /= total;
}

int AcceptDepth(std::span<const double> logp, std::span<const double> logq, double log_tau,
                std::vector<double>* margins) {
  double margin = 0;
  int depth = 0;
  if (margins) margins->assign(logp.size(), 0.0);
  for (size_t i = 0; i < logp.size(); ++i) {
    margin += logp[i] - logq[i];
    if (margins) (*margins)[i] = margin;
    if (margin > log_tau) depth = static_cast<int>(i) + 1;
  }
  return depth;
}

BeamDraft DraftBeams(const NextTokenModel& draft, std::span<const Token> context, int gamma,
                     int beams, const Filter& filter, h::Rng& rng, Costs* costs) {
  const int v = draft.vocab_size();
  struct Beam {
    std::vector<Token> tokens;
    std::vector<double> logq;
  };
  std::vector<double> q(v);
  std::vector<Token> ctx(context.begin(), context.end());
  FilteredNext(draft, ctx, filter, q);
  int evals = 1;
  std::vector<Beam> live;
  std::vector<double> w;
  for (int64_t x : SampleWithoutReplacement(q, beams, rng)) {
    live.push_back({{static_cast<Token>(x)}, {std::log(q[x])}});
    w.push_back(q[x]);
  }
  double sum = std::accumulate(w.begin(), w.end(), 0.0);
  for (double& x : w) x /= sum;
  std::vector<double> qb, scores;
  for (int t = 1; t < gamma; ++t) {
    const size_t nb = live.size();
    qb.assign(nb * v, 0.0);   // (nb, V) filtered q of each beam
    scores.assign(nb * v, 0.0);
    std::vector<std::vector<Token>> prefixes(nb);  // one batched draft call for all beams
    for (size_t b = 0; b < nb; ++b) {
      prefixes[b].assign(context.begin(), context.end());
      prefixes[b].insert(prefixes[b].end(), live[b].tokens.begin(), live[b].tokens.end());
    }
    draft.NextMany(prefixes, qb);
    for (size_t b = 0; b < nb; ++b) ApplyFilter(std::span<double>(qb).subspan(b * v, v), filter);
    evals += static_cast<int>(nb);
    ExpandScores(w, qb, v, scores);
    std::vector<Beam> next;
    std::vector<double> nw;
    for (int64_t idx : SampleWithoutReplacement(scores, beams, rng)) {
      const size_t b = static_cast<size_t>(idx) / v;
      const Token tok = static_cast<Token>(idx % v);
      Beam nbm = live[b];
      nbm.tokens.push_back(tok);
      nbm.logq.push_back(std::log(qb[idx]));
      next.push_back(std::move(nbm));
      nw.push_back(scores[idx]);
    }
    live = std::move(next);
    sum = std::accumulate(nw.begin(), nw.end(), 0.0);
    for (double& x : nw) x /= sum;
    w = std::move(nw);
  }
  const size_t best = std::max_element(w.begin(), w.end()) - w.begin();
  if (costs) {
    costs->draft_evals += evals;
    costs->flop_proxy += evals * draft.EvalCost();
  }
  return {live[best].tokens, live[best].logq, w[best], static_cast<int>(live.size())};
}

Generation Mtad(const NextTokenModel& target, const NextTokenModel& draft,
                std::span<const Token> prompt, int n, const MtadParams& params, h::Rng& rng,
                std::vector<BlockTrace>* trace) {
  CheckCommon(target, &draft, prompt, n);
  CheckMtadParams(params, target.vocab_size());
  const int v = target.vocab_size(), gamma = params.gamma;
  const double log_tau = std::log(params.tau);  // -inf at 0, +inf at +inf
  Generation g;
  std::vector<Token> ctx(prompt.begin(), prompt.end());
  std::vector<std::vector<double>> p(gamma + 1, std::vector<double>(v));
  std::vector<double> logp(gamma), margins;
  while (static_cast<int>(g.tokens.size()) < n) {
    const BeamDraft d = DraftBeams(draft, ctx, gamma, params.beams, params.filter, rng, &g.costs);
    const size_t base = ctx.size();
    FilteredNextBlock(target, ctx, d.block, params.filter, p);
    for (int i = 0; i < gamma; ++i) logp[i] = SafeLog(p[i][d.block[i]]);
    ++g.costs.target_calls;
    g.costs.target_positions += gamma + 1;
    g.costs.flop_proxy += (gamma + 1) * target.EvalCost();
    const int depth = AcceptDepth(logp, d.logq, log_tau, trace ? &margins : nullptr);
    if (trace) trace->push_back({d.block, margins, depth});
    for (int i = 0; i < depth; ++i) ctx.push_back(d.block[i]);
    ctx.push_back(SampleIndex(p[depth], rng.Uniform()));
    g.tokens.insert(g.tokens.end(), ctx.begin() + base, ctx.end());
    g.accepted.push_back(depth);
  }
  g.tokens.resize(n);
  g.costs.tokens = n;
  return g;
}

// ---------------------------------------------------------------------------
// Exact joint decoding and scoring.

double JointLogProb(const NextTokenModel& target, std::span<const Token> context,
                    std::span<const Token> block) {
  std::vector<Token> ctx(context.begin(), context.end());
  std::vector<double> p(target.vocab_size());
  double lp = 0;
  for (Token x : block) {
    target.Next(ctx, p);
    lp += SafeLog(p[x]);
    ctx.push_back(x);
  }
  return lp;
}

namespace {

void EnumerateModes(const NextTokenModel& target, std::vector<Token>& ctx, int depth_left,
                    double lp, std::vector<Token>& path, JointMode& best) {
  if (depth_left == 0) {
    if (lp > best.log_prob) best = {path, lp};
    return;
  }
  std::vector<double> p(target.vocab_size());
  target.Next(ctx, p);
  for (int w = 0; w < target.vocab_size(); ++w) {
    if (!(p[w] > 0)) continue;
    ctx.push_back(w);
    path.push_back(w);
    EnumerateModes(target, ctx, depth_left - 1, lp + std::log(p[w]), path, best);
    path.pop_back();
    ctx.pop_back();
  }
}

}  // namespace

JointMode ExactJointMode(const NextTokenModel& target, std::span<const Token> context,
                         int gamma) {
  CheckCommon(target, nullptr, context, 0);
  if (gamma < 1) Fail("gamma = " + std::to_string(gamma) + " must be >= 1");
  if (std::pow(double(target.vocab_size()), gamma) > double(1 << 24)) {
    Fail("V^gamma above 2^24 blocks: too many to enumerate");
  }
  std::vector<Token> ctx(context.begin(), context.end()), path;
  JointMode best{{}, -kInf};
  EnumerateModes(target, ctx, gamma, 0.0, path, best);
  return best;
}

double MeanNll(const NextTokenModel& target, std::span<const Token> prompt,
               std::span<const Token> generated) {
  if (generated.empty()) Fail("MeanNll of an empty generation");
  return -JointLogProb(target, prompt, generated) / double(generated.size());
}

}  // namespace cb::ref::mtad
