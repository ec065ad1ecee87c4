// File: reference/mia/mia.h
// -----------------------------------------------------------------------------
// fp64 CPU reference of pre-training-data detection (membership inference) as
// the papers' code defines it (brief mia-fsd-docs-coat.md §0-§2):
//
//   per position (Min-K%++, §1 step 2), from logits z (V) or a distribution p:
//     log p_t  = log softmax(z)[x_t]
//     mu_t     = sum_z p(z) log p(z)                       (negative entropy)
//     sigma2_t = sum_z p(z) (log p(z) - mu_t)^2            (two-pass; equal to
//                sum p (log p)^2 - mu^2, the papers' form, without its cancellation)
//   token score s_t = (log p_t - mu_t) / max(sigma_t, kSigmaFloor)
//
//   text scores (labels 1 = member; every score here: higher = member):
//     Loss       mean_t ll_t                                  (= -mean NLL)
//     Zlib       Loss / len(zlib.compress(text.encode()))     (level 6, Python's default)
//     Lowercase  Loss(text.lower()) / Loss(text)
//     Min-K%     mean of the MinKCount(n, k) smallest ll_t
//     Min-K%++   mean of the MinKCount(n, k) smallest s_t
//     Ref        Loss(target) - Loss(reference model)
//   FSD (§2) uses the FSD repository's scores, where LOWER means member:
//     PPL = exp(-Loss); Zlib' = -Loss / zlib_len; Lowercase' = -(NLL_lower / NLL);
//     Min-K%' = -MinK(0.2); and FSD_S(x) = S'(x; fine-tuned) - S'(x; base), which
//     is higher for members (non-members' S' drops more after fine-tuning).
//
// Token scoring follows §0: ll_t for t = 2..T of a text of T tokens (the first
// token is never scored), so n = T - 1 positions.
//
// The count of Min-K% / Min-K%++ is the authors' by default: int(n * k) in
// fp64, with k the double nearest i/10 (zjysteven/mink-plus-plus run.py and
// ml-stat-Sustech/Fine-tuned-Score-Deviation eval.py; see MinKCount). That is
// one token fewer than the exact floor(k n) at k = 0.7 and n = 90, 170, 180,
// 330, ... (0.7 is stored as 0.69999999999999996, and 90 * that rounds to
// 62.99999999999999); KCount::kExactDecimal gives the exact count instead.
//
// Edge cases (brief §1 pitfalls): sigma_t -> 0 (a peaked distribution) uses
// the floor kSigmaFloor in the denominator; a count of 0 for short texts
// takes the single smallest value instead of the authors' NaN (np.mean of an
// empty slice); an empty text (n = 0) or a NaN input throws
// std::invalid_argument.
#ifndef CB_REFERENCE_MIA_MIA_H_
#define CB_REFERENCE_MIA_MIA_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cb::ref::mia {

inline constexpr double kSigmaFloor = 1e-8;

struct PositionStats {
  double logp = 0;    // log p(target)
  double mu = 0;      // sum p log p
  double sigma2 = 0;  // sum p (log p - mu)^2
};

// From one row of logits z (V), fp64 two-pass (max, log-sum-exp, then
// moments). REQUIRES: logits non-empty and finite, 0 <= target < V.
PositionStats StatsFromLogits(std::span<const double> logits, int64_t target);

// From a normalised distribution p (V) (an n-gram model's output); entries
// with p = 0 contribute 0 (0 log 0 = 0). REQUIRES: p[target] > 0.
PositionStats StatsFromDistribution(std::span<const double> p, int64_t target);

// s_t = (logp - mu) / max(sqrt(sigma2), kSigmaFloor), elementwise.
// REQUIRES: equal sizes.
std::vector<double> MinKppTokenScores(std::span<const double> ll, std::span<const double> mu,
                                      std::span<const double> sigma2);

// How many of n values Min-K% / Min-K%++ average at ratio k.
enum class KCount {
  // The authors' int(len(x) * ratio): the fp64 product truncated
  // (mink-plus-plus 5596c65 run.py lines 104 and 111; Fine-tuned-Score-
  // Deviation e3d9060 eval.py line 59). Paper-compatible; the default.
  kAuthors,
  // floor(k n) in exact integer arithmetic with k read as a decimal of at
  // most 6 places (k = 0.7 counts 63 of 90): what the papers' ⌊k·n⌋ says.
  kExactDecimal,
};

// max(1, count) of the mode above. REQUIRES: n >= 1, 0 < k <= 1 (and for
// kExactDecimal, k a multiple of 1e-6 to within 1e-12).
size_t MinKCount(size_t n, double k, KCount mode = KCount::kAuthors);

// Mean of the MinKCount(v.size(), k, mode) smallest values. REQUIRES: v
// non-empty, 0 < k <= 1, no NaN.
double MeanOfSmallest(std::span<const double> v, double k, KCount mode = KCount::kAuthors);

// Length in bytes of zlib.compress(text) at level 6 (Python's default).
int64_t ZlibLength(std::string_view text);

// Everything the methods need about one text, as dumped by a model
// (`claimbench eval mia --stats`) or computed by the n-gram substrate.
// Vectors are per scored position (n = T - 1).
struct TextStats {
  int label = 0;                  // 1 member, 0 non-member
  std::string text;               // for Zlib (may be empty: Zlib then unavailable)
  std::vector<double> ll;         // (n) log p(x_t | x_<t)
  std::vector<double> mu;         // (n) optional (Min-K%++)
  std::vector<double> sigma2;     // (n) optional (Min-K%++)
  std::vector<double> ll_lower;   // (n') optional: ll of text.lower() (Lowercase)
  std::vector<double> ll_ref;     // (n'') optional: reference model's ll (Ref)
  // FSD: the same text under the fine-tuned model (optional).
  std::vector<double> ll_ft;
  std::vector<double> ll_lower_ft;
};

// The k grid {0.1, ..., 1.0}: the doubles nearest i/10, as run.py's literals.
std::vector<double> KGrid();

double LossScore(const TextStats& s);
double ZlibScore(const TextStats& s);
double LowercaseScore(const TextStats& s);
double MinKScore(const TextStats& s, double k, KCount mode = KCount::kAuthors);
double MinKppScore(const TextStats& s, double k, KCount mode = KCount::kAuthors);
double RefScore(const TextStats& s);

// FSD deviation of one base score; `base` is one of "loss", "zlib",
// "lowercase", "mink" (k = 0.2). REQUIRES: s.ll_ft (and s.ll_lower_ft for
// lowercase) present.
double FsdScore(const TextStats& s, std::string_view base);

// A named method and its score for every text (higher = member).
struct MethodScores {
  std::string method;  // e.g. "loss", "mink_0.2", "minkpp_0.6", "fsd_loss"
  std::vector<double> scores;
};

// Every method the available fields allow, in a fixed order: loss, zlib (if
// every text has text), lowercase (ll_lower), mink_<k> and minkpp_<k> for the
// k grid (minkpp needs mu, sigma2), ref (ll_ref), fsd_{loss,zlib,lowercase,mink}
// (ll_ft). A field counts as present only when every text has it.
std::vector<MethodScores> ScoreAll(std::span<const TextStats> texts);

}  // namespace cb::ref::mia

#endif  // CB_REFERENCE_MIA_MIA_H_
