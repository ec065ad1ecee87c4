// File: reference/lm/hf_checkpoint.h
// -----------------------------------------------------------------------------
// Hugging Face checkpoint I/O for the Llama-family transformer (issue 18): a
// folder with config.json and either model.safetensors or a sharded
// model.safetensors.index.json + model-0000K-of-0000N.safetensors, read into a
// TransformerConfig and fp64 NamedTensors (reference/lm/transformer_config.h)
// and written back. The math that uses them is reference/lm/transformer.*.
//
// config.json keys and defaults follow Hugging Face's LlamaConfig,
// src/transformers/models/llama/configuration_llama.py in huggingface/transformers
// (read at commit 4bdeeced9ce971bed8cca7ab203c3b70cffab4ca, which has rope_theta and
// rope_scaling, and at 008e574391258935f3ecc3035c882e73bbcac419, which moved
// them into "rope_parameters": {"rope_type", "rope_theta"}; both are read):
//   vocab_size 32000, hidden_size 4096, intermediate_size 11008,
//   num_hidden_layers 32, num_attention_heads 32, num_key_value_heads null
//   (-> num_attention_heads), head_dim null (-> hidden_size / heads),
//   hidden_act "silu", max_position_embeddings 2048, rms_norm_eps 1e-6,
//   rope_theta 10000.0, rope_scaling null, attention_bias false, mlp_bias false,
//   tie_word_embeddings false.
// A missing key takes that default; a key of the wrong JSON type is an error.
//
// What is supported, and what is refused (each a one-line std::runtime_error
// naming the file and what is wrong; loading never writes anything):
//   - model_type "llama". "mistral" only when config.json says
//     "sliding_window": null: Mistral is Llama's architecture plus a sliding
//     attention window, and MistralConfig's default window is 4096, so an
//     absent or numeric sliding_window would change the attention we compute.
//     Anything else (including a missing model_type) is refused.
//   - hidden_act "silu" only; attention_bias and mlp_bias must be false (or
//     absent); rope_scaling must be null (or absent, or of rope_type "default",
//     which is plain RoPE), else refused naming its type; rope_parameters.rope_type, when present, must be "default".
//   - pretraining_tp, dropout, token ids, use_cache, initializer_range and
//     other keys are ignored: they do not change the forward pass.
//   - tensors: exactly the names and shapes listed in transformer_config.h
//     (lm_head.weight present iff tie_word_embeddings is false), dtypes F32,
//     F16, BF16 (and F64), each converted to fp64 exactly. The legacy buffer
//     "model.layers.N.self_attn.rotary_emb.inv_freq" (older exports) is
//     ignored: it is a function of rope_theta and head_dim, not a weight.
//   - sharded: every name of weight_map must be in the shard it names, and no
//     shard may hold a name that the index does not map to that shard. The
//     index's metadata.total_size is not checked (exporters disagree on it).
//   - model.safetensors and model.safetensors.index.json both present is
//     refused as ambiguous.
#ifndef CB_REFERENCE_LM_HF_CHECKPOINT_H_
#define CB_REFERENCE_LM_HF_CHECKPOINT_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "reference/lm/transformer_config.h"

namespace cb::ref::lm {

// A loaded checkpoint.
struct HfCheckpoint {
  TransformerConfig config;
  NamedTensors tensors;         // fp64, every expected name, shapes as in transformer_config.h
  std::string model_type;       // "llama" or "mistral"
  std::string torch_dtype;      // config.json's "torch_dtype" (or "dtype"); "" when absent
  std::vector<std::string> safetensors_files;  // file names read, in order
};

// ExpectedTensorShapes()
//
// Every tensor a LlamaForCausalLM with `config` has, in the model's own order
// (embedding, layer 0..L-1 with its nine tensors, final norm, lm_head unless
// tied), with its shape. This order is the one SaveCheckpoint writes and shards.
std::vector<std::pair<std::string, std::vector<int64_t>>> ExpectedTensorShapes(
    const TransformerConfig& config);

// LoadCheckpoint()
//
// Reads the checkpoint folder `dir` (see the file comment for what it accepts).
// Throws std::runtime_error with one line naming the offending file (or `dir`
// for a tensor that is missing) and what is wrong.
HfCheckpoint LoadCheckpoint(const std::string& dir);

// SaveCheckpoint()
//
// Writes `tensors` with `config` as a new checkpoint folder `dir`:
// config.json ("architectures": ["LlamaForCausalLM"], "model_type": "llama",
// "torch_dtype" from `dtype`, every key LoadCheckpoint reads, rope_scaling
// null, attention_bias and mlp_bias false) and
//   max_shard_bytes == 0: model.safetensors;
//   max_shard_bytes  > 0: model-00001-of-0000N.safetensors ... and
//     model.safetensors.index.json = {"metadata": {"total_size": bytes of all
//     tensors}, "weight_map": {name: shard file}}. Tensors go into shards in
//     ExpectedTensorShapes order; a shard is closed when the next tensor would
//     take it past max_shard_bytes, so a tensor larger than the limit gets a
//     shard of its own (Hugging Face's greedy rule).
// Every safetensors file has "__metadata__": {"format": "pt"}. `dtype` is
// "F32", "BF16" or "F16"; each double is rounded to it to nearest, ties to
// even: for values that are floats (e.g. loaded from an F32 checkpoint) this
// is exactly torch's float32 .to(torch.bfloat16) / .to(torch.float16).
// The folder is built under a temporary name beside `dir` and renamed, so a
// failure or crash leaves no partial checkpoint.
// REQUIRES (else std::invalid_argument, nothing written): `dir` does not exist
// and its parent does; config positive sizes, hidden_act "silu",
// heads % kv_heads == 0; `tensors` has exactly the ExpectedTensorShapes names
// and shapes with product(shape) values each; dtype one of the three.
// Throws std::runtime_error naming the file when writing fails.
void SaveCheckpoint(const std::string& dir, const TransformerConfig& config,
                    const NamedTensors& tensors, const std::string& dtype = "F32",
                    uint64_t max_shard_bytes = 0);

}  // namespace cb::ref::lm

#endif  // CB_REFERENCE_LM_HF_CHECKPOINT_H_
