// File: reference/lm/transformer_config.h
// -----------------------------------------------------------------------------
// The seam between the transformer's math (reference/lm/transformer.*) and its
// checkpoints (reference/lm/hf_checkpoint.*): a model's configuration, with
// Hugging Face's config.json keys, and its weights as named tensors, with
// Hugging Face's tensor names. Neither side needs the other's internals.
//
// Decoder (LlamaForCausalLM) tensor names, for layer N in [0, num_hidden_layers):
//   model.embed_tokens.weight                     [vocab_size, hidden_size]
//   model.layers.N.input_layernorm.weight         [hidden_size]
//   model.layers.N.self_attn.q_proj.weight        [heads * head_dim, hidden_size]
//   model.layers.N.self_attn.k_proj.weight        [kv_heads * head_dim, hidden_size]
//   model.layers.N.self_attn.v_proj.weight        [kv_heads * head_dim, hidden_size]
//   model.layers.N.self_attn.o_proj.weight        [hidden_size, heads * head_dim]
//   model.layers.N.post_attention_layernorm.weight [hidden_size]
//   model.layers.N.mlp.gate_proj.weight           [intermediate_size, hidden_size]
//   model.layers.N.mlp.up_proj.weight             [intermediate_size, hidden_size]
//   model.layers.N.mlp.down_proj.weight           [hidden_size, intermediate_size]
//   model.norm.weight                             [hidden_size]
//   lm_head.weight                                [vocab_size, hidden_size]
//                                                 (absent when tie_word_embeddings)
// A Linear weight is [out_features, in_features], row-major, as torch stores it:
// y = W x.
#ifndef CB_REFERENCE_LM_TRANSFORMER_CONFIG_H_
#define CB_REFERENCE_LM_TRANSFORMER_CONFIG_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace cb::ref::lm {

// One tensor: row-major fp64 values with their shape ({} is a scalar).
struct Tensor {
  std::vector<int64_t> shape;
  std::vector<double> data;  // product(shape) values
};

// Weights by Hugging Face tensor name (ordered, so iteration is deterministic).
using NamedTensors = std::map<std::string, Tensor>;

// The keys of a Llama config.json that the forward pass reads. Defaults are
// Hugging Face's LlamaConfig defaults where it has one that we support.
struct TransformerConfig {
  int vocab_size = 32000;
  int hidden_size = 4096;
  int intermediate_size = 11008;
  int num_hidden_layers = 32;
  int num_attention_heads = 32;
  int num_key_value_heads = 32;      // grouped-query attention when < heads
  int head_dim = 0;                  // 0: hidden_size / num_attention_heads
  int max_position_embeddings = 2048;
  double rms_norm_eps = 1e-6;
  double rope_theta = 10000.0;
  bool tie_word_embeddings = false;
  std::string hidden_act = "silu";   // the only activation supported

  int HeadDim() const { return head_dim > 0 ? head_dim : hidden_size / num_attention_heads; }
};

}  // namespace cb::ref::lm

#endif  // CB_REFERENCE_LM_TRANSFORMER_CONFIG_H_
