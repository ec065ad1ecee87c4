// File: suites/lm/hf_checkpoint_test.cpp
// -----------------------------------------------------------------------------
// Tests of reference/lm/hf_checkpoint.h: F32 round trips exactly; BF16 and F16
// round trips equal round-to-nearest-even of the float values, computed here
// independently of the writer (bf16 from the float's bits as torch does, f16
// by the compiler's _Float16 conversion); a >= 3-shard BF16 checkpoint loads
// and equals the single-file one; every refusal of the header's list, each
// asserting a one-line message naming the file and the reason; SaveCheckpoint
// refuses bad input and leaves nothing behind; and the PyTorch oracle's
// checkpoints (fixtures/lm/oracle/, PROVENANCE.md) load and agree with their
// golden files in names and shapes, with the golden file's loss, embedding
// states and embedding gradients consistent with the checkpoint.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

#include <nlohmann/json.hpp>

#include "fixtures/fresh_seed.h"
#include "fixtures/paths.h"
#include "harness/random.h"
#include "harness/safetensors.h"
#include "reference/lm/hf_checkpoint.h"

namespace cb::ref::lm {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class HfCheckpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("cb_hf_checkpoint_test_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }
  std::string Dir(const std::string& name) const { return (root_ / name).string(); }

  fs::path root_;
};

TransformerConfig TinyConfig(bool tied = false) {
  TransformerConfig c;
  c.vocab_size = 11;
  c.hidden_size = 8;
  c.intermediate_size = 12;
  c.num_hidden_layers = 2;
  c.num_attention_heads = 4;
  c.num_key_value_heads = 2;
  c.max_position_embeddings = 32;
  c.rms_norm_eps = 1e-5;
  c.rope_theta = 10000.0;
  c.tie_word_embeddings = tied;
  return c;
}

// Random tensors for `c`; float-valued when `floats` (so F32 is exact and the
// 16-bit roundings are single roundings from a float, as in torch).
NamedTensors RandomTensors(const TransformerConfig& c, uint64_t seed, bool floats) {
  harness::Rng rng(seed, 7);
  NamedTensors out;
  for (const auto& [name, shape] : ExpectedTensorShapes(c)) {
    Tensor t{shape, {}};
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    for (int64_t i = 0; i < n; ++i) {
      const double x = rng.Normal() * 0.5;
      t.data.push_back(floats ? static_cast<double>(static_cast<float>(x)) : x);
    }
    out[name] = std::move(t);
  }
  return out;
}

// torch's float -> bfloat16: round to nearest even on the float's bits.
double TorchBf16(double x) {
  const float f = static_cast<float>(x);
  uint32_t u;
  std::memcpy(&u, &f, 4);
  u = (u + 0x7fffu + ((u >> 16) & 1u)) & 0xffff0000u;
  float r;
  std::memcpy(&r, &u, 4);
  return r;
}

double CompilerF16(double x) { return static_cast<double>(static_cast<_Float16>(static_cast<float>(x))); }

json ReadJson(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

void EditConfig(const std::string& dir, const std::function<void(json&)>& edit) {
  json j = ReadJson(dir + "/config.json");
  edit(j);
  WriteText(dir + "/config.json", j.dump(2));
}

// Rewrites `dir`/`file` from `tensors` (F32), in map order.
void WriteTensors(const std::string& path, const NamedTensors& tensors) {
  std::vector<std::pair<std::string, harness::SafetensorsWriteTensor>> out;
  for (const auto& [name, t] : tensors) out.push_back({name, {"F32", t.shape, t.data}});
  harness::WriteSafetensors(path, out);
}

// LoadCheckpoint(dir) must throw std::runtime_error with one line containing
// every string of `parts`.
void ExpectLoadError(const std::string& dir, const std::vector<std::string>& parts) {
  try {
    LoadCheckpoint(dir);
    ADD_FAILURE() << "LoadCheckpoint(" << dir << ") did not throw; expected: " << parts[0];
  } catch (const std::runtime_error& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    for (const auto& p : parts) EXPECT_NE(msg.find(p), std::string::npos) << "'" << p << "' not in: " << msg;
  }
}

void ExpectSameConfig(const TransformerConfig& a, const TransformerConfig& b) {
  EXPECT_EQ(a.vocab_size, b.vocab_size);
  EXPECT_EQ(a.hidden_size, b.hidden_size);
  EXPECT_EQ(a.intermediate_size, b.intermediate_size);
  EXPECT_EQ(a.num_hidden_layers, b.num_hidden_layers);
  EXPECT_EQ(a.num_attention_heads, b.num_attention_heads);
  EXPECT_EQ(a.num_key_value_heads, b.num_key_value_heads);
  EXPECT_EQ(a.HeadDim(), b.HeadDim());
  EXPECT_EQ(a.max_position_embeddings, b.max_position_embeddings);
  EXPECT_EQ(a.rms_norm_eps, b.rms_norm_eps);
  EXPECT_EQ(a.rope_theta, b.rope_theta);
  EXPECT_EQ(a.tie_word_embeddings, b.tie_word_embeddings);
  EXPECT_EQ(a.hidden_act, b.hidden_act);
}

TEST(HfCheckpointShapes, FollowTheSeamHeader) {
  TransformerConfig c = TinyConfig();
  c.head_dim = 6;  // heads * head_dim != hidden_size
  const auto shapes = ExpectedTensorShapes(c);
  ASSERT_EQ(shapes.size(), 1u + 9u * 2u + 2u);
  EXPECT_EQ(shapes.front().first, "model.embed_tokens.weight");
  EXPECT_EQ(shapes.back().first, "lm_head.weight");
  std::map<std::string, std::vector<int64_t>> m(shapes.begin(), shapes.end());
  EXPECT_EQ(m.at("model.layers.1.self_attn.q_proj.weight"), (std::vector<int64_t>{24, 8}));
  EXPECT_EQ(m.at("model.layers.1.self_attn.k_proj.weight"), (std::vector<int64_t>{12, 8}));
  EXPECT_EQ(m.at("model.layers.1.self_attn.o_proj.weight"), (std::vector<int64_t>{8, 24}));
  EXPECT_EQ(m.at("model.layers.0.mlp.down_proj.weight"), (std::vector<int64_t>{8, 12}));
  EXPECT_EQ(m.at("model.layers.0.mlp.gate_proj.weight"), (std::vector<int64_t>{12, 8}));
  EXPECT_EQ(ExpectedTensorShapes(TinyConfig(/*tied=*/true)).size(), shapes.size() - 1);
}

TEST_F(HfCheckpointTest, F32RoundTripIsExact) {
  CB_FRESH_SEED(seed);
  const TransformerConfig c = TinyConfig();
  const NamedTensors t = RandomTensors(c, seed, /*floats=*/true);
  SaveCheckpoint(Dir("ck"), c, t);
  const HfCheckpoint ck = LoadCheckpoint(Dir("ck"));
  ExpectSameConfig(ck.config, c);
  EXPECT_EQ(ck.model_type, "llama");
  EXPECT_EQ(ck.torch_dtype, "float32");
  EXPECT_EQ(ck.safetensors_files, std::vector<std::string>{"model.safetensors"});
  ASSERT_EQ(ck.tensors.size(), t.size());
  for (const auto& [name, tensor] : t) {
    EXPECT_EQ(ck.tensors.at(name).shape, tensor.shape) << name;
    EXPECT_EQ(ck.tensors.at(name).data, tensor.data) << name;
  }
  const json cfg = ReadJson(Dir("ck") + "/config.json");
  EXPECT_EQ(cfg.at("architectures"), json::array({"LlamaForCausalLM"}));
  EXPECT_EQ(cfg.at("model_type"), "llama");
  EXPECT_TRUE(cfg.at("rope_scaling").is_null());
  EXPECT_FALSE(fs::exists(Dir("ck") + "/model.safetensors.index.json"));
}

TEST_F(HfCheckpointTest, F32RoundsDoublesToNearestFloat) {
  CB_FRESH_SEED(seed);
  const TransformerConfig c = TinyConfig(/*tied=*/true);
  const NamedTensors t = RandomTensors(c, seed, /*floats=*/false);
  SaveCheckpoint(Dir("ck"), c, t, "F32");
  const HfCheckpoint ck = LoadCheckpoint(Dir("ck"));
  EXPECT_EQ(ck.tensors.count("lm_head.weight"), 0u);
  for (const auto& [name, tensor] : t)
    for (size_t i = 0; i < tensor.data.size(); ++i)
      ASSERT_EQ(ck.tensors.at(name).data[i], static_cast<double>(static_cast<float>(tensor.data[i])))
          << name << "[" << i << "]";
}

// Float values with known bf16/f16 ties placed first in the final norm.
NamedTensors WithTies(NamedTensors t) {
  std::vector<double>& w = t.at("model.norm.weight").data;
  w[0] = 1.0 + std::ldexp(1.0, -8);       // bf16 tie between 1 and 1+2^-7: even is 1
  w[1] = 1.0 + 3 * std::ldexp(1.0, -8);   // tie between 1+2^-7 and 1+2^-6: even is 1+2^-6
  w[2] = 1.0 + std::ldexp(1.0, -11);      // f16 tie between 1 and 1+2^-10: even is 1
  w[3] = -(1.0 + 3 * std::ldexp(1.0, -11));
  return t;
}

TEST_F(HfCheckpointTest, Bf16RoundTripEqualsTorchRounding) {
  CB_FRESH_SEED(seed);
  const TransformerConfig c = TinyConfig();
  const NamedTensors t = WithTies(RandomTensors(c, seed, /*floats=*/true));
  SaveCheckpoint(Dir("ck"), c, t, "BF16");
  const HfCheckpoint ck = LoadCheckpoint(Dir("ck"));
  EXPECT_EQ(ck.torch_dtype, "bfloat16");
  const auto& w = ck.tensors.at("model.norm.weight").data;
  EXPECT_EQ(w[0], 1.0);
  EXPECT_EQ(w[1], 1.0 + std::ldexp(1.0, -6));
  for (const auto& [name, tensor] : t)
    for (size_t i = 0; i < tensor.data.size(); ++i)
      ASSERT_EQ(ck.tensors.at(name).data[i], TorchBf16(tensor.data[i])) << name << "[" << i << "]";
}

TEST_F(HfCheckpointTest, F16RoundTripEqualsNearestEven) {
  CB_FRESH_SEED(seed);
  const TransformerConfig c = TinyConfig();
  const NamedTensors t = WithTies(RandomTensors(c, seed, /*floats=*/true));
  SaveCheckpoint(Dir("ck"), c, t, "F16");
  const HfCheckpoint ck = LoadCheckpoint(Dir("ck"));
  EXPECT_EQ(ck.torch_dtype, "float16");
  const auto& w = ck.tensors.at("model.norm.weight").data;
  EXPECT_EQ(w[2], 1.0);
  EXPECT_EQ(w[3], -(1.0 + std::ldexp(1.0, -9)));
  for (const auto& [name, tensor] : t)
    for (size_t i = 0; i < tensor.data.size(); ++i)
      ASSERT_EQ(ck.tensors.at(name).data[i], CompilerF16(tensor.data[i])) << name << "[" << i << "]";
}

TEST_F(HfCheckpointTest, MultiShardBf16Loads) {
  CB_FRESH_SEED(seed);
  const TransformerConfig c = TinyConfig();
  const NamedTensors t = RandomTensors(c, seed, /*floats=*/true);
  // The largest tensors (embed, lm_head: 11 x 8 bf16 = 176 bytes) just fit.
  SaveCheckpoint(Dir("sharded"), c, t, "BF16", /*max_shard_bytes=*/400);
  SaveCheckpoint(Dir("single"), c, t, "BF16");
  const json index = ReadJson(Dir("sharded") + "/model.safetensors.index.json");
  std::set<std::string> files;
  for (const auto& [name, file] : index.at("weight_map").items()) files.insert(file.get<std::string>());
  ASSERT_GE(files.size(), 3u);
  const std::string n = std::to_string(files.size());
  EXPECT_TRUE(files.count("model-00001-of-0000" + n + ".safetensors")) << *files.begin();
  EXPECT_TRUE(files.count("model-0000" + n + "-of-0000" + n + ".safetensors"));
  uint64_t total = 0;
  for (const auto& [name, tensor] : t) total += 2 * tensor.data.size();
  EXPECT_EQ(index.at("metadata").at("total_size").get<uint64_t>(), total);
  EXPECT_EQ(index.at("weight_map").size(), t.size());
  for (const auto& f : files) EXPECT_LE(fs::file_size(Dir("sharded") + "/" + f), 400u + 2048u) << f;
  EXPECT_FALSE(fs::exists(Dir("sharded") + "/model.safetensors"));

  const HfCheckpoint a = LoadCheckpoint(Dir("sharded"));
  const HfCheckpoint b = LoadCheckpoint(Dir("single"));
  EXPECT_EQ(a.safetensors_files.size(), files.size());
  ASSERT_EQ(a.tensors.size(), b.tensors.size());
  for (const auto& [name, tensor] : b.tensors) EXPECT_EQ(a.tensors.at(name).data, tensor.data) << name;
}

// A saved checkpoint to break, and the tensors it holds.
class HfCheckpointRejectTest : public HfCheckpointTest {
 protected:
  void SetUp() override {
    HfCheckpointTest::SetUp();
    tensors_ = RandomTensors(TinyConfig(), 99, /*floats=*/true);
    SaveCheckpoint(Dir("ck"), TinyConfig(), tensors_);
    dir_ = Dir("ck");
    config_ = dir_ + "/config.json";
    model_ = dir_ + "/model.safetensors";
  }
  NamedTensors tensors_;
  std::string dir_, config_, model_;
};

TEST_F(HfCheckpointRejectTest, ModelTypes) {
  EditConfig(dir_, [](json& j) { j["model_type"] = "gpt2"; });
  ExpectLoadError(dir_, {config_, "model_type \"gpt2\" is not supported"});
  EditConfig(dir_, [](json& j) { j.erase("model_type"); });
  ExpectLoadError(dir_, {config_, "no \"model_type\""});
  EditConfig(dir_, [](json& j) { j["model_type"] = "mistral"; });
  ExpectLoadError(dir_, {config_, "mistral", "sliding_window", "4096"});
  EditConfig(dir_, [](json& j) { j["sliding_window"] = 4096; });
  ExpectLoadError(dir_, {config_, "mistral", "sliding_window"});
  EditConfig(dir_, [](json& j) { j["sliding_window"] = nullptr; });
  EXPECT_EQ(LoadCheckpoint(dir_).model_type, "mistral");
}

TEST_F(HfCheckpointRejectTest, BiasesActivationAndRopeScaling) {
  EditConfig(dir_, [](json& j) { j["attention_bias"] = true; });
  ExpectLoadError(dir_, {config_, "\"attention_bias\": true is not supported"});
  EditConfig(dir_, [](json& j) { j["attention_bias"] = false; j["mlp_bias"] = true; });
  ExpectLoadError(dir_, {config_, "\"mlp_bias\": true is not supported"});
  EditConfig(dir_, [](json& j) { j["mlp_bias"] = false; j["hidden_act"] = "gelu"; });
  ExpectLoadError(dir_, {config_, "hidden_act \"gelu\" is not supported"});
  EditConfig(dir_, [](json& j) {
    j["hidden_act"] = "silu";
    j["rope_scaling"] = {{"rope_type", "llama3"}, {"factor", 8.0}};
  });
  ExpectLoadError(dir_, {config_, "rope_scaling of type \"llama3\" is not supported"});
  EditConfig(dir_, [](json& j) { j["rope_scaling"] = {{"type", "linear"}, {"factor", 2.0}}; });
  ExpectLoadError(dir_, {config_, "rope_scaling of type \"linear\""});
  EditConfig(dir_, [](json& j) { j["rope_scaling"] = {{"factor", 2.0}}; });
  ExpectLoadError(dir_, {config_, "rope_scaling {\"factor\":2.0} is not supported"});
  EditConfig(dir_, [](json& j) { j["rope_scaling"] = {{"rope_type", "default"}}; });
  EXPECT_NO_THROW(LoadCheckpoint(dir_));
  EditConfig(dir_, [](json& j) {
    j["rope_scaling"] = nullptr;
    j["rope_parameters"] = {{"rope_type", "yarn"}, {"rope_theta", 1e6}};
  });
  ExpectLoadError(dir_, {config_, "rope_parameters of type \"yarn\""});
  // Newer Hugging Face configs carry rope_theta inside rope_parameters.
  EditConfig(dir_, [](json& j) {
    j.erase("rope_theta");
    j["rope_parameters"] = {{"rope_type", "default"}, {"rope_theta", 500000.0}};
  });
  EXPECT_EQ(LoadCheckpoint(dir_).config.rope_theta, 500000.0);
}

TEST_F(HfCheckpointRejectTest, BadConfigValues) {
  EditConfig(dir_, [](json& j) { j["hidden_size"] = "8"; });
  ExpectLoadError(dir_, {config_, "\"hidden_size\" must be an integer"});
  EditConfig(dir_, [](json& j) { j["hidden_size"] = 8; j["num_key_value_heads"] = 3; });
  ExpectLoadError(dir_, {config_, "not a multiple of num_key_value_heads"});
  EditConfig(dir_, [](json& j) { j["num_key_value_heads"] = 2; j["rms_norm_eps"] = -1; });
  ExpectLoadError(dir_, {config_, "rms_norm_eps"});
  EditConfig(dir_, [](json& j) { j["rms_norm_eps"] = 1e-5; j["tie_word_embeddings"] = 0; });
  ExpectLoadError(dir_, {config_, "tie_word_embeddings"});
  WriteText(config_, "{\"model_type\": \"llama\",");
  ExpectLoadError(dir_, {config_, "not valid JSON"});
  fs::remove(config_);
  ExpectLoadError(dir_, {config_, "cannot read"});
}

TEST_F(HfCheckpointRejectTest, ConfigDefaultsAreHuggingFaces) {
  // Only the sizes: kv heads default to heads, head_dim to hidden/heads, and
  // eps, theta, tie and act to LlamaConfig's defaults.
  WriteText(config_, R"({"model_type": "llama", "vocab_size": 11, "hidden_size": 8,
    "intermediate_size": 12, "num_hidden_layers": 2, "num_attention_heads": 2,
    "num_key_value_heads": null, "head_dim": null})");
  NamedTensors mha = RandomTensors([] { auto c = TinyConfig(); c.num_attention_heads = 2;
                                        c.num_key_value_heads = 2; return c; }(), 5, true);
  WriteTensors(model_, mha);
  const HfCheckpoint ck = LoadCheckpoint(dir_);
  EXPECT_EQ(ck.config.num_key_value_heads, 2);
  EXPECT_EQ(ck.config.HeadDim(), 4);
  EXPECT_EQ(ck.config.rms_norm_eps, 1e-6);
  EXPECT_EQ(ck.config.rope_theta, 10000.0);
  EXPECT_EQ(ck.config.max_position_embeddings, 2048);
  EXPECT_FALSE(ck.config.tie_word_embeddings);
  EXPECT_EQ(ck.torch_dtype, "");
}

TEST_F(HfCheckpointRejectTest, MissingExtraAndMisshapenTensors) {
  NamedTensors t = tensors_;
  t.erase("model.layers.1.mlp.up_proj.weight");
  WriteTensors(model_, t);
  ExpectLoadError(dir_, {dir_, "missing tensor \"model.layers.1.mlp.up_proj.weight\" [12, 8]"});

  t = tensors_;
  t["model.layers.2.mlp.up_proj.weight"] = t.at("model.layers.1.mlp.up_proj.weight");
  WriteTensors(model_, t);
  ExpectLoadError(dir_, {model_, "unexpected tensor \"model.layers.2.mlp.up_proj.weight\""});

  t = tensors_;
  t.at("model.layers.0.self_attn.k_proj.weight").shape = {8, 4};
  WriteTensors(model_, t);
  ExpectLoadError(dir_, {model_, "\"model.layers.0.self_attn.k_proj.weight\" has shape [8, 4]",
                         "implies [4, 8]"});

  // The legacy rotary buffer is ignored.
  t = tensors_;
  t["model.layers.0.self_attn.rotary_emb.inv_freq"] = Tensor{{1}, {1.0}};
  WriteTensors(model_, t);
  EXPECT_EQ(LoadCheckpoint(dir_).tensors.size(), tensors_.size());
}

TEST_F(HfCheckpointRejectTest, LmHeadMustMatchTying) {
  EditConfig(dir_, [](json& j) { j["tie_word_embeddings"] = true; });
  ExpectLoadError(dir_, {model_, "has \"lm_head.weight\" but config.json says tie_word_embeddings true"});
  EditConfig(dir_, [](json& j) { j["tie_word_embeddings"] = false; });
  NamedTensors t = tensors_;
  t.erase("lm_head.weight");
  WriteTensors(model_, t);
  ExpectLoadError(dir_, {dir_, "missing tensor \"lm_head.weight\"", "tie_word_embeddings false"});
}

TEST_F(HfCheckpointRejectTest, DtypesAndFilesPresent) {
  // Mixed F64 / BF16 / F16 / F32 tensors in one file are read, each exactly.
  std::vector<std::pair<std::string, harness::SafetensorsWriteTensor>> out;
  const char* dtypes[] = {"F64", "BF16", "F16", "F32"};
  int k = 0;
  for (const auto& [name, t] : tensors_) out.push_back({name, {dtypes[k++ % 4], t.shape, t.data}});
  WriteSafetensors(model_, out);
  const HfCheckpoint mixed = LoadCheckpoint(dir_);
  k = 0;
  for (const auto& [name, t] : tensors_) {
    const std::string dt = dtypes[k++ % 4];
    const double x = t.data[0], got = mixed.tensors.at(name).data[0];
    EXPECT_EQ(got, dt == "BF16" ? TorchBf16(x) : dt == "F16" ? CompilerF16(x) : x) << name << " " << dt;
  }

  // An integer dtype is refused, naming the file, tensor and dtype: patch the
  // header's "F32" of one tensor to "I32" (same size, same header length).
  WriteTensors(model_, tensors_);
  std::string bytes;
  {
    std::ifstream in(model_, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const size_t at = bytes.find("\"F32\"", bytes.find("\"model.norm.weight\""));
  ASSERT_NE(at, std::string::npos);
  bytes.replace(at, 5, "\"I32\"");
  WriteText(model_, bytes);
  ExpectLoadError(dir_, {model_, "\"model.norm.weight\" has dtype I32"});
  WriteTensors(model_, tensors_);
  EXPECT_NO_THROW(LoadCheckpoint(dir_));
  WriteText(dir_ + "/model.safetensors.index.json", "{}");
  ExpectLoadError(dir_, {dir_, "both model.safetensors and model.safetensors.index.json"});
  fs::remove(dir_ + "/model.safetensors.index.json");
  fs::remove(model_);
  ExpectLoadError(dir_, {dir_, "no model.safetensors or model.safetensors.index.json"});
}

TEST_F(HfCheckpointRejectTest, TruncatedFileIsNamed) {
  const auto size = fs::file_size(model_);
  fs::resize_file(model_, size - 3);
  ExpectLoadError(dir_, {model_});
}

class HfCheckpointShardTest : public HfCheckpointTest {
 protected:
  void SetUp() override {
    HfCheckpointTest::SetUp();
    tensors_ = RandomTensors(TinyConfig(), 17, /*floats=*/true);
    SaveCheckpoint(Dir("ck"), TinyConfig(), tensors_, "BF16", 400);
    dir_ = Dir("ck");
    index_path_ = dir_ + "/model.safetensors.index.json";
    index_ = ReadJson(index_path_);
    ASSERT_GE(LoadCheckpoint(dir_).safetensors_files.size(), 3u);
  }
  std::string Shard(const std::string& tensor) const {
    return index_.at("weight_map").at(tensor).get<std::string>();
  }
  void WriteIndex() const { WriteText(index_path_, index_.dump(1)); }

  NamedTensors tensors_;
  std::string dir_, index_path_;
  json index_;
};

TEST_F(HfCheckpointShardTest, MappedNameMissingFromItsShard) {
  const std::string other = Shard("lm_head.weight");
  ASSERT_NE(Shard("model.embed_tokens.weight"), other);
  index_["weight_map"]["model.embed_tokens.weight"] = other;
  WriteIndex();
  // The shard named by the index lacks the tensor.
  ExpectLoadError(dir_, {dir_ + "/" + other, "has no tensor \"model.embed_tokens.weight\""});
}

TEST_F(HfCheckpointShardTest, ShardHoldsUnmappedOrMismappedName) {
  const std::string shard = Shard("model.norm.weight");
  index_["weight_map"].erase("model.norm.weight");
  // Keep every other tensor of that shard mapped; the norm's file still holds it.
  WriteIndex();
  ExpectLoadError(dir_, {dir_ + "/" + shard, "holds tensor \"model.norm.weight\"", "does not map"});

  // Map the norm to a shard that has it, while another shard also has it.
  index_ = ReadJson(index_path_);
  const std::string first = Shard("model.embed_tokens.weight");
  ASSERT_NE(first, shard);
  const harness::SafetensorsFile sf = harness::SafetensorsFile::Open(dir_ + "/" + first);
  std::vector<std::pair<std::string, harness::SafetensorsWriteTensor>> out;
  for (const auto& t : sf.tensors()) out.push_back({t.name, {"BF16", t.shape, sf.ReadAsDouble(t.name)}});
  out.push_back({"model.norm.weight", {"BF16", {8}, tensors_.at("model.norm.weight").data}});
  harness::WriteSafetensors(dir_ + "/" + first, out);
  index_["weight_map"]["model.norm.weight"] = shard;
  WriteIndex();
  ExpectLoadError(dir_, {dir_ + "/" + first, "holds tensor \"model.norm.weight\"", "maps to " + shard});
}

TEST_F(HfCheckpointShardTest, BadIndex) {
  index_["weight_map"]["model.norm.weight"] = "../elsewhere.safetensors";
  WriteIndex();
  ExpectLoadError(dir_, {index_path_, "is not a file name in the checkpoint folder"});
  WriteText(index_path_, R"({"metadata": {}})");
  ExpectLoadError(dir_, {index_path_, "no \"weight_map\" object"});
}

TEST_F(HfCheckpointShardTest, TruncatedShardIsNamed) {
  const std::string shard = dir_ + "/" + Shard("model.layers.1.mlp.down_proj.weight");
  fs::resize_file(shard, fs::file_size(shard) - 1);
  ExpectLoadError(dir_, {shard});
}

TEST_F(HfCheckpointTest, SaveRefusesBadInputAndWritesNothing) {
  const TransformerConfig c = TinyConfig();
  NamedTensors t = RandomTensors(c, 3, true);
  const auto expect_invalid = [&](const std::string& dir, const NamedTensors& ts, const std::string& dtype,
                                  const std::string& part) {
    try {
      SaveCheckpoint(dir, c, ts, dtype);
      ADD_FAILURE() << "no throw, expected " << part;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  expect_invalid(Dir("a"), t, "F8", "dtype \"F8\"");
  NamedTensors missing = t;
  missing.erase("model.norm.weight");
  expect_invalid(Dir("a"), missing, "F32", "missing tensor \"model.norm.weight\"");
  NamedTensors extra = t;
  extra["model.bias"] = Tensor{{1}, {0.0}};
  expect_invalid(Dir("a"), extra, "F32", "unexpected tensor \"model.bias\"");
  NamedTensors short_data = t;
  short_data.at("model.norm.weight").data.pop_back();
  expect_invalid(Dir("a"), short_data, "F32", "has 7 values");
  expect_invalid(Dir("no_parent/a"), t, "F32", "parent");
  EXPECT_TRUE(fs::is_empty(root_)) << "a refused save left files behind";

  SaveCheckpoint(Dir("a"), c, t);
  const auto before = fs::last_write_time(Dir("a") + "/model.safetensors");
  expect_invalid(Dir("a"), RandomTensors(c, 4, true), "F32", "already exists");
  EXPECT_EQ(fs::last_write_time(Dir("a") + "/model.safetensors"), before);
  EXPECT_EQ(LoadCheckpoint(Dir("a")).tensors.at("model.norm.weight").data, t.at("model.norm.weight").data);
}

// The PyTorch oracle's cases (fixtures/lm/oracle/llama_oracle.py).
class OracleFixtureTest : public ::testing::TestWithParam<std::string> {};

TEST_P(OracleFixtureTest, CheckpointAndGoldenAgree) {
  const std::string dir = cb::testing::FixturePath("lm/oracle/" + GetParam());
  const HfCheckpoint ck = LoadCheckpoint(dir);
  const TransformerConfig& c = ck.config;
  EXPECT_EQ(ck.torch_dtype, "float32");
  const harness::SafetensorsFile g = harness::SafetensorsFile::Open(dir + "/golden.safetensors");

  // Names and shapes: tokens [T], logits [T, V], loss [], resid.0..L [T, d],
  // final_norm [T, d], and grad.<name> for exactly the checkpoint's tensors.
  const harness::SafetensorsTensor* tokens = g.Find("tokens");
  ASSERT_NE(tokens, nullptr);
  ASSERT_EQ(tokens->shape.size(), 1u);
  const int64_t T = tokens->shape[0], V = c.vocab_size, d = c.hidden_size;
  ASSERT_GE(T, 2);
  std::set<std::string> expected = {"tokens", "logits", "loss", "final_norm"};
  for (int n = 0; n <= c.num_hidden_layers; ++n) expected.insert("resid." + std::to_string(n));
  for (const auto& [name, t] : ck.tensors) expected.insert("grad." + name);
  std::set<std::string> actual;
  for (const auto& t : g.tensors()) {
    actual.insert(t.name);
    EXPECT_EQ(t.dtype, "F64") << t.name;
    std::vector<int64_t> shape;
    if (t.name == "logits") shape = {T, V};
    else if (t.name == "loss") shape = {};
    else if (t.name == "tokens") shape = {T};
    else if (t.name.rfind("grad.", 0) == 0 && ck.tensors.count(t.name.substr(5)))
      shape = ck.tensors.at(t.name.substr(5)).shape;
    else shape = {T, d};
    EXPECT_EQ(t.shape, shape) << t.name;
  }
  EXPECT_EQ(actual, expected);

  // Consistency with the checkpoint (no transformer needed): the tokens are
  // ids, resid.0 is their embedding rows, the loss is the mean next-token
  // cross-entropy of the logits, and (untied) embedding rows of tokens that
  // occur at no predicting position get zero gradient.
  const std::vector<double> ids = g.ReadAsDouble("tokens");
  const std::vector<double> logits = g.ReadAsDouble("logits");
  const std::vector<double> resid0 = g.ReadAsDouble("resid.0");
  const std::vector<double>& embed = ck.tensors.at("model.embed_tokens.weight").data;
  std::set<int64_t> predicting;
  double loss = 0;
  for (int64_t t = 0; t < T; ++t) {
    ASSERT_EQ(ids[t], std::floor(ids[t]));
    ASSERT_GE(ids[t], 0);
    ASSERT_LT(ids[t], V);
    const int64_t id = static_cast<int64_t>(ids[t]);
    for (int64_t j = 0; j < d; ++j) ASSERT_EQ(resid0[t * d + j], embed[id * d + j]) << t << "," << j;
    if (t + 1 < T) {
      predicting.insert(id);
      double m = -INFINITY, s = 0;
      for (int64_t v = 0; v < V; ++v) m = std::max(m, logits[t * V + v]);
      for (int64_t v = 0; v < V; ++v) s += std::exp(logits[t * V + v] - m);
      loss += (m + std::log(s) - logits[t * V + static_cast<int64_t>(ids[t + 1])]) / double(T - 1);
    }
  }
  EXPECT_NEAR(g.ReadAsDouble("loss")[0], loss, 1e-12 * std::abs(loss));
  const std::vector<double> grad_embed = g.ReadAsDouble("grad.model.embed_tokens.weight");
  for (int64_t v = 0; v < V; ++v) {
    double norm = 0;
    for (int64_t j = 0; j < d; ++j) norm += std::abs(grad_embed[v * d + j]);
    if (predicting.count(v)) EXPECT_GT(norm, 0) << "token " << v;
    else if (!c.tie_word_embeddings) EXPECT_EQ(norm, 0) << "token " << v;
    else EXPECT_GT(norm, 0) << "tied: every row is an output embedding, token " << v;
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, OracleFixtureTest, ::testing::Values("untied_gqa", "tied_mqa"));

TEST(OracleFixture, ConfigsAreTheDocumentedOnes) {
  const HfCheckpoint a = LoadCheckpoint(cb::testing::FixturePath("lm/oracle/untied_gqa"));
  EXPECT_EQ(a.config.vocab_size, 32);
  EXPECT_EQ(a.config.hidden_size, 16);
  EXPECT_EQ(a.config.num_attention_heads, 4);
  EXPECT_EQ(a.config.num_key_value_heads, 2);
  EXPECT_EQ(a.config.intermediate_size, 24);
  EXPECT_FALSE(a.config.tie_word_embeddings);
  const HfCheckpoint b = LoadCheckpoint(cb::testing::FixturePath("lm/oracle/tied_mqa"));
  EXPECT_EQ(b.config.num_key_value_heads, 1);
  EXPECT_EQ(b.config.rope_theta, 500.0);
  EXPECT_TRUE(b.config.tie_word_embeddings);
  EXPECT_EQ(b.tensors.count("lm_head.weight"), 0u);
}

}  // namespace
}  // namespace cb::ref::lm
