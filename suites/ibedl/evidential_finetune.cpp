// File: suites/ibedl/evidential_finetune.cpp
// LoRA fine-tuning with MAP / EDL / IB-EDL and inference (evidential_finetune.h).
#include "suites/ibedl/evidential_finetune.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <stdexcept>
#include <string>

#include "harness/random.h"
#include "suites/lm/lora.h"

namespace cb::ibedl {

namespace ls = cb::lm_suite;
namespace ri = cb::ref::ibedl;

const char* MethodName(Method m) {
  switch (m) {
    case Method::kMap: return "map";
    case Method::kEdl: return "edl";
    case Method::kIbEdl: return "ib_edl";
  }
  return "?";
}

namespace {

// Right-padded batch of prompts [B, T] (token 0 after each prompt) and the
// row of each prompt's last token in the [B*T, V] logits.
struct Padded {
  std::vector<int> tokens;
  std::vector<size_t> last_rows;
  int batch = 0, seq = 0;
};

Padded Pad(const std::vector<std::vector<int>>& prompts, std::span<const size_t> which, int context) {
  Padded p;
  p.batch = static_cast<int>(which.size());
  for (size_t i : which) p.seq = std::max(p.seq, static_cast<int>(prompts[i].size()));
  if (p.seq < 1 || p.seq > context)
    throw std::invalid_argument("ibedl: a prompt of " + std::to_string(p.seq) + " tokens (context " +
                                std::to_string(context) + ")");
  p.tokens.assign(size_t(p.batch) * p.seq, 0);
  for (int b = 0; b < p.batch; ++b) {
    const std::vector<int>& s = prompts[which[b]];
    std::copy(s.begin(), s.end(), p.tokens.begin() + size_t(b) * p.seq);
    p.last_rows.push_back(size_t(b) * p.seq + s.size() - 1);
  }
  return p;
}

double HfCosineLr(const FineTuneOptions& o, int step) {
  if (step < o.warmup) return o.lr * double(step) / std::max(1, o.warmup);
  const double progress = double(step - o.warmup) / std::max(1, o.steps - o.warmup);
  return o.lr * 0.5 * (1.0 + std::cos(std::numbers::pi * progress));
}

}  // namespace

ls::CpuTransformer FineTune(const ls::CpuTransformer& base, const TokenizedSplit& train,
                            const FineTuneOptions& o, FineTuneReport* report) {
  const int N = static_cast<int>(train.prompts.size()), K = train.k;
  if (o.steps < 1 || o.batch < 1 || o.batch > N || o.rank < 1 || o.draws < 1 || !(o.lr > 0) || K < 2 ||
      int(train.target_ids.size()) != K || int(train.labels.size()) != N)
    throw std::invalid_argument("ibedl fine-tune: steps, batch (<= items), rank, draws >= 1, lr > 0, K >= 2");
  const int V = base.config().vocab_size;
  ls::CpuTransformer model = base;
  ls::LoraSpec spec{.rank = o.rank, .alpha = o.lora_alpha, .targets = {"q_proj", "v_proj"}};
  if (!base.config().tie_word_embeddings) spec.targets.push_back("lm_head");
  ls::LoraAdapters lora(model, spec, o.seed);
  const size_t P = lora.num_params();
  std::vector<float> grad(model.num_params()), lg(P), m(P, 0.0f), v(P, 0.0f);
  const int per_epoch = (N + o.batch - 1) / o.batch;
  const double epochs = std::ceil(double(o.steps) / per_epoch);
  std::vector<size_t> order(N);
  int epoch = -1;
  FineTuneReport rep;
  rep.lora_params = P;
  rep.targets = spec.targets;
  for (int step = 0; step < o.steps; ++step) {
    if (step / per_epoch != epoch) {  // a new epoch: reshuffle
      epoch = step / per_epoch;
      std::iota(order.begin(), order.end(), size_t{0});
      cb::harness::Rng rng(o.seed, 1000 + uint64_t(epoch));
      rng.Shuffle(std::span<size_t>(order));
    }
    const int start = (step % per_epoch) * o.batch;
    std::vector<size_t> which;
    for (int i = 0; i < o.batch; ++i) which.push_back(order[(start + i) % N]);
    const Padded pb = Pad(train.prompts, which, base.config().max_position_embeddings);
    const int B = pb.batch;
    std::vector<int> labels;
    for (size_t i : which) labels.push_back(train.labels[i]);
    std::vector<double> eps;
    if (o.method == Method::kIbEdl) {
      cb::harness::Rng rng(o.seed, (uint64_t{1} << 32) + uint64_t(step));
      eps.resize(size_t(B) * o.draws * K);
      for (double& e : eps) e = rng.Normal();
    }
    const double reg = o.method == Method::kEdl ? ri::RegWeight(epoch, epochs, 0.1, 1.0) : 0.0;
    auto loss_fn = [&](std::span<const float> logits, std::span<float> dlogits) {
      std::vector<double> mu(size_t(B) * K), tail(size_t(B) * K), dmu(mu.size()), dtail(mu.size(), 0.0);
      for (int b = 0; b < B; ++b) {
        const float* z = &logits[pb.last_rows[b] * V];
        for (int k = 0; k < K; ++k) {
          mu[size_t(b) * K + k] = z[train.target_ids[k]];
          tail[size_t(b) * K + k] = z[V - K + k];
        }
      }
      double loss = 0;
      if (o.method == Method::kMap) {
        loss = ri::MapLoss(B, K, mu, labels, dmu.data());
      } else {
        const ri::LossConfig c{.data = ri::DataTerm::kSs, .vib = o.method == Method::kIbEdl,
                               .draws = o.draws, .beta = o.beta, .reg_weight = reg};
        loss = ri::EvidentialLoss(c, B, K, mu, tail, labels, eps, dmu.data(), dtail.data());
      }
      for (int b = 0; b < B; ++b) {
        float* d = &dlogits[pb.last_rows[b] * V];
        for (int k = 0; k < K; ++k) {
          d[train.target_ids[k]] += static_cast<float>(dmu[size_t(b) * K + k]);
          d[V - K + k] += static_cast<float>(dtail[size_t(b) * K + k]);
        }
      }
      return loss;
    };
    const double loss = model.LogitLossAndGrad(pb.tokens, pb.batch, pb.seq, loss_fn, grad);
    if (step == 0) rep.first_loss = loss;
    rep.last_loss = loss;
    lora.Project(grad, lg);
    double norm2 = 0;
    for (float g : lg) norm2 += double(g) * g;
    const double norm = std::sqrt(norm2);
    const float clip = o.clip > 0 && norm > o.clip ? static_cast<float>(o.clip / (norm + 1e-6)) : 1.0f;
    // torch.optim.AdamW: decoupled decay, then the Adam step with bias correction.
    const double lr = HfCosineLr(o, step);
    const int t = step + 1;
    const double c1 = 1 - std::pow(0.9, t), c2 = 1 - std::pow(0.999, t);
    std::vector<float>& p = lora.params();
    for (size_t i = 0; i < P; ++i) {
      const float g = lg[i] * clip;
      p[i] -= static_cast<float>(lr * o.weight_decay) * p[i];
      m[i] = 0.9f * m[i] + 0.1f * g;
      v[i] = 0.999f * v[i] + 0.001f * g * g;
      p[i] -= static_cast<float>(lr * (m[i] / c1) / (std::sqrt(v[i] / c2) + 1e-8));
    }
    lora.Apply(model);
  }
  rep.steps = o.steps;
  if (report) *report = rep;
  return model;
}

std::vector<std::vector<double>> LastLogits(const ls::CpuTransformer& model,
                                            const std::vector<std::vector<int>>& prompts, int batch) {
  const int V = model.config().vocab_size;
  std::vector<std::vector<double>> out;
  for (size_t s = 0; s < prompts.size(); s += batch) {
    std::vector<size_t> which;
    for (size_t i = s; i < std::min(prompts.size(), s + batch); ++i) which.push_back(i);
    const Padded pb = Pad(prompts, which, model.config().max_position_embeddings);
    const std::vector<float> logits = model.ForwardBatch(pb.tokens, pb.batch, pb.seq);
    for (size_t r : pb.last_rows) out.emplace_back(logits.begin() + r * V, logits.begin() + (r + 1) * V);
  }
  return out;
}

std::vector<ri::Prediction> Predict(const ls::CpuTransformer& model, const TokenizedSplit& split, Method method,
                                    int draws, uint64_t eval_seed, int batch) {
  const std::vector<std::vector<double>> z = LastLogits(model, split.prompts, batch);
  std::vector<ri::Prediction> out;
  for (size_t i = 0; i < z.size(); ++i) {
    const ri::HeadInputs h = ri::ReadHead(z[i], split.target_ids);
    if (method == Method::kMap) {
      out.push_back(ri::PredictMap(h.mu));
      continue;
    }
    std::vector<double> eps;
    if (method == Method::kIbEdl) {
      cb::harness::Rng rng(eval_seed, i);
      eps.resize(size_t(draws) * split.k);
      for (double& e : eps) e = rng.Normal();
    }
    out.push_back(ri::PredictEvidential(h.mu, h.tail, eps, draws, method == Method::kIbEdl));
  }
  return out;
}

}  // namespace cb::ibedl
