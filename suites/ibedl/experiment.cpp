// File: suites/ibedl/experiment.cpp
// MAP / EDL / IB-EDL fine-tunes over seeds and noise levels, scored (experiment.h).
#include "suites/ibedl/experiment.h"

#include <chrono>
#include <stdexcept>

#include "generators/ibedl_mc.h"
#include "harness/hash.h"
#include "reference/lm/bpe_tokenizer.h"
#include "reference/lm/hf_checkpoint.h"

namespace cb::ibedl {

namespace ri = cb::ref::ibedl;
namespace ls = cb::lm_suite;

std::vector<const RunResult*> ExperimentResult::Runs(Method m, double noise) const {
  std::vector<const RunResult*> out;
  for (const RunResult& r : runs)
    if (r.method == m && r.noise == noise) out.push_back(&r);
  return out;
}

SplitMetrics ScoreSplit(const std::vector<ri::Prediction>& preds, const std::vector<int>& labels, int k,
                        bool evidential) {
  std::vector<double> probs, logits;
  SplitMetrics s;
  for (const ri::Prediction& p : preds) {
    probs.insert(probs.end(), p.probs.begin(), p.probs.end());
    logits.insert(logits.end(), p.logits.begin(), p.logits.end());
    s.mean_s += p.strength / preds.size();
    s.mean_u += p.uncertainty / preds.size();
  }
  s.acc = ri::Accuracy(probs, k, labels);
  s.ece = ri::EceFromLogits(logits, k, labels);  // what the authors' ClassificationMetric calls
  s.nll = ri::Nll(logits, k, labels);
  s.brier = ri::Brier(probs, k, labels);
  if (!evidential) s.mean_s = s.mean_u = 0;
  return s;
}

namespace {

TokenizedSplit Tokenize(const cb::gen::McSplit& s, const cb::ref::lm::BpeTokenizer& tok) {
  TokenizedSplit t;
  t.k = s.params.k;
  for (const std::string& a : cb::gen::McAnswerStrings(t.k)) t.target_ids.push_back(tok.Encode(a).back());
  for (const auto& it : s.items) {
    t.prompts.push_back(tok.Encode(it.prompt));
    t.labels.push_back(it.label);
    t.clean_labels.push_back(it.clean_label);
  }
  return t;
}

std::pair<std::vector<double>, std::vector<double>> LogitsAndU(const std::vector<ri::Prediction>& preds) {
  std::vector<double> z, u;
  for (const auto& p : preds) {
    z.insert(z.end(), p.logits.begin(), p.logits.end());
    u.push_back(p.uncertainty);
  }
  return {z, u};
}

}  // namespace

ExperimentResult RunExperiment(const ExperimentParams& p,
                               const std::function<void(int, int, const RunResult&)>& progress) {
  const auto t0 = std::chrono::steady_clock::now();
  const cb::ref::lm::HfCheckpoint ck = cb::ref::lm::LoadCheckpoint(p.model_dir);
  const cb::ref::lm::BpeTokenizer tok = cb::ref::lm::BpeTokenizer::Load(p.model_dir);
  const ls::CpuTransformer base(ck.config, ck.tensors);
  ExperimentResult res;
  res.parameters = static_cast<int64_t>(base.num_params());
  res.model_hash = cb::harness::Xxh3_128(std::string_view(reinterpret_cast<const char*>(base.params().data()),
                                                          base.params().size() * sizeof(float)))
                       .Hex();
  using cb::gen::McParams;
  using cb::gen::McTeacher;
  const auto test = cb::gen::MakeMcSplit(McParams{.teacher = McTeacher::kBase, .k = p.k, .n = p.n_test,
                                                  .words = p.words, .seed = p.data_seed, .role = 2});
  const auto ood = cb::gen::MakeMcSplit(McParams{.teacher = McTeacher::kOod, .k = p.k, .n = p.n_ood,
                                                 .words = p.words, .seed = p.data_seed, .role = 3});
  const auto ood_k = cb::gen::MakeMcSplit(McParams{.teacher = McTeacher::kOod, .k = p.k + 1, .n = p.n_ood,
                                                   .words = p.words, .seed = p.data_seed, .role = 4});
  const TokenizedSplit test_t = Tokenize(test, tok), ood_t = Tokenize(ood, tok), ood_k_t = Tokenize(ood_k, tok);
  res.target_ids = test_t.target_ids;
  std::string hashes = test.content_hash + ood.content_hash + ood_k.content_hash;

  int done = 0;
  const int total = int(p.noises.size()) * p.seeds * 3 + int(p.beta_sweep.size());
  auto one = [&](Method m, double noise, double beta, int s, const TokenizedSplit& train, bool with_ood) {
    const auto r0 = std::chrono::steady_clock::now();
    FineTuneOptions o = p.ft;
    o.method = m;
    o.beta = beta;
    o.seed = p.base_seed + uint64_t(s);
    FineTuneReport rep;
    const ls::CpuTransformer tuned = FineTune(base, train, o, &rep);
    res.lora_params = rep.lora_params;
    res.lora_targets = rep.targets;
    RunResult r;
    r.method = m;
    r.noise = noise;
    r.beta = m == Method::kIbEdl ? beta : 0.0;
    r.seed_index = s;
    r.first_loss = rep.first_loss;
    r.last_loss = rep.last_loss;
    const bool ev = m != Method::kMap;
    const uint64_t eval_seed = o.seed * 7919 + 17;
    const auto pt = Predict(tuned, test_t, m, o.draws, eval_seed);
    r.test = ScoreSplit(pt, test_t.clean_labels, p.k, ev);
    if (with_ood) {
      const auto [zi, ui] = LogitsAndU(pt);
      const auto po = Predict(tuned, ood_t, m, o.draws, eval_seed + 1);
      const auto pk = Predict(tuned, ood_k_t, m, o.draws, eval_seed + 2);
      const auto [zo, uo] = LogitsAndU(po);
      const auto [zk, uk] = LogitsAndU(pk);
      const std::vector<double> none;
      r.ood = ri::Ood(zi, p.k, ev ? ui : none, zo, p.k, ev ? uo : none);
      r.ood_k = ri::Ood(zi, p.k, ev ? ui : none, zk, p.k + 1, ev ? uk : none);
      r.has_ood = true;
    }
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - r0).count();
    if (progress) progress(++done, total, r);
    return r;
  };

  for (double noise : p.noises) {
    const auto train = cb::gen::MakeMcSplit(McParams{.teacher = McTeacher::kBase, .k = p.k, .n = p.n_train,
                                                     .words = p.words, .noise = noise, .seed = p.data_seed,
                                                     .role = 1});
    hashes += train.content_hash;
    const TokenizedSplit train_t = Tokenize(train, tok);
    const double beta = noise > 0 ? p.beta_noisy : p.beta_clean;
    for (int s = 0; s < p.seeds; ++s)
      for (Method m : {Method::kMap, Method::kEdl, Method::kIbEdl})
        res.runs.push_back(one(m, noise, beta, s, train_t, noise == 0));
    if (noise == 0)
      for (double b : p.beta_sweep) res.sweep.push_back(one(Method::kIbEdl, 0.0, b, 0, train_t, false));
  }
  res.data_hash = cb::harness::Xxh3_128(hashes).Hex();
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

}  // namespace cb::ibedl
