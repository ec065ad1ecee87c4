// File: suites/lm/trainer.cpp
// -----------------------------------------------------------------------------
// AdamW training of the CPU transformer and its checkpoints (trainer.h).
#include "suites/lm/trainer.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <utility>

#include "harness/atomic_file.h"
#include "harness/random.h"
#include "harness/safetensors.h"
#include "reference/lm/hf_checkpoint.h"

namespace cb::lm_suite {

namespace fs = std::filesystem;
namespace ref = cb::ref::lm;

constexpr double kPi = 3.14159265358979323846;

nlohmann::json TrainOptions::ToJson() const {
  return {{"steps", steps},   {"batch", batch},
          {"seq", seq},       {"warmup", warmup},
          {"lr", lr},         {"min_lr_ratio", min_lr_ratio},
          {"weight_decay", weight_decay}, {"beta1", beta1},
          {"beta2", beta2},   {"eps", eps},
          {"clip", clip},     {"seed", seed}};
}

TrainOptions TrainOptions::FromJson(const nlohmann::json& j) {
  TrainOptions o;
  auto get = [&](const char* key, auto& field) {
    if (j.contains(key)) field = j.at(key).get<std::decay_t<decltype(field)>>();
  };
  get("steps", o.steps);
  get("batch", o.batch);
  get("seq", o.seq);
  get("warmup", o.warmup);
  get("lr", o.lr);
  get("min_lr_ratio", o.min_lr_ratio);
  get("weight_decay", o.weight_decay);
  get("beta1", o.beta1);
  get("beta2", o.beta2);
  get("eps", o.eps);
  get("clip", o.clip);
  get("seed", o.seed);
  return o;
}

void TrainOptions::Validate() const {
  auto bad = [](const std::string& what) { throw std::invalid_argument("train options: " + what); };
  if (steps < 1) bad("steps must be >= 1");
  if (batch < 1 || seq < 1) bad("batch and seq must be >= 1");
  if (warmup < 0 || warmup >= steps) bad("warmup must be in [0, steps)");
  if (!(lr > 0)) bad("lr must be > 0");
  if (!(min_lr_ratio >= 0 && min_lr_ratio <= 1)) bad("min_lr_ratio must be in [0, 1]");
  if (!(weight_decay >= 0)) bad("weight_decay must be >= 0");
  if (!(beta1 >= 0 && beta1 < 1 && beta2 >= 0 && beta2 < 1)) bad("betas must be in [0, 1)");
  if (!(eps > 0)) bad("eps must be > 0");
}

double ScheduledLr(const TrainOptions& o, int step) {
  if (step < o.warmup) return o.lr * (step + 1) / o.warmup;
  const double p = double(step - o.warmup) / std::max(1, o.steps - o.warmup);
  const double r = o.min_lr_ratio;
  return o.lr * (r + (1 - r) * 0.5 * (1 + std::cos(kPi * std::min(p, 1.0))));
}

Batch SampleBatch(std::span<const int> stream, int batch, int seq, uint64_t seed, int step) {
  const int64_t n = static_cast<int64_t>(stream.size());
  if (n < seq + 2)
    throw std::invalid_argument("train: the token stream has " + std::to_string(n) +
                                " tokens, fewer than seq + 2 = " + std::to_string(seq + 2));
  cb::harness::Rng rng(seed, static_cast<uint64_t>(step));
  Batch b;
  b.batch = batch;
  b.seq = seq;
  b.weights.assign(size_t(batch) * seq, 1.0f);
  for (int i = 0; i < batch; ++i) {
    const int64_t start = static_cast<int64_t>(rng.UniformInt(0, uint64_t(n - seq - 1)));
    b.tokens.insert(b.tokens.end(), stream.begin() + start, stream.begin() + start + seq);
    b.targets.insert(b.targets.end(), stream.begin() + start + 1, stream.begin() + start + seq + 1);
  }
  return b;
}

namespace {

// CpuTransformer as a TrainableModel.
class CpuTrainable : public TrainableModel {
 public:
  explicit CpuTrainable(CpuTransformer& model) : model_(model) {}
  std::vector<float>& params() override { return model_.params(); }
  const std::vector<ParamSlot>& slots() const override { return model_.slots(); }
  double LossAndGrad(const Batch& b, std::span<float> grad) const override {
    return model_.LossAndGrad(b, grad);
  }
  double Loss(const Batch& b) const override { return model_.Loss(b); }

 private:
  CpuTransformer& model_;
};

}  // namespace

Trainer::Trainer(CpuTransformer& model, std::vector<int> stream, TrainOptions options,
                 OptimizerState state, LoraAdapters* lora)
    : owned_(std::make_unique<CpuTrainable>(model)), model_(owned_.get()), cpu_(&model),
      stream_(std::move(stream)), options_(options), state_(std::move(state)), lora_(lora) {
  Init();
}

Trainer::Trainer(TrainableModel& model, std::vector<int> stream, TrainOptions options,
                 OptimizerState state)
    : model_(&model), stream_(std::move(stream)), options_(options), state_(std::move(state)),
      lora_(nullptr) {
  Init();
}

void Trainer::Init() {
  options_.Validate();
  if (static_cast<int64_t>(stream_.size()) < options_.seq + 2)
    throw std::invalid_argument("train: the token stream has " + std::to_string(stream_.size()) +
                                " tokens, fewer than seq + 2 = " + std::to_string(options_.seq + 2));
  const size_t n = lora_ ? lora_->num_params() : model_->params().size();
  if (state_.m.empty()) {
    state_.m.assign(n, 0.0f);
    state_.v.assign(n, 0.0f);
  }
  if (state_.m.size() != n || state_.v.size() != n)
    throw std::invalid_argument("train: optimizer state of " + std::to_string(state_.m.size()) +
                                " values for " + std::to_string(n) + " trainable values");
  decay_.assign(n, 1);  // LoRA's A and B are matrices: all decay
  if (!lora_)
    for (const ParamSlot& s : model_->slots())
      if (s.shape.size() < 2) std::fill_n(decay_.begin() + s.offset, s.size, uint8_t{0});
  grad_.resize(model_->params().size());
  if (lora_) {
    lora_grad_.resize(n);
    lora_->Apply(*cpu_);
  }
}

StepReport Trainer::Step() {
  const int s = state_.step;
  const Batch b = SampleBatch(stream_, options_.batch, options_.seq, options_.seed, s);
  StepReport rep;
  rep.loss = model_->LossAndGrad(b, grad_);
  std::vector<float>& g = lora_ ? lora_grad_ : grad_;
  if (lora_) lora_->Project(grad_, lora_grad_);
  std::vector<float>& w = lora_ ? lora_->params() : model_->params();

  double sq = 0;
  for (float x : g) sq += double(x) * x;
  rep.grad_norm = std::sqrt(sq);
  const float clip_scale = (options_.clip > 0 && rep.grad_norm > options_.clip)
                               ? static_cast<float>(options_.clip / rep.grad_norm)
                               : 1.0f;
  rep.lr = ScheduledLr(options_, s);
  const int t = s + 1;
  const float lr = static_cast<float>(rep.lr);
  const float decay = static_cast<float>(rep.lr * options_.weight_decay);
  const float b1 = static_cast<float>(options_.beta1), b2 = static_cast<float>(options_.beta2);
  const float c1 = static_cast<float>(1 - std::pow(options_.beta1, t));
  const float c2 = static_cast<float>(1 - std::pow(options_.beta2, t));
  const float eps = static_cast<float>(options_.eps);
  for (size_t i = 0; i < w.size(); ++i) {
    const float gi = g[i] * clip_scale;
    if (decay_[i]) w[i] -= decay * w[i];
    state_.m[i] = b1 * state_.m[i] + (1 - b1) * gi;
    state_.v[i] = b2 * state_.v[i] + (1 - b2) * gi * gi;
    w[i] -= lr * (state_.m[i] / c1) / (std::sqrt(state_.v[i] / c2) + eps);
  }
  if (moment_hook_) moment_hook_(t, state_.m, state_.v);
  if (lora_) lora_->Apply(*cpu_);
  state_.step = t;
  rep.step = t;
  return rep;
}

int Trainer::Run(const std::function<void(const StepReport&)>& on_step,
                 const std::function<bool()>& stop) {
  int ran = 0;
  while (state_.step < options_.steps && !stop()) {
    const StepReport r = Step();
    ++ran;
    if (on_step) on_step(r);
  }
  return ran;
}

double Trainer::Evaluate(std::span<const int> stream, int batches, uint64_t seed) const {
  double sum = 0;
  for (int i = 0; i < batches; ++i)
    sum += model_->Loss(SampleBatch(stream, options_.batch, options_.seq, seed, i));
  return sum / batches;
}

// -----------------------------------------------------------------------------
// Checkpoints

void SaveTrainingCheckpoint(const std::string& dir, const CpuTransformer& model,
                            const OptimizerState& state, const nlohmann::json& trainer_json,
                            const LoraAdapters* lora) {
  // The HF folder is created atomically; the optimizer state follows and
  // trainer.json, written last and atomically, marks the checkpoint complete.
  ref::SaveCheckpoint(dir, model.config(), model.ToNamedTensors(), "F32");
  const auto as_tensor = [](const std::vector<float>& v) {
    return cb::harness::SafetensorsWriteTensor{"F32", {static_cast<int64_t>(v.size())},
                                               std::vector<double>(v.begin(), v.end())};
  };
  cb::harness::WriteSafetensors((fs::path(dir) / "optimizer.safetensors").string(),
                                {{"m", as_tensor(state.m)}, {"v", as_tensor(state.v)}},
                                {{"format", "claimbench-adamw"}});
  if (lora) lora->SaveAdapter(dir);
  nlohmann::json j = trainer_json;
  j["step"] = state.step;
  cb::harness::WriteFileAtomically((fs::path(dir) / "trainer.json").string(), j.dump(2) + "\n");
}

TrainingCheckpoint LoadTrainingCheckpoint(const std::string& dir, size_t trainable_values) {
  const fs::path tj = fs::path(dir) / "trainer.json";
  if (!fs::exists(tj))
    throw std::runtime_error(tj.string() + ": missing (not a complete training checkpoint)");
  TrainingCheckpoint ck;
  try {
    std::ifstream in(tj);
    ck.trainer_json = nlohmann::json::parse(in);
    ck.state.step = ck.trainer_json.at("step").get<int>();
  } catch (const std::exception& e) {
    throw std::runtime_error(tj.string() + ": " + e.what());
  }
  ref::HfCheckpoint hf = ref::LoadCheckpoint(dir);
  ck.config = hf.config;
  ck.weights = std::move(hf.tensors);
  const std::string opt = (fs::path(dir) / "optimizer.safetensors").string();
  const cb::harness::SafetensorsFile f = cb::harness::SafetensorsFile::Open(opt);
  for (auto [name, dst] : {std::pair{"m", &ck.state.m}, std::pair{"v", &ck.state.v}}) {
    const std::vector<double> v = f.ReadAsDouble(name);
    if (v.size() != trainable_values)
      throw std::runtime_error(opt + ": tensor " + name + " has " + std::to_string(v.size()) +
                               " values for " + std::to_string(trainable_values) +
                               " trainable values");
    dst->assign(v.begin(), v.end());
  }
  return ck;
}

}  // namespace cb::lm_suite
