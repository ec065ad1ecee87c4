// File: reference/lm/transformer_backward.cpp
// -----------------------------------------------------------------------------
// The hand-derived backward pass of the fp64 reference transformer
// (transformer.h): from d loss / d logits back through the head, the final
// RMSNorm, every Llama block (SwiGLU, RMSNorm, o_proj, softmax attention with
// grouped-query accumulation, the transpose of RoPE, q/k/v projections) and
// the embeddings (token rows, tied head, or patch/CLS/position). Each step
// writes its equation next to the loop; the primitives' own backward passes
// are in transformer_ops.h. Checked against central finite differences in
// transformer_test.cpp.
#include <cmath>
#include <vector>

#include "reference/lm/transformer.h"
#include "reference/lm/transformer_ops.h"

namespace cb::ref::lm {

Params Transformer::BackwardFrom(const Acts& acts, const std::vector<double>& dlogits,
                                 std::span<const int> tokens, const Tensor* image) const {
  const TransformerConfig& c = config_;
  const int T = acts.T, D = c.hidden_size, I = c.intermediate_size, d = c.HeadDim();
  const int H = c.num_attention_heads, KV = c.num_key_value_heads, rep = H / KV;
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));

  Params G = Zeros();  // the gradients, laid out like the weights

  // Head. logits = head xf^T: dxf = dlogits head, dhead += dlogits^T xf.
  std::vector<double> dxf(static_cast<size_t>(T) * D, 0.0);  // [T, D]
  if (arch_.Patches()) {
    // class logits [nl] = W_cls xf[0] + b_cls: only the CLS row gets a gradient.
    for (int k = 0; k < arch_.num_labels; ++k) G.cls_b[k] += dlogits[k];
    ops::LinearBackward(dlogits.data(), acts.xf.data(), params_.cls_w.data(), 1, D,
                        arch_.num_labels, dxf.data(), G.cls_w.data());
  } else {
    // Tied: the head IS embed_tokens, so its gradient accumulates into the
    // embedding's (together with the token-row gradient below).
    const std::vector<double>& head = c.tie_word_embeddings ? params_.embed : params_.lm_head;  // [V, D]
    std::vector<double>& dhead = c.tie_word_embeddings ? G.embed : G.lm_head;                   // [V, D]
    ops::LinearBackward(dlogits.data(), acts.xf.data(), head.data(), T, D, c.vocab_size,
                        dxf.data(), dhead.data());
  }
  // Final norm: xf = RMSNorm(xL).
  std::vector<double> dx(static_cast<size_t>(T) * D, 0.0);  // [T, D], d loss / d residual
  ops::RmsNormBackward(dxf.data(), acts.xL.data(), params_.final_norm.data(), acts.rf.data(), T,
                       D, dx.data(), G.final_norm.data());

  for (int l = c.num_hidden_layers - 1; l >= 0; --l) {
    const LayerParams& W = params_.layers[l];
    LayerParams& GW = G.layers[l];
    const LayerActs& A = acts.layers[l];

    // MLP: x_out = h + down(a), a = silu(gate) * up.
    std::vector<double> dh = dx;                                // [T, D] residual path
    std::vector<double> da(static_cast<size_t>(T) * I, 0.0);    // [T, I]
    ops::LinearBackward(dx.data(), A.a.data(), W.w_down.data(), T, I, D, da.data(),
                        GW.w_down.data());
    std::vector<double> dgate(da.size()), dup(da.size());      // [T, I]
    for (size_t j = 0; j < da.size(); ++j) {
      dgate[j] = da[j] * A.up[j] * ops::SiluGrad(A.gate[j]);    // d/dgate silu(gate) * up
      dup[j] = da[j] * ops::Silu(A.gate[j]);
    }
    std::vector<double> dm(static_cast<size_t>(T) * D, 0.0);    // [T, D]
    ops::LinearBackward(dgate.data(), A.m.data(), W.w_gate.data(), T, D, I, dm.data(),
                        GW.w_gate.data());
    ops::LinearBackward(dup.data(), A.m.data(), W.w_up.data(), T, D, I, dm.data(),
                        GW.w_up.data());
    ops::RmsNormBackward(dm.data(), A.h.data(), W.post_norm.data(), A.r2.data(), T, D, dh.data(),
                         GW.post_norm.data());

    // Attention: h = x + o_proj(att).
    std::vector<double> dxin = dh;                                   // [T, D] residual path
    std::vector<double> datt(static_cast<size_t>(T) * H * d, 0.0);  // [T, H*d]
    ops::LinearBackward(dh.data(), A.att.data(), W.wo.data(), T, H * d, D, datt.data(),
                        GW.wo.data());
    // att_h(t) = sum_u p_tu v_g(u), p_t = softmax(s_t), s_tu = scale q_h(t).k_g(u):
    //   dp_tu  = datt_h(t) . v_g(u)           dv_g(u) += p_tu datt_h(t)
    //   ds_tu  = p_tu (dp_tu - sum_u' p_tu' dp_tu')   (softmax Jacobian)
    //   dq_h(t) += scale ds_tu k_g(u)        dk_g(u) += scale ds_tu q_h(t)
    // Every query head of a group adds into its shared KV head (GQA).
    std::vector<double> dq(static_cast<size_t>(T) * H * d, 0.0);   // [T, H*d]  (after RoPE)
    std::vector<double> dk(static_cast<size_t>(T) * KV * d, 0.0);  // [T, KV*d] (after RoPE)
    std::vector<double> dv(static_cast<size_t>(T) * KV * d, 0.0);  // [T, KV*d]
    std::vector<double> dp(T);                                     // [T] one row of scores
    for (int h = 0; h < H; ++h) {
      const int g = h / rep;
      for (int t = 0; t < T; ++t) {
        const int visible = arch_.causal ? t + 1 : T;
        const double* pt = &A.p[(static_cast<size_t>(h) * T + t) * T];  // [T]
        const double* dot = &datt[(t * H + h) * d];                     // [d]
        double sum = 0;
        for (int u = 0; u < visible; ++u) {
          const double* vu = &A.v[(u * KV + g) * d];
          double s = 0;
          for (int i = 0; i < d; ++i) {
            s += dot[i] * vu[i];
            dv[(u * KV + g) * d + i] += pt[u] * dot[i];
          }
          dp[u] = s;
          sum += pt[u] * s;
        }
        for (int u = 0; u < visible; ++u) {
          const double ds = pt[u] * (dp[u] - sum) * scale;
          for (int i = 0; i < d; ++i) {
            dq[(t * H + h) * d + i] += ds * A.k[(u * KV + g) * d + i];
            dk[(u * KV + g) * d + i] += ds * A.q[(t * H + h) * d + i];
          }
        }
      }
    }
    // RoPE is a rotation per position, so its backward is the inverse rotation.
    if (!arch_.Patches()) {
      for (int t = 0; t < T; ++t) {
        for (int h = 0; h < H; ++h) ops::Rope(&dq[(t * H + h) * d], d, t, c.rope_theta, -1);
        for (int g = 0; g < KV; ++g) ops::Rope(&dk[(t * KV + g) * d], d, t, c.rope_theta, -1);
      }
    }
    std::vector<double> dn(static_cast<size_t>(T) * D, 0.0);  // [T, D]
    ops::LinearBackward(dq.data(), A.n.data(), W.wq.data(), T, D, H * d, dn.data(), GW.wq.data());
    ops::LinearBackward(dk.data(), A.n.data(), W.wk.data(), T, D, KV * d, dn.data(), GW.wk.data());
    ops::LinearBackward(dv.data(), A.n.data(), W.wv.data(), T, D, KV * d, dn.data(), GW.wv.data());
    ops::RmsNormBackward(dn.data(), A.x.data(), W.input_norm.data(), A.r1.data(), T, D,
                         dxin.data(), GW.input_norm.data());
    dx = std::move(dxin);
  }

  // Embeddings: dx is d loss / d x0.
  if (arch_.Patches()) {
    // x0[0] = cls + pos[0]; x0[1+n] = W_patch patch_n + b_patch + pos[1+n].
    const int N = arch_.NumPatches(), F = arch_.num_channels * arch_.patch_size * arch_.patch_size;
    const std::vector<double> patches = Patchify(*image);  // [N, F]
    for (int i = 0; i < D; ++i) G.cls[i] += dx[i];
    for (size_t j = 0; j < dx.size(); ++j) G.pos_embed[j] += dx[j];
    for (int n = 0; n < N; ++n)
      for (int i = 0; i < D; ++i) G.patch_b[i] += dx[(1 + n) * D + i];
    ops::LinearBackward(&dx[D], patches.data(), params_.patch_w.data(), N, F, D, nullptr,
                        G.patch_w.data());
  } else {
    // x0[t] = embed[tokens[t]]: rows of repeated tokens add up.
    for (int t = 0; t < T; ++t)
      for (int i = 0; i < D; ++i) G.embed[static_cast<size_t>(tokens[t]) * D + i] += dx[t * D + i];
  }
  return G;
}

}  // namespace cb::ref::lm
