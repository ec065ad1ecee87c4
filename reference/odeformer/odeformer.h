// File: reference/odeformer/odeformer.h
// -----------------------------------------------------------------------------
// The fp64 reference of the neural-ODE transformer of Tong et al., "Neural ODE
// Transformers" (ICLR 2025; DiffEqFormer), as SDML-KU/qkvflow's
// NeuralOdeLMHeadModel computes it (qkvflow/nn/dynamic.py and
// nn/time_embed.py at a3f15470). One GPT-2 block whose weights are functions
// of a time t in [0, 1], integrated with explicit Euler over L steps:
//
//   x_0      = wte[tokens] + wpe[positions]                       [N, D]
//   step i   x <- x + dt * F(t_i, x),  dt = 1/L,  t_i = (i+1) dt   (forward)
//   F(t, x)  = Attn_t(LN^a_t x) + MLP_t(LN^m_t x)                  (parallel)
//   logits   = LN_f(x) wte^T                                        [N, V] (tied)
//
// Time embedding (SinusoidalPosEmb, scale 1000, max_period 10^4, S = the
// sinusoidal dim): s(t) = [t, sin(1000 t w_k), cos(1000 t w_k)], k < S,
// w_k = exp(-k ln(10^4) / S); s has 2S + 1 entries.
//
// Every module (attn_ln, c_attn, attn c_proj, mlp_ln, c_fc, mlp c_proj) has
// its own hypernetwork h(t) = lin2(silu(lin1 s(t))) in R^T (TemporalLinear,
// TemporalLayerNorm; lin1 and lin2 have biases), and then
//   Linear     W(t) = fw_b + fw_w h   (f_W is a Linear T -> out*in, with bias)
//              b(t) = fb h            (f_b: a [T, out] matrix, no bias)
//   LayerNorm  gamma(t) = 1 + fw h,  beta(t) = fb h  (eps 1e-5, biased variance)
// Attention is causal, scale 1/sqrt(head size), c_attn's outputs ordered
// (qkv, head, head dim); c_proj's inputs (head, head dim); the MLP is
// GELU with the tanh approximation (GPT-2's gelu_new) between c_fc and c_proj.
//
// The time grid: the forward pass evaluates F at t_i = (i+1) dt (dynamic.py
// NeuralOdeTransformer.__call__); the analyses (analysis/lyapunov.py,
// analysis/spectral.py) evaluate the weights at t_i = i dt. Both are here
// (TimeGrid); the off-by-one is the authors' and is flagged in the README.
//
// Layout: a Linear weight is [out, in] row-major (y = W x). fw_w of a module
// is [out*in, T] (row o*in + j holds W[o, j]'s coefficients), fw_b [out*in],
// fb [out, T]; a LayerNorm's fw and fb are [D, T].
//
// Thread safety: an OdeTransformer is immutable; const methods may run
// concurrently.
//
// Errors: a bad config, a token outside [0, V), more positions than
// max_positions or wrongly sized parameters throw std::invalid_argument.
#ifndef CB_REFERENCE_ODEFORMER_ODEFORMER_H_
#define CB_REFERENCE_ODEFORMER_ODEFORMER_H_

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace cb::ref::odeformer {

struct OdeConfig {
  int vocab_size = 512;
  int hidden_size = 32;      // D
  int num_heads = 2;         // H (head size D / H)
  int mlp_size = 128;        // I (GPT-2: 4 D)
  int num_steps = 4;         // L, the Euler steps of training (dt = 1/L)
  int max_positions = 256;   // learned absolute positions
  int sinusoidal_dim = 16;   // S (qkvflow's configs: 128..512)
  int tembed_dim = 8;        // T (qkvflow's hypernetwork width: 20..100)
  double ln_eps = 1e-5;

  int HeadSize() const { return hidden_size / num_heads; }
  int TimeFeatures() const { return 2 * sinusoidal_dim + 1; }
  void Validate() const;
};

// Where in [0, 1] step i evaluates the weights.
enum class TimeGrid {
  kForward,   // t_i = (i + 1) dt: the forward pass and training (dynamic.py)
  kAnalysis,  // t_i = i dt: lyapunov.py and spectral.py
};
double StepTime(TimeGrid grid, int i, double dt);

// s(t) [2S + 1].
std::vector<double> TimeFeatures(double t, int sinusoidal_dim);

// h(t) = lin2(silu(lin1 s)).
struct HyperNet {
  std::vector<double> lin1_w;  // [T, 2S+1]
  std::vector<double> lin1_b;  // [T]
  std::vector<double> lin2_w;  // [T, T]
  std::vector<double> lin2_b;  // [T]
};

struct TemporalLinear {
  int out = 0, in = 0;
  HyperNet hyper;
  std::vector<double> fw_w;  // [out*in, T]
  std::vector<double> fw_b;  // [out*in]
  std::vector<double> fb;    // [out, T]
};

struct TemporalLayerNorm {
  HyperNet hyper;
  std::vector<double> fw;  // [D, T]
  std::vector<double> fb;  // [D, T]
};

// Every parameter (or, from Backward, every gradient: same layout).
struct OdeParams {
  std::vector<double> wte;   // [V, D]  (tied: also the unembedding)
  std::vector<double> wpe;   // [P, D]
  TemporalLayerNorm attn_ln, mlp_ln;
  TemporalLinear c_attn;     // [3D, D]
  TemporalLinear attn_proj;  // [D, D]
  TemporalLinear c_fc;       // [I, D]
  TemporalLinear mlp_proj;   // [D, I]
  std::vector<double> lnf_w, lnf_b;  // [D]
};

// Every tensor of `p` with a stable name and its shape, in one fixed order
// (flattening, gradient checks, checkpoints and parameter counts use it).
struct ParamView {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<double>* data;
};
std::vector<ParamView> ListParams(OdeParams& p);
int64_t CountParams(const OdeConfig& c);

// The block's weights at one time t (what the hypernetworks produce).
struct BlockWeights {
  std::vector<double> ln_a_g, ln_a_b;  // [D]
  std::vector<double> w_qkv, b_qkv;    // [3D, D], [3D]
  std::vector<double> w_o, b_o;        // [D, D], [D]
  std::vector<double> ln_m_g, ln_m_b;  // [D]
  std::vector<double> w_fc, b_fc;      // [I, D], [I]
  std::vector<double> w_p, b_p;        // [D, I], [D]
};

class OdeTransformer {
 public:
  OdeTransformer(const OdeConfig& config, OdeParams params);
  const OdeConfig& config() const { return config_; }
  const OdeParams& params() const { return params_; }

  BlockWeights WeightsAt(double t) const;

  // F(t, x) for a state x [N, D] -> [N, D] (causal over the N rows).
  std::vector<double> VectorField(const BlockWeights& w, std::span<const double> x, int n) const;

  // x_0 [N, D] of a token sequence.
  std::vector<double> Embed(std::span<const int> tokens) const;

  // The states after each Euler step: [steps][N*D] (trajectory[i] is the
  // state after step i + 1, as compute_trajectory returns it). `steps` may
  // differ from config().num_steps (inference at another step count: dt =
  // 1/steps, the same hypernetworks).
  std::vector<std::vector<double>> Trajectory(std::span<const double> x0, int n, int steps,
                                              TimeGrid grid = TimeGrid::kForward) const;

  // Logits [N, V] after `steps` Euler steps (0: config().num_steps).
  std::vector<double> Forward(std::span<const int> tokens, int steps = 0) const;

  // Mean next-token cross-entropy over positions 0..N-2 (N >= 2).
  double Loss(std::span<const int> tokens, int steps = 0) const;
  // The same loss and its gradient for every parameter (odeformer_backward.cpp),
  // at config().num_steps on the forward grid.
  double LossAndGrad(std::span<const int> tokens, OdeParams& grad) const;

 private:
  OdeConfig config_;
  OdeParams params_;
};

// Parameters of `config`'s shapes: GPT-2-style N(0, 0.02) for wte, wpe and
// every fw_w (and 1e-4 N(0,1) for a Linear's fb, as qkvflow); zero fw_b of
// the Linears scaled N(0, 0.02) so the block starts as a random GPT-2 block;
// the LayerNorms' fw, fb zero (gamma = 1, beta = 0 at every t); lin1 / lin2
// uniform(+-1/sqrt(fan_in)) as a Linear's default.
OdeParams RandomParams(const OdeConfig& config, uint64_t seed);
// RandomParams plus N(0, sd^2) on every value, so the tables that start at
// zero (the LayerNorms' fw, fb, the Linears' fw_b) take part too (tests and
// claims that need a block far from its initialisation).
OdeParams PerturbedParams(const OdeConfig& config, uint64_t seed, double sd);
// Zero parameters of `config`'s shapes (a gradient accumulator).
OdeParams ZeroParams(const OdeConfig& config);

// GELU, tanh approximation, and its derivative.
double GeluTanh(double u);
double GeluTanhGrad(double u);

}  // namespace cb::ref::odeformer

#endif  // CB_REFERENCE_ODEFORMER_ODEFORMER_H_
