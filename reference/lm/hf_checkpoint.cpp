// File: reference/lm/hf_checkpoint.cpp
// -----------------------------------------------------------------------------
// Hugging Face checkpoint folders <-> TransformerConfig + fp64 NamedTensors
// (contract and supported subset in hf_checkpoint.h).
#include "reference/lm/hf_checkpoint.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "harness/atomic_file.h"
#include "harness/safetensors.h"

namespace cb::ref::lm {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kConfigName = "config.json";
constexpr const char* kSingleName = "model.safetensors";
constexpr const char* kIndexName = "model.safetensors.index.json";

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// The text of `path`, or a one-line error naming it.
std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path.string() + ": cannot read");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw std::runtime_error(path.string() + ": cannot read");
  return ss.str();
}

json ParseJsonObject(const fs::path& path) {
  const std::string text = ReadText(path);
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) throw std::runtime_error(path.string() + ": not valid JSON");
  if (!j.is_object()) throw std::runtime_error(path.string() + ": not a JSON object");
  return j;
}

// Readers of one config.json key: absent (or, where HF allows it, null) keeps
// the default; a present value of the wrong type is an error naming the key.
class ConfigReader {
 public:
  ConfigReader(const json& j, std::string path) : j_(j), path_(std::move(path)) {}

  [[noreturn]] void Fail(const std::string& what) const {
    throw std::runtime_error(path_ + ": " + what);
  }
  bool Has(const char* key) const { return j_.contains(key); }
  bool IsNull(const char* key) const { return j_.contains(key) && j_.at(key).is_null(); }
  const json& At(const char* key) const { return j_.at(key); }

  // A positive integer below 2^31.
  void Int(const char* key, int& out, bool null_keeps_default = false) const {
    if (!Has(key) || (null_keeps_default && IsNull(key))) return;
    const json& v = j_.at(key);
    if (!v.is_number_integer()) Fail(std::string("\"") + key + "\" must be an integer, not " + v.dump());
    const int64_t x = v.get<int64_t>();
    if (x < 1 || x > std::numeric_limits<int>::max())
      Fail(std::string("\"") + key + "\" must be a positive integer below 2^31, not " + v.dump());
    out = static_cast<int>(x);
  }
  // A positive finite number.
  void Positive(const json& v, const std::string& key, double& out) const {
    if (!v.is_number()) Fail("\"" + key + "\" must be a number, not " + v.dump());
    const double x = v.get<double>();
    if (!(x > 0) || x == std::numeric_limits<double>::infinity())
      Fail("\"" + key + "\" must be a positive number, not " + v.dump());
    out = x;
  }
  void Bool(const char* key, bool& out) const {
    if (!Has(key)) return;
    const json& v = j_.at(key);
    if (!v.is_boolean()) Fail(std::string("\"") + key + "\" must be true or false, not " + v.dump());
    out = v.get<bool>();
  }
  void String(const char* key, std::string& out) const {
    if (!Has(key)) return;
    const json& v = j_.at(key);
    if (!v.is_string()) Fail(std::string("\"") + key + "\" must be a string, not " + v.dump());
    out = v.get<std::string>();
  }

 private:
  const json& j_;
  std::string path_;
};

// The type of a rope_scaling / rope_parameters object ("rope_type", or the
// older "type"), or "?" when it names none.
std::string RopeType(const json& rope) {
  for (const char* key : {"rope_type", "type"})
    if (rope.contains(key) && rope.at(key).is_string()) return rope.at(key).get<std::string>();
  return "?";
}

void ReadConfig(const fs::path& path, HfCheckpoint& out) {
  const json j = ParseJsonObject(path);
  const ConfigReader r(j, path.string());
  TransformerConfig& c = out.config;

  if (!r.Has("model_type")) r.Fail("no \"model_type\" (expected \"llama\")");
  r.String("model_type", out.model_type);
  if (out.model_type == "mistral") {
    if (!r.IsNull("sliding_window"))
      r.Fail("model_type \"mistral\" is supported only with \"sliding_window\": null (got " +
             (r.Has("sliding_window") ? r.At("sliding_window").dump()
                                      : std::string("no sliding_window: MistralConfig's default is 4096")) +
             ")");
  } else if (out.model_type != "llama") {
    r.Fail("model_type \"" + out.model_type +
           "\" is not supported (only \"llama\", or \"mistral\" with sliding_window null)");
  }

  r.Int("vocab_size", c.vocab_size);
  r.Int("hidden_size", c.hidden_size);
  r.Int("intermediate_size", c.intermediate_size);
  r.Int("num_hidden_layers", c.num_hidden_layers);
  r.Int("num_attention_heads", c.num_attention_heads);
  c.num_key_value_heads = c.num_attention_heads;
  r.Int("num_key_value_heads", c.num_key_value_heads, /*null_keeps_default=*/true);
  c.head_dim = 0;
  r.Int("head_dim", c.head_dim, /*null_keeps_default=*/true);
  r.Int("max_position_embeddings", c.max_position_embeddings);
  if (r.Has("rms_norm_eps")) r.Positive(r.At("rms_norm_eps"), "rms_norm_eps", c.rms_norm_eps);
  r.Bool("tie_word_embeddings", c.tie_word_embeddings);
  r.String("hidden_act", c.hidden_act);
  if (c.hidden_act != "silu")
    r.Fail("hidden_act \"" + c.hidden_act + "\" is not supported (only \"silu\")");

  if (c.num_attention_heads % c.num_key_value_heads != 0)
    r.Fail("num_attention_heads (" + std::to_string(c.num_attention_heads) +
           ") is not a multiple of num_key_value_heads (" + std::to_string(c.num_key_value_heads) + ")");
  if (c.head_dim == 0 && c.hidden_size % c.num_attention_heads != 0)
    r.Fail("hidden_size (" + std::to_string(c.hidden_size) + ") is not a multiple of num_attention_heads (" +
           std::to_string(c.num_attention_heads) + ") and there is no head_dim");
  if (c.HeadDim() % 2 != 0) r.Fail("head_dim " + std::to_string(c.HeadDim()) + " is odd (RoPE needs pairs)");

  for (const char* key : {"attention_bias", "mlp_bias"}) {
    bool bias = false;
    r.Bool(key, bias);
    if (bias) r.Fail(std::string("\"") + key + "\": true is not supported (only bias-free projections)");
  }

  // rope_scaling {"rope_type": "default"} is plain RoPE in Hugging Face's
  // rope utilities, so it is accepted; every other non-null value is refused.
  if (r.Has("rope_scaling") && !r.IsNull("rope_scaling") &&
      !(r.At("rope_scaling").is_object() && RopeType(r.At("rope_scaling")) == "default")) {
    const json& s = r.At("rope_scaling");
    const std::string type = s.is_object() ? RopeType(s) : "?";
    r.Fail((type != "?" ? "rope_scaling of type \"" + type + "\"" : "rope_scaling " + s.dump()) +
           " is not supported (only unscaled RoPE, rope_scaling null)");
  }
  if (r.Has("rope_theta")) r.Positive(r.At("rope_theta"), "rope_theta", c.rope_theta);
  if (r.Has("rope_parameters") && !r.IsNull("rope_parameters")) {
    const json& p = r.At("rope_parameters");
    if (!p.is_object()) r.Fail("\"rope_parameters\" must be an object, not " + p.dump());
    const std::string type = p.contains("rope_type") || p.contains("type") ? RopeType(p) : "default";
    if (type != "default")
      r.Fail("rope_parameters of type \"" + type + "\" is not supported (only \"default\" RoPE)");
    if (p.contains("rope_theta")) r.Positive(p.at("rope_theta"), "rope_parameters.rope_theta", c.rope_theta);
  }

  if (r.Has("torch_dtype") && !r.IsNull("torch_dtype")) r.String("torch_dtype", out.torch_dtype);
  else if (r.Has("dtype") && !r.IsNull("dtype")) r.String("dtype", out.torch_dtype);
}

// Where one tensor lives.
struct Located {
  const harness::SafetensorsFile* file;
  const harness::SafetensorsTensor* tensor;
};

bool IsLegacyInvFreq(const std::string& name) {
  static const std::regex re(R"(model\.layers\.[0-9]+\.self_attn\.rotary_emb\.inv_freq)");
  return std::regex_match(name, re);
}

// A shard's file name must be a plain name inside the folder.
bool IsPlainFileName(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos &&
         name.find('\\') == std::string::npos;
}

}  // namespace

std::vector<std::pair<std::string, std::vector<int64_t>>> ExpectedTensorShapes(
    const TransformerConfig& c) {
  const int64_t v = c.vocab_size, d = c.hidden_size, f = c.intermediate_size;
  const int64_t q = int64_t{c.num_attention_heads} * c.HeadDim();
  const int64_t kv = int64_t{c.num_key_value_heads} * c.HeadDim();
  std::vector<std::pair<std::string, std::vector<int64_t>>> out;
  out.push_back({"model.embed_tokens.weight", {v, d}});
  for (int n = 0; n < c.num_hidden_layers; ++n) {
    const std::string p = "model.layers." + std::to_string(n) + ".";
    out.push_back({p + "input_layernorm.weight", {d}});
    out.push_back({p + "self_attn.q_proj.weight", {q, d}});
    out.push_back({p + "self_attn.k_proj.weight", {kv, d}});
    out.push_back({p + "self_attn.v_proj.weight", {kv, d}});
    out.push_back({p + "self_attn.o_proj.weight", {d, q}});
    out.push_back({p + "post_attention_layernorm.weight", {d}});
    out.push_back({p + "mlp.gate_proj.weight", {f, d}});
    out.push_back({p + "mlp.up_proj.weight", {f, d}});
    out.push_back({p + "mlp.down_proj.weight", {d, f}});
  }
  out.push_back({"model.norm.weight", {d}});
  if (!c.tie_word_embeddings) out.push_back({"lm_head.weight", {v, d}});
  return out;
}

HfCheckpoint LoadCheckpoint(const std::string& dir_text) {
  const fs::path dir(dir_text);
  HfCheckpoint out;
  ReadConfig(dir / kConfigName, out);

  // Open the safetensors file(s) and locate every tensor.
  const fs::path single = dir / kSingleName, index_path = dir / kIndexName;
  const bool has_single = fs::exists(single), has_index = fs::exists(index_path);
  if (has_single && has_index)
    throw std::runtime_error(dir_text + ": both " + kSingleName + " and " + kIndexName +
                             " are present (ambiguous; keep one)");
  if (!has_single && !has_index)
    throw std::runtime_error(dir_text + ": no " + std::string(kSingleName) + " or " + kIndexName);

  std::map<std::string, harness::SafetensorsFile> files;  // by file name
  std::map<std::string, Located> located;                 // by tensor name
  if (has_single) {
    auto [it, ok] = files.emplace(kSingleName, harness::SafetensorsFile::Open(single.string()));
    out.safetensors_files.push_back(kSingleName);
    for (const auto& t : it->second.tensors()) located[t.name] = {&it->second, &t};
  } else {
    const std::string ip = index_path.string();
    const json index = ParseJsonObject(index_path);
    if (!index.contains("weight_map") || !index.at("weight_map").is_object())
      throw std::runtime_error(ip + ": no \"weight_map\" object");
    const json& map = index.at("weight_map");
    if (map.empty()) throw std::runtime_error(ip + ": \"weight_map\" is empty");
    std::map<std::string, std::string> shard_of;  // tensor -> shard file name
    for (const auto& [name, file] : map.items()) {
      if (!file.is_string())
        throw std::runtime_error(ip + ": weight_map[\"" + name + "\"] must be a file name, not " + file.dump());
      const std::string f = file.get<std::string>();
      if (!IsPlainFileName(f))
        throw std::runtime_error(ip + ": weight_map[\"" + name + "\"] = \"" + f +
                                 "\" is not a file name in the checkpoint folder");
      shard_of[name] = f;
      if (!files.count(f)) {
        files.emplace(f, harness::SafetensorsFile::Open((dir / f).string()));
        out.safetensors_files.push_back(f);
      }
    }
    for (const auto& [name, f] : shard_of) {
      const harness::SafetensorsFile& sf = files.at(f);
      const harness::SafetensorsTensor* t = sf.Find(name);
      if (t == nullptr)
        throw std::runtime_error(sf.path() + ": has no tensor \"" + name + "\", which " + kIndexName +
                                 " maps to it");
      located[name] = {&sf, t};
    }
    for (const auto& [f, sf] : files)
      for (const auto& t : sf.tensors()) {
        auto it = shard_of.find(t.name);
        if (it == shard_of.end())
          throw std::runtime_error(sf.path() + ": holds tensor \"" + t.name + "\", which " + kIndexName +
                                   " does not map");
        if (it->second != f)
          throw std::runtime_error(sf.path() + ": holds tensor \"" + t.name + "\", which " + kIndexName +
                                   " maps to " + it->second);
      }
  }

  // Check names, shapes and dtypes against the config, then read.
  const auto expected = ExpectedTensorShapes(out.config);
  std::set<std::string> expected_names;
  for (const auto& [name, shape] : expected) expected_names.insert(name);
  for (const auto& [name, where] : located) {
    if (expected_names.count(name) || IsLegacyInvFreq(name)) continue;
    if (name == "lm_head.weight")
      throw std::runtime_error(where.file->path() +
                               ": has \"lm_head.weight\" but config.json says tie_word_embeddings true");
    throw std::runtime_error(where.file->path() + ": unexpected tensor \"" + name + "\" for this config");
  }
  for (const auto& [name, shape] : expected) {
    auto it = located.find(name);
    if (it == located.end()) {
      throw std::runtime_error(
          dir_text + ": missing tensor \"" + name + "\" " + ShapeText(shape) +
          (name == "lm_head.weight" ? " (config.json says tie_word_embeddings false)" : ""));
    }
    const harness::SafetensorsTensor& t = *it->second.tensor;
    const std::string& fp = it->second.file->path();
    if (t.shape != shape)
      throw std::runtime_error(fp + ": tensor \"" + name + "\" has shape " + ShapeText(t.shape) +
                               ", config.json implies " + ShapeText(shape));
    if (t.dtype != "F32" && t.dtype != "F16" && t.dtype != "BF16" && t.dtype != "F64")
      throw std::runtime_error(fp + ": tensor \"" + name + "\" has dtype " + t.dtype +
                               " (only F32, F16, BF16, F64 are read)");
  }
  for (const auto& [name, shape] : expected) {
    const Located& where = located.at(name);
    out.tensors[name] = Tensor{shape, where.file->ReadAsDouble(name)};
  }
  return out;
}

void SaveCheckpoint(const std::string& dir_text, const TransformerConfig& c, const NamedTensors& tensors,
                    const std::string& dtype, uint64_t max_shard_bytes) {
  const auto bad = [&](const std::string& what) {
    throw std::invalid_argument("SaveCheckpoint(" + dir_text + "): " + what);
  };
  std::string torch_dtype;
  if (dtype == "F32") torch_dtype = "float32";
  else if (dtype == "BF16") torch_dtype = "bfloat16";
  else if (dtype == "F16") torch_dtype = "float16";
  else bad("dtype \"" + dtype + "\" is not F32, BF16 or F16");

  for (int x : {c.vocab_size, c.hidden_size, c.intermediate_size, c.num_hidden_layers, c.num_attention_heads,
                c.num_key_value_heads, c.max_position_embeddings})
    if (x < 1) bad("config sizes must be positive");
  if (c.head_dim < 0) bad("head_dim must be >= 0");
  if (c.num_attention_heads % c.num_key_value_heads != 0)
    bad("num_attention_heads is not a multiple of num_key_value_heads");
  if (c.head_dim == 0 && c.hidden_size % c.num_attention_heads != 0)
    bad("hidden_size is not a multiple of num_attention_heads and head_dim is 0");
  if (c.hidden_act != "silu") bad("hidden_act \"" + c.hidden_act + "\" is not silu");
  if (!(c.rms_norm_eps > 0) || !(c.rope_theta > 0)) bad("rms_norm_eps and rope_theta must be positive");

  const auto expected = ExpectedTensorShapes(c);
  if (tensors.size() != expected.size()) {
    for (const auto& [name, t] : tensors) {
      bool known = false;
      for (const auto& e : expected) known = known || e.first == name;
      if (!known) bad("unexpected tensor \"" + name + "\" for this config");
    }
  }
  for (const auto& [name, shape] : expected) {
    auto it = tensors.find(name);
    if (it == tensors.end()) bad("missing tensor \"" + name + "\"");
    if (it->second.shape != shape)
      bad("tensor \"" + name + "\" has shape " + ShapeText(it->second.shape) + ", expected " + ShapeText(shape));
    // shape captured by name: clang 14 (the fuzz preset) cannot capture a structured binding.
    if (static_cast<int64_t>(it->second.data.size()) != [&shape = shape] {
          int64_t n = 1;
          for (int64_t s : shape) n *= s;
          return n;
        }())
      bad("tensor \"" + name + "\" has " + std::to_string(it->second.data.size()) + " values for shape " +
          ShapeText(shape));
  }
  const fs::path dir(dir_text);
  if (fs::exists(dir)) bad("the folder already exists");
  const fs::path parent = dir.has_parent_path() ? dir.parent_path() : fs::path(".");
  if (!fs::is_directory(parent)) bad("its parent folder does not exist");

  // Shards, greedily in model order.
  const uint64_t elem = static_cast<uint64_t>(harness::SafetensorsDtypeSize(dtype));
  std::vector<std::vector<size_t>> shards(1);  // indices into `expected`
  uint64_t shard_bytes = 0, total_bytes = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    const uint64_t bytes = tensors.at(expected[i].first).data.size() * elem;
    if (max_shard_bytes > 0 && !shards.back().empty() && shard_bytes + bytes > max_shard_bytes) {
      shards.emplace_back();
      shard_bytes = 0;
    }
    shards.back().push_back(i);
    shard_bytes += bytes;
    total_bytes += bytes;
  }

  json config = {
      {"architectures", json::array({"LlamaForCausalLM"})},
      {"model_type", "llama"},
      {"vocab_size", c.vocab_size},
      {"hidden_size", c.hidden_size},
      {"intermediate_size", c.intermediate_size},
      {"num_hidden_layers", c.num_hidden_layers},
      {"num_attention_heads", c.num_attention_heads},
      {"num_key_value_heads", c.num_key_value_heads},
      {"head_dim", c.HeadDim()},
      {"max_position_embeddings", c.max_position_embeddings},
      {"rms_norm_eps", c.rms_norm_eps},
      {"rope_theta", c.rope_theta},
      {"rope_scaling", nullptr},
      {"tie_word_embeddings", c.tie_word_embeddings},
      {"hidden_act", c.hidden_act},
      {"attention_bias", false},
      {"mlp_bias", false},
      {"torch_dtype", torch_dtype},
  };

  harness::WriteDirectoryAtomically(dir, [&](const fs::path& tmp) {
    harness::WriteFileAtomically((tmp / kConfigName).string(), config.dump(2) + "\n");
    const std::map<std::string, std::string> meta = {{"format", "pt"}};
    json weight_map = json::object();
    for (size_t s = 0; s < shards.size(); ++s) {
      std::string file = kSingleName;
      if (max_shard_bytes > 0) {
        char name[64];
        std::snprintf(name, sizeof(name), "model-%05zu-of-%05zu.safetensors", s + 1, shards.size());
        file = name;
      }
      std::vector<std::pair<std::string, harness::SafetensorsWriteTensor>> out;
      for (size_t i : shards[s]) {
        const auto& [name, shape] = expected[i];
        out.push_back({name, harness::SafetensorsWriteTensor{dtype, shape, tensors.at(name).data}});
        weight_map[name] = file;
      }
      harness::WriteSafetensors((tmp / file).string(), out, meta);
    }
    if (max_shard_bytes > 0) {
      const json index = {{"metadata", {{"total_size", total_bytes}}}, {"weight_map", weight_map}};
      harness::WriteFileAtomically((tmp / kIndexName).string(), index.dump(2) + "\n");
    }
  });
}

}  // namespace cb::ref::lm
