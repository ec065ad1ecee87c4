// File: reference/m3/loss.h
// -----------------------------------------------------------------------------
// M3's distillation loss and its feature-distance metrics, as the authors'
// code computes them (utils/loss_utils.py, render_metrics.py,
// MaureenZOU/m3-spatial@03fdfd6):
//
//   train  (point_sample_cos_with_mask, on sampled pixels):
//     mask_p = [Σ_k gt_pk != 0]        (the SUM of the channels, not the norm:
//                                       a non-zero row summing to 0 is masked)
//     cos term = Σ_p mask_p (1 - cos(pred_p, gt_p)) / Σ_p mask_p
//     L2 term  = Σ_p mask_p |pred_p - gt_p|² / (Σ_p mask_p · D)
//   The code adds both (times lambda_emb = 0.5, irrelevant to Adam); with no
//   valid pixel both terms are 0/0 = NaN there, an error here.
//   eval   (render_metrics.py): the same two terms with every pixel valid;
//   the paper's "Cosine" column is the cos term (a distance) and "L2" the
//   mean squared error, not a norm.
// cos(x, y) = x·y / max(|x| |y|, 1e-8), 0 for a zero vector.
#ifndef CB_REFERENCE_M3_LOSS_H_
#define CB_REFERENCE_M3_LOSS_H_

#include <cstdint>

namespace cb::ref::m3 {

struct FeatureDistance {
  double cosine = 0;  // mean 1 - cos over valid pixels
  double mse = 0;     // mean squared error over valid pixels and channels
  int64_t valid = 0;  // pixels counted
};

// pred, gt (pixels, dim). With masked = true, pixels whose gt channels sum to
// 0 are left out (training); with false every pixel counts (evaluation).
// dpred (pixels, dim), when given, receives d(cosine + mse)/dpred.
// REQUIRES (else std::invalid_argument): dim >= 1, at least one valid pixel.
FeatureDistance CosineMseLoss(const double* pred, const double* gt, int64_t pixels, int dim, bool masked,
                              double* dpred = nullptr);

double CosineSimilarity(const double* x, const double* y, int dim);

}  // namespace cb::ref::m3

#endif  // CB_REFERENCE_M3_LOSS_H_
