// File: reference/unip/distill.h
// -----------------------------------------------------------------------------
// UNIP's attention distillation loss (casiatao/UNIP@9ce8728,
// UNIP_pretraining/models_unip.py `forward_kd_loss`, loss_type "KL"): the
// targets are the teacher's pre-softmax logits q k^T * d^(-1/2) of the chosen
// layer, CLS included, temperature 1; the student's last block gives its own
// (Attention.forward with return_attention: `qk`). With rows r = (b, h, q):
//
//   loss = mean_r KL(softmax(T_r) || softmax(S_r))
//        = mean_r Σ_k softmax(T_r)_k (log_softmax(T_r)_k - log_softmax(S_r)_k)
//
// (KLDivLoss(reduction="none", log_target=True)(log_softmax(S), log_softmax(T))
// summed over the last axis, then .mean()), and its gradient with respect to
// the student's logits, (softmax(S_r) - softmax(T_r)) / rows.
#ifndef CB_REFERENCE_UNIP_DISTILL_H_
#define CB_REFERENCE_UNIP_DISTILL_H_

#include <span>

namespace cb::ref::unip {

// student, teacher [rows, k]; `grad` (size rows * k, or empty: not wanted)
// receives d loss / d student. REQUIRES equal sizes, a multiple of k >= 1,
// finite logits; throws std::invalid_argument otherwise.
double AttentionKl(std::span<const double> student, std::span<const double> teacher, int k,
                   std::span<double> grad = {});

}  // namespace cb::ref::unip

#endif  // CB_REFERENCE_UNIP_DISTILL_H_
