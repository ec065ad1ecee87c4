// File: suites/lm/lora.cpp
// -----------------------------------------------------------------------------
// LoRA adapters (lora.h): merge, gradient projection and PEFT-named I/O.
#include "suites/lm/lora.h"

#include <cblas.h>

#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <tuple>
#include <utility>

#include <nlohmann/json.hpp>

#include "harness/atomic_file.h"
#include "harness/random.h"
#include "harness/safetensors.h"

namespace cb::lm_suite {

namespace ref = cb::ref::lm;

namespace {

const char* ModuleGroup(const std::string& m) {
  if (m == "q_proj" || m == "k_proj" || m == "v_proj" || m == "o_proj") return "self_attn";
  if (m == "gate_proj" || m == "up_proj" || m == "down_proj") return "mlp";
  return nullptr;
}

// "model.layers.0.self_attn.q_proj.weight" -> PEFT's prefix of its adapters.
std::string PeftPrefix(const std::string& weight_name) {
  return "base_model.model." + weight_name.substr(0, weight_name.size() - std::string(".weight").size());
}

}  // namespace

LoraAdapters::LoraAdapters(const CpuTransformer& model, LoraSpec spec, uint64_t seed)
    : spec_(std::move(spec)) {
  if (spec_.rank < 1) throw std::invalid_argument("lora: rank must be >= 1");
  if (spec_.targets.empty()) throw std::invalid_argument("lora: no target modules");
  scale_ = static_cast<float>(spec_.alpha / spec_.rank);
  bool head = false;
  for (const std::string& t : spec_.targets) {
    if (t == "lm_head") {
      // The untied output projection only (a tied head is the embedding).
      if (model.config().tie_word_embeddings)
        throw std::invalid_argument("lora: target lm_head on a model with tied embeddings");
      head = true;
      continue;
    }
    if (!ModuleGroup(t))
      throw std::invalid_argument("lora: unknown target module '" + t +
                                  "' (q_proj k_proj v_proj o_proj gate_proj up_proj down_proj lm_head)");
  }
  // Sites in PEFT's module order: every layer's projections, then lm_head.
  std::vector<std::string> names;
  for (int l = 0; l < model.config().num_hidden_layers; ++l)
    for (const std::string& t : spec_.targets)
      if (t != "lm_head") names.push_back("model.layers." + std::to_string(l) + "." + ModuleGroup(t) + "." + t + ".weight");
  if (head) names.push_back("lm_head.weight");
  cb::harness::Rng rng(seed, 0);
  const int r = spec_.rank;
  for (const std::string& name : names) {
      const ParamSlot& s = model.slot(name);
      Site site{name, s.offset, static_cast<int>(s.shape[0]), static_cast<int>(s.shape[1]),
                params_.size(), 0, {}};
      site.b_offset = site.a_offset + size_t(r) * site.in;
      site.base.assign(model.params().begin() + s.offset, model.params().begin() + s.offset + s.size);
      const double bound = 1.0 / std::sqrt(static_cast<double>(site.in));
      for (int i = 0; i < r * site.in; ++i)
        params_.push_back(static_cast<float>(bound * (2 * rng.Uniform() - 1)));  // A
      params_.resize(params_.size() + size_t(site.out) * r, 0.0f);               // B = 0
      sites_.push_back(std::move(site));
    }
}

void LoraAdapters::Apply(CpuTransformer& model) const {
  const int r = spec_.rank;
  for (const Site& s : sites_) {
    float* W = model.params().data() + s.model_offset;  // [out, in]
    std::copy(s.base.begin(), s.base.end(), W);
    // W += s * B [out, r] A [r, in]
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, s.out, s.in, r, scale_,
                &params_[s.b_offset], r, &params_[s.a_offset], s.in, 1.0f, W, s.in);
  }
}

void LoraAdapters::Project(std::span<const float> model_grad, std::span<float> lora_grad) const {
  if (lora_grad.size() != params_.size())
    throw std::invalid_argument("lora: gradient buffer has the wrong size");
  const int r = spec_.rank;
  for (const Site& s : sites_) {
    const float* G = model_grad.data() + s.model_offset;  // [out, in]
    // dA [r, in] = s B^T [r, out] G [out, in]
    cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, r, s.in, s.out, scale_,
                &params_[s.b_offset], r, G, s.in, 0.0f, &lora_grad[s.a_offset], s.in);
    // dB [out, r] = s G [out, in] A^T [in, r]
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, s.out, r, s.in, scale_, G, s.in,
                &params_[s.a_offset], s.in, 0.0f, &lora_grad[s.b_offset], r);
  }
}

ref::NamedTensors LoraAdapters::ToPeftTensors() const {
  ref::NamedTensors out;
  const int r = spec_.rank;
  for (const Site& s : sites_) {
    const std::string p = PeftPrefix(s.name);
    const float* a = &params_[s.a_offset];
    const float* b = &params_[s.b_offset];
    out[p + ".lora_A.weight"] = ref::Tensor{{r, s.in}, std::vector<double>(a, a + size_t(r) * s.in)};
    out[p + ".lora_B.weight"] = ref::Tensor{{s.out, r}, std::vector<double>(b, b + size_t(s.out) * r)};
  }
  return out;
}

void LoraAdapters::LoadPeftTensors(const ref::NamedTensors& tensors) {
  const int r = spec_.rank;
  for (const Site& s : sites_) {
    const std::string p = PeftPrefix(s.name);
    for (auto [suffix, offset, shape] :
         {std::tuple{".lora_A.weight", s.a_offset, std::vector<int64_t>{r, s.in}},
          std::tuple{".lora_B.weight", s.b_offset, std::vector<int64_t>{s.out, r}}}) {
      auto it = tensors.find(p + suffix);
      if (it == tensors.end()) throw std::runtime_error("lora: adapter tensor " + p + suffix + " missing");
      if (it->second.shape != shape)
        throw std::runtime_error("lora: adapter tensor " + p + suffix + " has the wrong shape");
      for (size_t i = 0; i < it->second.data.size(); ++i)
        params_[offset + i] = static_cast<float>(it->second.data[i]);
    }
  }
}

void LoraAdapters::SaveAdapter(const std::string& dir) const {
  std::vector<std::pair<std::string, cb::harness::SafetensorsWriteTensor>> tensors;
  for (auto& [name, t] : ToPeftTensors()) tensors.push_back({name, {"F32", t.shape, t.data}});
  cb::harness::WriteSafetensors((std::filesystem::path(dir) / "adapter_model.safetensors").string(),
                                tensors, {{"format", "pt"}});
  nlohmann::json cfg = {{"peft_type", "LORA"},          {"task_type", "CAUSAL_LM"},
                        {"r", spec_.rank},              {"lora_alpha", spec_.alpha},
                        {"lora_dropout", 0.0},          {"bias", "none"},
                        {"target_modules", spec_.targets}, {"fan_in_fan_out", false}};
  cb::harness::WriteFileAtomically((std::filesystem::path(dir) / "adapter_config.json").string(),
                                   cfg.dump(2) + "\n");
}

}  // namespace cb::lm_suite
