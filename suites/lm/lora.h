// File: suites/lm/lora.h
// -----------------------------------------------------------------------------
// LoRA adapters (Hu et al. 2021) on chosen projections of a CpuTransformer:
// W = W0 + (alpha / r) B A with A [r, in], B [out, r]; W0 frozen, only A and B
// trained. PEFT's initialisation: B = 0 (so training starts at W0) and A
// Kaiming-uniform, here U(-1/sqrt(in), 1/sqrt(in)) from Philox.
//
// Why the model holds the merged W: the forward pass is then the plain one,
// and the adapters' gradients follow from the merged weight's gradient G =
// dL/dW, which the backward pass computes anyway:
//   dL/dB = s G A^T,   dL/dA = s B^T G,   s = alpha / r.
// Apply() re-merges after each update (W = W0 + s B A from the saved W0, so
// rounding does not accumulate).
//
// Adapter tensors carry PEFT's names, e.g.
//   base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight  [r, in]
//   base_model.model.model.layers.0.self_attn.q_proj.lora_B.weight  [out, r]
// and SaveAdapter writes adapter_model.safetensors + adapter_config.json
// ("peft_type": "LORA", r, lora_alpha, target_modules), the layout PEFT loads.
#ifndef CB_SUITES_LM_LORA_H_
#define CB_SUITES_LM_LORA_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "suites/lm/cpu_transformer.h"

namespace cb::lm_suite {

struct LoraSpec {
  int rank = 8;
  double alpha = 16;
  // Module names matched against every layer: q_proj k_proj v_proj o_proj
  // gate_proj up_proj down_proj; and lm_head (the untied output projection,
  // once; refused on a tied model).
  std::vector<std::string> targets = {"q_proj", "v_proj"};
};

class LoraAdapters {
 public:
  // Throws std::invalid_argument on rank < 1 or an unknown target module.
  LoraAdapters(const CpuTransformer& model, LoraSpec spec, uint64_t seed);

  const LoraSpec& spec() const { return spec_; }
  size_t num_params() const { return params_.size(); }
  std::vector<float>& params() { return params_; }  // [A_0, B_0, A_1, B_1, ...]
  const std::vector<float>& params() const { return params_; }

  // model's weights <- W0 + s B A on every adapted tensor.
  void Apply(CpuTransformer& model) const;
  // The adapters' gradient [num_params] from the model's full gradient.
  void Project(std::span<const float> model_grad, std::span<float> lora_grad) const;
  // PEFT-named tensors (fp64) of the adapters.
  ref::lm::NamedTensors ToPeftTensors() const;
  void LoadPeftTensors(const ref::lm::NamedTensors& tensors);
  // adapter_model.safetensors + adapter_config.json into the existing folder `dir`.
  void SaveAdapter(const std::string& dir) const;

 private:
  struct Site {
    std::string name;    // model tensor, e.g. model.layers.0.self_attn.q_proj.weight
    size_t model_offset; // in the model's flat buffer
    int out, in;
    size_t a_offset, b_offset;  // in params_
    std::vector<float> base;    // W0 [out, in]
  };
  LoraSpec spec_;
  float scale_;
  std::vector<Site> sites_;
  std::vector<float> params_;
};

}  // namespace cb::lm_suite

#endif  // CB_SUITES_LM_LORA_H_
