// File: reference/mtad.h
// -----------------------------------------------------------------------------
// fp64 CPU reference of MTAD (Qin et al., ICLR 2025, "Optimized Multi-Token
// Joint Decoding with Auxiliary Model for LLM Inference"; brief
// decoding-radar-mtad-pf.md §2) and of the decoders it is compared with, on
// the n-gram substrate (reference/lm/kn_lm.h). The spec of suites/mtad.
//
// Notation. p = target, q = draft (auxiliary) model, both FILTERED the same
// way (top-k, then top-p, renormalised: Filter below); gamma = block length,
// B = beams, tau = acceptance threshold.
//
//   Ancestral    x_t ~ p(. | x_<t), one target call per token.
//   Speculative  (Leviathan et al. 2023, lossless w.r.t. filtered p) draft
//                x_1..x_g ~ q; one target call gives p_1..p_{g+1}; accept x_i
//                with prob min(1, p_i(x_i) / q_i(x_i)) in order; at the first
//                rejection draw from norm((p_i - q_i)+) and stop; if all pass,
//                a bonus token from p_{g+1}.
//   MTAD         (the authors' BatchMTADStrategy, with the beam weights
//                normalised as w / sum w instead of the upstream log_softmax
//                over probabilities)
//                draft: B tokens drawn without replacement from q_1,
//                  w_b = q_1(x_b) / sum; for t = 2..g, B (beam, token) pairs
//                  drawn without replacement with prob prop. to
//                  s(b, v) = w_b q_t(v | beam b) (ExpandScores), w <- s of the
//                  chosen pairs / sum; the draft block is the beam of largest
//                  w (= largest joint q), with its per-token log q.
//                verify: one target call gives p_1..p_{g+1} along the block;
//                  margin_i = sum_{j<=i} log p_j(x_j) - sum_{j<=i} log q_j(x_j);
//                  L = max{ i <= g : margin_i > log tau }, 0 if none (NOT
//                  prefix-closed: a shallower depth may fail while a deeper
//                  one passes); accept x_1..x_L, then a bonus token from
//                  p_{L+1} itself (no residual step). Not target-distributed.
//   Exact MTJD   the mode of the target's joint over all V^g blocks,
//                argmax_x sum_i log p(x_i | ctx, x_<i), by enumerating the
//                V^g-leaf tree (1 + V + ... + V^(g-1) model evaluations).
//
// Cost accounting (Costs): target calls (one per verification, however many
// positions it scores), target positions scored, draft evaluations (one per
// distinct draft distribution computed: 1 + B (g - 1) per MTAD block at most,
// g per speculative block; the upstream code's calls x g ignores B), tokens
// emitted, and a FLOP proxy: each evaluation of an order-N model costs N V
// (what KneserNeyLm::Distribution touches).
//
// Randomness: every draw is one Rng::Uniform() (inverse CDF over token ids in
// increasing order), so runs are pure functions of (models, prompt, params,
// seed, stream).
//
// Errors: bad parameters (gamma < 1, beams < 1, tau < 0 or NaN, top_k < 0,
// top_p outside (0, 1], negative length, vocabularies that differ, prompt
// tokens outside [0, V)) throw std::invalid_argument with one line naming
// the parameter.
#ifndef CB_REFERENCE_MTAD_H_
#define CB_REFERENCE_MTAD_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "harness/random.h"
#include "reference/lm/kn_lm.h"

namespace cb::ref::mtad {

using lm::Token;

// A next-token model: out (V) = p(. | prefix), summing to 1.
class NextTokenModel {
 public:
  virtual ~NextTokenModel() = default;
  virtual int vocab_size() const = 0;
  // Relative cost of one evaluation (the FLOP proxy's unit count).
  virtual double EvalCost() const = 0;
  virtual void Next(std::span<const Token> prefix, std::span<double> out) const = 0;
  // The distributions a verification scores in ONE target call: out
  // [(g + 1) * V], row i = p(. | ctx + block[0..i)), i = 0..g, g = block.size().
  // The default calls Next g + 1 times; a model with a KV cache overrides it
  // with one batched forward over the block.
  virtual void NextBlock(std::span<const Token> ctx, std::span<const Token> block,
                         std::span<double> out) const;
  // The distributions after n prefixes at once (MTAD's draft beams, one
  // batched call): out [n * V], row b = p(. | prefixes[b]). The default calls
  // Next n times.
  virtual void NextMany(std::span<const std::vector<Token>> prefixes, std::span<double> out) const;
};

// A Kneser-Ney n-gram model (not owned; must outlive this).
class KnModel : public NextTokenModel {
 public:
  explicit KnModel(const lm::KneserNeyLm& lm) : lm_(lm) {}
  int vocab_size() const override { return lm_.vocab_size(); }
  double EvalCost() const override { return double(lm_.order()) * lm_.vocab_size(); }
  void Next(std::span<const Token> prefix, std::span<double> out) const override;

 private:
  const lm::KneserNeyLm& lm_;
};

// q = (1 - lambda) base + lambda noise(last token): the "target mixed with
// noise at weight lambda" draft. noise(u) is a fixed heavy-tailed random
// distribution per previous token u (BOS for an empty prefix):
// noise(u)[v] prop. to (-ln U_{u,v})^4, U from Rng(noise_seed, u). lambda = 0
// is the base model itself. REQUIRES: 0 <= lambda <= 1.
class NoisyModel : public NextTokenModel {
 public:
  NoisyModel(const NextTokenModel& base, double lambda, uint64_t noise_seed);
  int vocab_size() const override { return base_.vocab_size(); }
  double EvalCost() const override { return base_.EvalCost(); }
  void Next(std::span<const Token> prefix, std::span<double> out) const override;

 private:
  const NextTokenModel& base_;
  double lambda_;
  std::vector<double> noise_;  // (V + 1, V), row V for the empty prefix
};

// Top-k then top-p (nucleus) truncation, as HF's TopK/TopP warpers: keep the
// k most probable tokens (ties: lower id first), then the smallest prefix of
// those, by decreasing probability, whose mass reaches top_p (at least one);
// renormalise. top_k = 0 and top_p = 1 switch each off.
struct Filter {
  int top_k = 10;
  double top_p = 0.9;
};
void CheckFilter(const Filter& f, int vocab_size);
// In place on p (V).
void ApplyFilter(std::span<double> p, const Filter& f);

// The token whose CDF interval (over ids 0..V-1) holds u * sum(p).
// REQUIRES: p has positive mass, 0 < u < 1.
Token SampleIndex(std::span<const double> p, double u);

struct Costs {
  int64_t target_calls = 0;
  int64_t target_positions = 0;
  int64_t draft_evals = 0;
  int64_t tokens = 0;
  double flop_proxy = 0;
  Costs& operator+=(const Costs& o);
  double TokensPerTargetCall() const {
    return target_calls ? double(tokens) / double(target_calls) : 0.0;
  }
};

struct Generation {
  std::vector<Token> tokens;  // exactly n new tokens (the last block truncated)
  Costs costs;
  std::vector<int> accepted;  // L per target call
};

// Ancestral sampling of n tokens from filtered p after `prompt`.
Generation Ancestral(const NextTokenModel& target, std::span<const Token> prompt, int n,
                     const Filter& filter, cb::harness::Rng& rng);

struct SpecParams {
  int gamma = 4;
  Filter filter;
};
Generation Speculative(const NextTokenModel& target, const NextTokenModel& draft,
                       std::span<const Token> prompt, int n, const SpecParams& params,
                       cb::harness::Rng& rng);

struct MtadParams {
  int gamma = 4;
  int beams = 4;
  double tau = 0.5;  // +infinity allowed (L = 0 always)
  Filter filter;
};
void CheckMtadParams(const MtadParams& p, int vocab_size);

// ExpandScores()
//
// One beam-expansion step: out[b, v] = w[b] q[b, v] / sum_{b', v'} w[b'] q[b', v'].
// w: (B), q: (B, V) row-major, out: (B, V). REQUIRES: positive total mass.
void ExpandScores(std::span<const double> w, std::span<const double> q, int vocab_size,
                  std::span<double> out);

// AcceptDepth()
//
// L = max{ i in 1..g : margin_i > log_tau } (0 if none), margin_i =
// sum_{j<=i} (logp[j] - logq[j]); logp may hold -infinity (a token outside the
// filtered target's support). margins (g), if non-null, receives margin_i.
int AcceptDepth(std::span<const double> logp, std::span<const double> logq, double log_tau,
                std::vector<double>* margins = nullptr);

struct BeamDraft {
  std::vector<Token> block;  // (g) the chosen beam
  std::vector<double> logq;  // (g) log q_i(x_i) of the filtered draft along it
  double weight = 0;         // its normalised beam weight
  int beams_alive = 0;       // beams at the last step
};
BeamDraft DraftBeams(const NextTokenModel& draft, std::span<const Token> context, int gamma,
                     int beams, const Filter& filter, cb::harness::Rng& rng, Costs* costs);

// One verified MTAD block, for the invariant checks (claim M1).
struct BlockTrace {
  std::vector<Token> block;    // (g) draft
  std::vector<double> margin;  // (g) margin_i
  int accepted = 0;            // L
};
Generation Mtad(const NextTokenModel& target, const NextTokenModel& draft,
                std::span<const Token> prompt, int n, const MtadParams& params,
                cb::harness::Rng& rng, std::vector<BlockTrace>* trace = nullptr);

// sum_i log p(block_i | context, block_<i) under the UNFILTERED target.
double JointLogProb(const NextTokenModel& target, std::span<const Token> context,
                    std::span<const Token> block);

struct JointMode {
  std::vector<Token> block;  // (g)
  double log_prob = 0;
};
// The exact MTJD block: argmax over all V^g blocks of the unfiltered joint
// (ties: lexicographically smallest). REQUIRES: 1 <= gamma, V^gamma <= 2^24.
JointMode ExactJointMode(const NextTokenModel& target, std::span<const Token> context,
                         int gamma);

// Mean negative log-likelihood per token of `generated` after `prompt`
// under the unfiltered target (PPL = exp of it).
double MeanNll(const NextTokenModel& target, std::span<const Token> prompt,
               std::span<const Token> generated);

}  // namespace cb::ref::mtad

#endif  // CB_REFERENCE_MTAD_H_
