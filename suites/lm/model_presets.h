// File: suites/lm/model_presets.h
// -----------------------------------------------------------------------------
// The shapes of the substrate's two trained models (issue 18), in one place
// for the trainer command, the benchmarks and the claims:
//   target  d = 256, 6 layers, 8 heads of 32, 2 KV heads, SwiGLU 704, untied
//           head, context 1024: 5.2M parameters at vocab 2048
//   draft   d = 128, 2 layers, 4 heads of 32, 2 KV heads, SwiGLU 352, tied
//           head, context 1024: 0.62M parameters at vocab 2048
// Both are Llama configs (RMSNorm eps 1e-5, rope_theta 10000).
#ifndef CB_SUITES_LM_MODEL_PRESETS_H_
#define CB_SUITES_LM_MODEL_PRESETS_H_

#include <stdexcept>
#include <string>

#include "reference/lm/transformer_config.h"

namespace cb::lm_suite {

inline constexpr int kSubstrateVocab = 2048;  // byte-level BPE: 256 bytes + 1792 merges

inline ref::lm::TransformerConfig PresetConfig(const std::string& name, int vocab = kSubstrateVocab) {
  ref::lm::TransformerConfig c;
  c.vocab_size = vocab;
  c.max_position_embeddings = 1024;
  c.rms_norm_eps = 1e-5;
  c.rope_theta = 10000.0;
  c.num_key_value_heads = 2;
  if (name == "target") {
    c.hidden_size = 256;
    c.num_hidden_layers = 6;
    c.num_attention_heads = 8;
    c.intermediate_size = 704;
    c.tie_word_embeddings = false;
  } else if (name == "draft") {
    c.hidden_size = 128;
    c.num_hidden_layers = 2;
    c.num_attention_heads = 4;
    c.intermediate_size = 352;
    c.tie_word_embeddings = true;
  } else if (name == "smoke") {  // seconds to train: tests and the smoke profile
    c.hidden_size = 32;
    c.num_hidden_layers = 1;
    c.num_attention_heads = 2;
    c.intermediate_size = 64;
    c.max_position_embeddings = 256;
    c.tie_word_embeddings = true;
  } else {
    throw std::invalid_argument("unknown model preset '" + name + "' (target, draft, smoke)");
  }
  return c;
}

}  // namespace cb::lm_suite

#endif  // CB_SUITES_LM_MODEL_PRESETS_H_
