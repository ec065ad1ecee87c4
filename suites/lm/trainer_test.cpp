// File: suites/lm/trainer_test.cpp
// -----------------------------------------------------------------------------
// The trainer (trainer.h) and LoRA (lora.h): the schedule's formula, one AdamW
// step against the formula written out, learning on a learnable stream,
// bit-identical reruns and resumes on one thread, LoRA's chain rule against
// fp64 finite differences of the reference, and checkpoint round trips.
#include "suites/lm/trainer.h"

#include <cblas.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "fixtures/fresh_seed.h"
#include "harness/random.h"
#include "reference/lm/transformer.h"
#include "suites/lm/lora.h"

namespace cb::lm_suite {
namespace {

namespace fs = std::filesystem;
namespace ref = cb::ref::lm;

ref::TransformerConfig Tiny() {
  ref::TransformerConfig c;
  c.vocab_size = 16;
  c.hidden_size = 16;
  c.intermediate_size = 24;
  c.num_hidden_layers = 2;
  c.num_attention_heads = 4;
  c.num_key_value_heads = 2;
  c.max_position_embeddings = 64;
  c.rms_norm_eps = 1e-5;
  return c;
}

// A stream a small model can learn: a fixed random cycle of 7 tokens with a
// 10% chance of a random token.
std::vector<int> LearnableStream(uint64_t seed, int n) {
  cb::harness::Rng rng(seed, 9);
  std::vector<int> cycle(7), out;
  for (int& c : cycle) c = static_cast<int>(rng.UniformInt(0, 15));
  for (int i = 0; i < n; ++i)
    out.push_back(rng.Uniform() < 0.1 ? static_cast<int>(rng.UniformInt(0, 15)) : cycle[i % 7]);
  return out;
}

struct OneThread {  // bit-identical runs need a fixed OpenBLAS thread count
  OneThread() { openblas_set_num_threads(1); }
  ~OneThread() { openblas_set_num_threads(0); }
};

TEST(Trainer, CosineScheduleWithWarmup) {
  TrainOptions o;
  o.steps = 110;
  o.warmup = 10;
  o.lr = 1.0;
  o.min_lr_ratio = 0.1;
  EXPECT_DOUBLE_EQ(ScheduledLr(o, 0), 0.1);
  EXPECT_DOUBLE_EQ(ScheduledLr(o, 9), 1.0);
  EXPECT_DOUBLE_EQ(ScheduledLr(o, 10), 1.0);                // cos(0)
  EXPECT_NEAR(ScheduledLr(o, 60), 0.1 + 0.9 * 0.5, 1e-15);  // half way: cos(pi/2) = 0
  EXPECT_NEAR(ScheduledLr(o, 110), 0.1, 1e-15);
}

TEST(Trainer, FirstAdamWStepIsTheFormula) {
  CB_FRESH_SEED(seed);
  CpuTransformer model(ref::RandomInit(Tiny(), seed, 0.2));
  const std::vector<float> w0 = model.params();
  const std::vector<int> stream = LearnableStream(seed, 400);
  TrainOptions o;
  o.steps = 10;
  o.warmup = 2;
  o.batch = 2;
  o.seq = 12;
  o.lr = 1e-2;
  o.weight_decay = 0.1;
  o.clip = 0;  // no clipping, so the update is the bare formula
  o.seed = seed;
  std::vector<float> g(model.num_params());
  model.LossAndGrad(SampleBatch(stream, o.batch, o.seq, o.seed, 0), g);
  Trainer trainer(model, stream, o);
  trainer.Step();
  // t = 1: m/(1-b1) = g, v/(1-b2) = g^2, so w1 = w0 (1 - lr wd [rank>=2]) - lr g / (|g| + eps).
  const double lr = ScheduledLr(o, 0);
  int checked = 0;
  for (const ParamSlot& s : model.slots())
    for (size_t i = s.offset; i < s.offset + s.size; i += 7) {
      const double decayed = s.shape.size() >= 2 ? w0[i] * (1 - lr * o.weight_decay) : w0[i];
      const double want = decayed - lr * g[i] / (std::abs(g[i]) + o.eps);
      ASSERT_NEAR(model.params()[i], want, 1e-6) << s.name << "[" << i - s.offset << "]";
      ++checked;
    }
  EXPECT_GT(checked, 100);
}

TEST(Trainer, LearnsALearnableStream) {
  CB_FRESH_SEED(seed);
  CpuTransformer model(ref::RandomInit(Tiny(), seed, 0.02));
  const std::vector<int> stream = LearnableStream(seed, 2000);
  TrainOptions o;
  o.steps = 120;
  o.warmup = 10;
  o.batch = 4;
  o.seq = 24;
  o.lr = 1e-2;
  o.seed = seed;
  Trainer trainer(model, stream, o);
  const double before = trainer.Evaluate(stream, 4, 77);
  trainer.Run(nullptr);
  const double after = trainer.Evaluate(stream, 4, 77);
  // The stream's entropy is ~0.1 * log 16 + H(0.1) ~ 0.6 nats; uniform is log 16 = 2.77.
  EXPECT_NEAR(before, std::log(16.0), 0.2);
  EXPECT_LT(after, 1.2) << "before " << before;
}

TEST(Trainer, OneThreadRunsAndResumesAreBitIdentical) {
  CB_FRESH_SEED(seed);
  OneThread one;
  const std::vector<int> stream = LearnableStream(seed, 1000);
  TrainOptions o;
  o.steps = 12;
  o.warmup = 2;
  o.batch = 2;
  o.seq = 16;
  o.seed = seed;
  auto train = [&](int stop_at, CpuTransformer& model, OptimizerState state) {
    Trainer t(model, stream, o, std::move(state));
    t.Run(nullptr, [&] { return t.state().step >= stop_at; });
    return t.state();
  };
  CpuTransformer a(ref::RandomInit(Tiny(), seed, 0.02)), b(ref::RandomInit(Tiny(), seed, 0.02));
  train(12, a, {});
  train(12, b, {});
  EXPECT_EQ(a.params(), b.params());

  // Stop at 5, checkpoint, load into a fresh model, finish: equal to `a`.
  const fs::path dir = fs::path(::testing::TempDir()) / ("cb_trainer_resume_" + std::to_string(seed));
  fs::remove_all(dir);
  CpuTransformer c(ref::RandomInit(Tiny(), seed, 0.02));
  const OptimizerState mid = train(5, c, {});
  SaveTrainingCheckpoint(dir.string(), c, mid, {{"options", o.ToJson()}});
  const TrainingCheckpoint ck = LoadTrainingCheckpoint(dir.string(), c.num_params());
  EXPECT_EQ(ck.state.step, 5);
  EXPECT_EQ(TrainOptions::FromJson(ck.trainer_json.at("options")).seed, o.seed);
  CpuTransformer d(ck.config, ck.weights);
  EXPECT_EQ(d.params(), c.params());
  train(12, d, ck.state);
  EXPECT_EQ(d.params(), a.params());
  fs::remove_all(dir);
}

TEST(Trainer, IncompleteCheckpointIsRefused) {
  const fs::path dir = fs::path(::testing::TempDir()) / "cb_trainer_incomplete";
  fs::remove_all(dir);
  fs::create_directories(dir);
  try {
    LoadTrainingCheckpoint(dir.string(), 10);
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("trainer.json: missing"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

TEST(Trainer, BadOptionsAreRejected) {
  CpuTransformer model(ref::RandomInit(Tiny(), 1, 0.02));
  TrainOptions o;
  o.warmup = o.steps;
  EXPECT_THROW(Trainer(model, LearnableStream(1, 1000), o), std::invalid_argument);
  o = TrainOptions{};
  o.seq = 64;
  EXPECT_THROW(Trainer(model, LearnableStream(1, 50), o), std::invalid_argument);
}

// dL/dA and dL/dB from Project() against fp64 central differences of the
// reference loss at W = W0 + s B A (B made non-zero first).
TEST(Lora, ProjectedGradientIsTheChainRule) {
  CB_FRESH_SEED(seed);
  const ref::Transformer base = ref::RandomInit(Tiny(), seed, 0.2);
  CpuTransformer model(base);
  LoraAdapters lora(model, LoraSpec{.rank = 2, .alpha = 4, .targets = {"q_proj", "down_proj"}}, seed);
  cb::harness::Rng rng(seed, 4);
  for (float& p : lora.params()) p += static_cast<float>(0.1 * rng.Normal());
  lora.Apply(model);
  const Batch b = SampleBatch(LearnableStream(seed, 200), 1, 10, seed, 0);
  std::vector<float> g(model.num_params()), gl(lora.num_params());
  model.LossAndGrad(b, g);
  lora.Project(g, gl);

  ref::Targets tg{b.targets, std::vector<double>(b.weights.begin(), b.weights.end())};
  auto loss_at = [&](const LoraAdapters& l) {
    CpuTransformer m(base);
    l.Apply(m);
    return ref::Transformer(m.config(), m.ToNamedTensors()).Loss(b.tokens, tg);
  };
  const double h = 1e-3;
  for (size_t i = 0; i < lora.num_params(); i += 13) {
    LoraAdapters plus = lora, minus = lora;
    plus.params()[i] += static_cast<float>(h);
    minus.params()[i] -= static_cast<float>(h);
    const double step = double(plus.params()[i]) - minus.params()[i];  // the fp32 step actually taken
    const double fd = (loss_at(plus) - loss_at(minus)) / step;
    EXPECT_NEAR(gl[i], fd, 2e-3 * std::max(1.0, std::abs(fd))) << "adapter value " << i;
  }
}

TEST(Lora, TrainsOnlyTheAdaptersAndSavesPeftLayout) {
  CB_FRESH_SEED(seed);
  CpuTransformer model(ref::RandomInit(Tiny(), seed, 0.05));
  const std::vector<float> w0 = model.params();
  LoraAdapters lora(model, LoraSpec{.rank = 4, .alpha = 8, .targets = {"q_proj", "v_proj", "up_proj"}},
                    seed);
  const std::vector<int> stream = LearnableStream(seed, 2000);
  TrainOptions o;
  o.steps = 60;
  o.warmup = 5;
  o.batch = 4;
  o.seq = 24;
  o.lr = 2e-2;
  o.seed = seed;
  Trainer t(model, stream, o, {}, &lora);
  EXPECT_EQ(model.params(), w0);  // B = 0: the adapters start as the identity
  const double before = t.Evaluate(stream, 4, 5);
  t.Run(nullptr);
  EXPECT_LT(t.Evaluate(stream, 4, 5), before - 0.3);
  for (const ParamSlot& s : model.slots()) {
    const bool adapted = s.name.find("q_proj") != std::string::npos ||
                         s.name.find("v_proj") != std::string::npos ||
                         s.name.find("up_proj") != std::string::npos;
    const bool same = std::equal(w0.begin() + s.offset, w0.begin() + s.offset + s.size,
                                 model.params().begin() + s.offset);
    EXPECT_EQ(same, !adapted) << s.name;
  }
  const ref::NamedTensors peft = lora.ToPeftTensors();
  ASSERT_TRUE(peft.count("base_model.model.model.layers.1.mlp.up_proj.lora_B.weight"));
  EXPECT_EQ(peft.at("base_model.model.model.layers.0.self_attn.q_proj.lora_A.weight").shape,
            (std::vector<int64_t>{4, 16}));
  LoraAdapters copy(model, lora.spec(), seed + 1);
  copy.LoadPeftTensors(peft);
  EXPECT_EQ(copy.params(), lora.params());
  EXPECT_THROW(LoraAdapters(model, LoraSpec{.rank = 2, .alpha = 2, .targets = {"qproj"}}, 1),
               std::invalid_argument);
}

}  // namespace
}  // namespace cb::lm_suite
