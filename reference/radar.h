// File: reference/radar.h
// -----------------------------------------------------------------------------
// fp64 reference of Radar decoding (Hao et al., ICLR 2025, "Fast Long-Context
// Decoding for Any Transformer"): the spec the fast paths are checked against.
// One KV head, batch 1, q_len 1. Plain loops, fp64 everywhere.
//
// Feature map (random features of exp(q.k / sqrt d)):
//   Omega (d, D), Omega_ij ~ N(0, 1) from Rng(seed, stream); D = 16 d default
//   x~ = d^(-1/4) x,  z = x~ Omega (D)
//   phi(x) = (2D)^(-1/2) [exp(z - |x~|^2/2 - s+), exp(-z - |x~|^2/2 - s-)] + 1e-18   (2D)
//   With s+- = 0, E_Omega[phi(q).phi(k)] = exp(q.k / sqrt d).
//   Stabilisers: keys use s+ = max over stored keys and features of
//   (z_i - |x~|^2/2), s- likewise for -z, fixed at each rebuild; a query uses
//   its own maxima. (Both shift every segment score by the same factor.)
//
// Cache layout at time t (t tokens stored, the current one included):
//   [0, sink)                     sink tokens, always attended
//   [sink, sink + n_seg c)        n_seg segments of c tokens, summaries
//                                 R_j = (1/c) sum_{k in seg j} phi(k)   (2D)
//   [sink + n_seg c, t - w - 1)   remainder buffer (< c tokens once built)
//   [t - w - 1, t)                window: the last w tokens + the current one
// The store is [sink, t - w - 1); its size is n = t - sink - w - 1 (>= 0).
//
// Organisation, lazily at each Decode() (upstream Manager.reorganize):
//   - below the threshold (topk mode: n < (topk / a)^2; budget mode: n <= B)
//     nothing is built and every token is attended exactly;
//   - first build, or n_seg_possible = floor(n / c) >= 2 a^2 c (n doubled):
//     c = max(1, floor(sqrt(n) / a)) (the clamp fixes upstream's c = 0 when
//     topk < a^2), recompute s+- and every R_j: a rebuild;
//   - otherwise append floor(rem / c) whole segments from the remainder, in
//     token order, reusing s+- (upstream appends several in reverse order).
//
// Decode step: score s_j = phi(q).R_j for every segment, k = topk (budget
// mode: floor(B / c)); k >= n_seg attends everything, else the top k by score
// (ties: lower index first). Exact softmax attention in fp64 over
// sink + chosen segments + remainder + window, scaled by 1/sqrt(d).
// Selection modes: kRadar (phi scores), kOracle (upstream `exact`:
// sum_k exp(q.k/sqrt d - max)), kRandom (k distinct segments from
// Rng(seed, step)), kLast (the k most recent segments).
//
// Operation counters (deterministic; MAC = one multiply-add):
//   decode_macs  phi(q) (d D) + scoring (n_seg 2D) + oracle scoring (d n)
//                + attention (2 d attended: q.k and p v)
//   rebuild_macs phi of each key summarised (d D each) + its 2D summary adds
//   attended     tokens in the softmax; rebuilds, segments_appended counts.
// Dense decode: 2 d t MACs, t attended.
#ifndef CB_REFERENCE_RADAR_H_
#define CB_REFERENCE_RADAR_H_

#include <cstdint>
#include <vector>

namespace cb::ref::radar {

// Omega (d, D), row-major: entry (i, j) at omega[i * D + j].
struct FeatureMap {
  int d = 0;
  int D = 0;
  std::vector<double> omega;
};

// Omega_ij ~ N(0, 1) from cb::harness::Rng(seed, stream), row-major order.
// D <= 0 means 16 d. REQUIRES: d >= 1.
FeatureMap MakeFeatureMap(int d, int D, uint64_t seed, uint64_t stream);

// The stabiliser-free exponents: e+ = z - |x~|^2/2 and e- = -z - |x~|^2/2
// (each D long) written to plus/minus; macs += d D.
void Exponents(const FeatureMap& f, const double* x, double* plus, double* minus,
               uint64_t* macs = nullptr);

// phi(x) (2D) with stabilisers s+, s- (formula above); macs += d D.
std::vector<double> Phi(const FeatureMap& f, const double* x, double s_plus, double s_minus,
                        uint64_t* macs = nullptr);

// phi of a query: its own maxima as stabilisers.
std::vector<double> PhiQuery(const FeatureMap& f, const double* q, uint64_t* macs = nullptr);

enum class Selection { kRadar, kOracle, kRandom, kLast };
const char* SelectionName(Selection s);

struct Config {
  int d = 64;
  int D = 0;            // 0: 16 d
  int sink = 1;
  int window = 1024;    // w: residual_length
  double aspect = 2.0;  // a
  int topk = 8;         // topk mode when budget == 0
  int budget = 0;       // B > 0: budget mode, k = floor(B / c)
  Selection selection = Selection::kRadar;
  uint64_t seed = 0;    // Omega from Rng(seed, 0); kRandom from Rng(seed, 1 + step)
};

struct Counters {
  uint64_t decode_macs = 0;   // of the last Decode()
  uint64_t rebuild_macs = 0;  // cumulative (rebuilds and appends)
  uint64_t attended = 0;      // of the last Decode()
  uint64_t rebuilds = 0;      // cumulative
  uint64_t segments_appended = 0;  // cumulative, by incremental appends
  int64_t segments = 0;       // after the last Decode()
  int64_t segment_len = 0;    // c after the last Decode() (0: not built)
  bool exact = false;         // the last Decode() attended every token
};

// The Radar KV cache of one head: every key and value is kept.
class Cache {
 public:
  // REQUIRES: d >= 1, sink >= 0, window >= 0, aspect > 0, topk >= 1 or budget >= 1.
  explicit Cache(const Config& config);

  const Config& config() const { return config_; }
  const FeatureMap& feature_map() const { return features_; }
  int64_t size() const { return static_cast<int64_t>(keys_.size()) / config_.d; }

  // Appends n tokens: keys and values (n, d) row-major. No organisation
  // happens here (upstream reorganises lazily at search time). A non-finite
  // entry throws std::invalid_argument and appends nothing.
  void Append(const double* keys, const double* values, int64_t n);

  // One decode step for query q (d): out (d) = softmax(q K_sel^T / sqrt d) V_sel.
  // Reorganises first. Returns the selected token indices (ascending).
  // A non-finite entry of q throws std::invalid_argument.
  std::vector<int64_t> Decode(const double* q, double* out);

  const Counters& counters() const { return counters_; }
  // Read-only structure for tests: R (n_seg, 2D) and the key stabilisers.
  const std::vector<double>& summaries() const { return summaries_; }
  double s_plus() const { return s_plus_; }
  double s_minus() const { return s_minus_; }
  int64_t segments() const { return n_seg_; }
  int64_t segment_len() const { return c_; }

  // Runs the organisation step alone (Decode() calls it).
  void Organize();

 private:
  int64_t StoreSize() const;  // n = t - sink - w - 1, >= 0
  bool BelowThreshold() const;
  void Rebuild();
  void AppendSegment();  // summarises the next whole segment, token order

  Config config_;
  FeatureMap features_;
  std::vector<double> keys_, values_;  // (t, d)
  std::vector<double> summaries_;      // (n_seg, 2D)
  int64_t c_ = 0, n_seg_ = 0;
  double s_plus_ = 0, s_minus_ = 0;
  uint64_t step_ = 0;
  Counters counters_;
};

// Exact softmax attention of q over the listed tokens of (t, d) keys/values,
// fp64, scale 1/sqrt(d). REQUIRES: tokens non-empty. A non-finite entry of
// q throws std::invalid_argument (keys and values are the caller's).
void Attend(const double* q, const double* keys, const double* values, int d,
            const std::vector<int64_t>& tokens, double* out);

// Dense decode: attention over all t tokens; returns its MACs (2 d t).
uint64_t DenseDecode(const double* q, const double* keys, const double* values, int64_t t, int d,
                     double* out);

// StreamingLLM: sink tokens + the last `window` tokens (the current one
// included). Returns the attended token indices.
std::vector<int64_t> StreamingDecode(const double* q, const double* keys, const double* values,
                                     int64_t t, int d, int sink, int window, double* out);

// Throws std::invalid_argument naming `what` and the first entry of x (n
// values) that is NaN or infinite: a query or key with one has no attention
// (the scores and the softmax turn NaN, the top-k has no order).
void RequireFinite(const double* x, int64_t n, const char* what);
void RequireFinite(const float* x, int64_t n, const char* what);

// Per-step decode MACs predicted by the cost model for a built structure
// (for docs and sanity checks): d D + 2 D n_seg + 2 d attended.
uint64_t PredictedDecodeMacs(int d, int D, int64_t n_seg, int64_t attended);

}  // namespace cb::ref::radar

#endif  // CB_REFERENCE_RADAR_H_
