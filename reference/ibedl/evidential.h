// File: reference/ibedl/evidential.h
// -----------------------------------------------------------------------------
// IB-EDL's evidential head and losses (Li et al., ICLR 2025), in fp64, as the
// authors' code computes them (sandylaker/ib-edl at commit
// ac8d8bc129df0d8d79c0270c45ab0e019a60e207: ib_edl/train_eval/
// evidential_trainer.py compute_loss/apply_ib, losses.py, and the
// UpdateRegWeightCallback there). This is the spec; the CUDA path and the
// fine-tuning loop agree with it.
//
// Head, per example (z the last-position logits [V], target_ids the K answer
// tokens " A", " B", ...):
//   mu_k    = z[target_ids[k]]
//   sigma_k = softplus(z[V - K + k])           (the LAST K vocabulary logits)
// IB-EDL (vib): J draws eps_j ~ N(0, I_K) from a caller-supplied buffer
//   (shared by every backend), alpha_jk = softplus(mu_k + sigma_k eps_jk) + 1;
//   labels repeated J times; the data term averaged over the B*J rows.
// EDL (no vib): alpha_k = softplus(mu_k) + 1, one row per example.
// Data terms on one row (alpha [K], y [K] one-hot), S = sum alpha, p = alpha/S:
//   ss: sum_k (y_k - p_k)^2 + p_k (1 - p_k) / (S + 1)
//   ce: sum_k y_k (psi(S) - psi(alpha_k))
// IB term: beta * mean_b 1/2 sum_k (mu_k^2 + sigma_k^2 - 2 ln sigma_k - 1).
// Dirichlet KL regulariser (losses.py KLDivergenceLoss, modify_alphas):
//   at = y + (1 - y) alpha, St = sum at,
//   KL = lnG(St) - lnG(K) - sum lnG(at) + sum (at - 1)(psi(at) - psi(St)),
//   averaged over the rows, times reg_weight (RegWeight below).
// Total: data + reg_weight * KL (+ IB with vib).
//
// Inference (return_outputs): alpha_bar = mean_j alpha_j, then
//   alpha_bar <- max(alpha_bar - sigma_mult * sigma, 1) (sigma_mult 0 in every
//   released config, so the clamp is inert there), S = sum alpha_bar,
//   p = alpha_bar / S, logits = ln max(p, 1e-10) - ln max(p_K, 1e-10),
//   u = K / S in (0, 1].
//
// Gradients (LossGrad) are analytic, with respect to mu and to the raw tail
// logits t (sigma = softplus(t)), through torch's softplus derivative; checked
// against central differences in the tests.
//
// Errors: inconsistent sizes, K < 2, a label outside [0, K), J < 1 with vib,
// or target ids outside the vocabulary throw std::invalid_argument.
#ifndef CB_REFERENCE_IBEDL_EVIDENTIAL_H_
#define CB_REFERENCE_IBEDL_EVIDENTIAL_H_

#include <span>
#include <vector>

namespace cb::ref::ibedl {

enum class DataTerm { kSs, kCe };

// One row's data term and its gradient d/d alpha [K] (when `grad` is non-null).
double SsRisk(std::span<const double> alpha, int label, double* grad = nullptr);
double CeRisk(std::span<const double> alpha, int label, double* grad = nullptr);
double DataRisk(DataTerm term, std::span<const double> alpha, int label, double* grad = nullptr);
// KL(Dir(at) || Dir(1)) with at = y + (1 - y) alpha; gradient d/d alpha [K].
double DirichletKl(std::span<const double> alpha, int label, double* grad = nullptr);
// 1/2 sum_k (mu_k^2 + sigma_k^2 - 2 ln sigma_k - 1); gradients d/d mu, d/d sigma.
double GaussianKl(std::span<const double> mu, std::span<const double> sigma, double* dmu = nullptr,
                  double* dsigma = nullptr);

// UpdateRegWeightCallback.on_epoch_begin: epochs E, start = start_epoch
// (a fraction < 1 means int(start * E)); weight at the beginning of epoch e
// (0-based) = min(1, e / E) * final_weight when e >= start, else 0.
double RegWeight(double epoch, double epochs, double start_epoch, double final_weight);

// The head of one example read off its logits [V].
struct HeadInputs {
  std::vector<double> mu;      // [K]
  std::vector<double> tail;    // [K] raw logits z[V-K..V) (sigma = softplus(tail))
};
HeadInputs ReadHead(std::span<const double> logits, std::span<const int> target_ids);

struct LossConfig {
  DataTerm data = DataTerm::kSs;
  bool vib = true;         // IB-EDL's sampling and IB term; false: EDL
  int draws = 20;          // J (vib)
  double beta = 1e-5;      // IB weight (vib)
  double reg_weight = 0;   // Dirichlet-KL weight (the EDL baseline's, annealed)
};

// The batch loss. mu, tail: [B, K] row-major; labels [B]; eps [B, J, K]
// (vib; ignored otherwise). dmu, dtail [B, K] receive d loss / d mu and
// d loss / d tail when non-null (dtail is 0 without vib).
double EvidentialLoss(const LossConfig& c, int B, int K, std::span<const double> mu,
                      std::span<const double> tail, std::span<const int> labels,
                      std::span<const double> eps, double* dmu = nullptr, double* dtail = nullptr);

// MAP: F.cross_entropy over the K answer logits mu [B, K]; gradient d/d mu.
double MapLoss(int B, int K, std::span<const double> mu, std::span<const int> labels,
               double* dmu = nullptr);

// Inference of one example.
struct Prediction {
  std::vector<double> alpha;   // [K] alpha_bar (empty for MAP)
  std::vector<double> probs;   // [K] p
  std::vector<double> logits;  // [K] what the authors save (ln p - ln p_K; MAP: raw logits)
  double strength = 0;         // S (0 for MAP)
  double uncertainty = 0;      // u = K / S (0 for MAP: none)
};
// vib: eps [J, K]; EDL: eps empty and sigma unused.
Prediction PredictEvidential(std::span<const double> mu, std::span<const double> tail,
                             std::span<const double> eps, int draws, bool vib,
                             double sigma_mult = 0);
Prediction PredictMap(std::span<const double> mu);

}  // namespace cb::ref::ibedl

#endif  // CB_REFERENCE_IBEDL_EVIDENTIAL_H_
