// File: suites/mia/neural_experiment.cpp
// The membership-inference experiment on a trained transformer; see
// neural_experiment.h.
#include "suites/mia/neural_experiment.h"

#include <chrono>
#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "reference/lm/bpe_tokenizer.h"
#include "reference/lm/hf_checkpoint.h"
#include "suites/lm/cpu_transformer.h"
#include "suites/mia/neural_stats.h"

namespace cb::mia {
namespace {

using Clock = std::chrono::steady_clock;
double Since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

nlohmann::json ReadTrainerJson(const std::string& dir) {
  std::ifstream in(dir + "/trainer.json");
  if (!in) throw std::runtime_error(dir + "/trainer.json: cannot open (the model's provenance)");
  nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.contains("corpus"))
    throw std::runtime_error(dir + "/trainer.json: not JSON with a \"corpus\" entry");
  return j;
}

template <typename T>
std::vector<T> Prefix(const std::vector<T>& v, int n) {
  return n > 0 && size_t(n) < v.size() ? std::vector<T>(v.begin(), v.begin() + n) : v;
}

}  // namespace

const std::vector<double>& NeuralExperimentResult::Scores(const std::string& method, size_t i, bool ood) const {
  const bool fsd = method.rfind("fsd_", 0) == 0;
  for (const auto& m : !fsd ? methods : ood ? runs.at(i).fsd_ood : runs.at(i).fsd) {
    if (m.method == method) return m.scores;
  }
  throw std::out_of_range("NeuralExperimentResult: no method '" + method + "'");
}

NeuralExperimentResult RunNeuralExperiment(const NeuralExperimentParams& p) {
  const nlohmann::json trainer = ReadTrainerJson(p.model_dir);
  const cb::gen::MiaCorpus corpus = cb::gen::MakeMiaCorpus(p.corpus);
  const std::string trained_on = trainer["corpus"].value("content_hash", "");
  if (trained_on != corpus.content_hash)
    throw std::runtime_error(p.model_dir + "/trainer.json: the model was trained on corpus " + trained_on +
                             ", not on this experiment's " + corpus.content_hash + " (" +
                             cb::gen::CanonicalParams(p.corpus) + ")");
  const cb::ref::lm::HfCheckpoint ck = cb::ref::lm::LoadCheckpoint(p.model_dir);
  const cb::ref::lm::BpeTokenizer tok = cb::ref::lm::BpeTokenizer::Load(p.model_dir);
  const cb::lm_suite::CpuTransformer model(ck.config, ck.tensors);

  NeuralExperimentResult out;
  out.split = corpus.SplitName();
  out.corpus_hash = corpus.content_hash;
  out.model_hash = trainer.value("weights_xxh3_128", "");
  out.parameters = static_cast<int64_t>(model.num_params());

  // Evaluated texts and their ids; fine-tuning texts as the training stream had them.
  std::vector<cb::ref::mia::TextStats> base;
  std::vector<std::vector<int>> ids;
  auto add = [&](const cb::gen::Document& d, int label) {
    cb::ref::mia::TextStats s;
    s.label = label;
    s.text = corpus.lexicon.Render(d);
    ids.push_back(tok.Encode(s.text));
    out.labels.push_back(label);
    base.push_back(std::move(s));
  };
  for (const auto& d : Prefix(corpus.members, p.per_class)) add(d, 1);
  for (const auto& d : Prefix(corpus.nonmembers, p.per_class)) add(d, 0);
  auto encode_all = [&](const std::vector<cb::gen::Document>& docs) {
    std::vector<std::vector<int>> v;
    for (const auto& d : Prefix(docs, p.aux_docs)) v.push_back(tok.Encode(corpus.lexicon.Render(d) + "\n"));
    return v;
  };
  const auto aux = encode_all(corpus.aux_nonmembers), ood = encode_all(corpus.ood);

  auto t0 = Clock::now();
  {
    const NeuralScorer scorer(model, p.backend);
    for (size_t i = 0; i < base.size(); ++i) {
      TokenStats st = scorer.Score(ids[i]);
      out.positions += static_cast<int64_t>(st.ll.size());
      base[i].ll = std::move(st.ll);
      base[i].mu = std::move(st.mu);
      base[i].sigma2 = std::move(st.sigma2);
    }
  }
  out.seconds_scoring += Since(t0);
  out.methods = cb::ref::mia::ScoreAll(base);

  for (int s = 0; s < p.fsd_seeds; ++s) {
    NeuralFsdRun run;
    run.seed = p.ft.seed + static_cast<uint64_t>(s);
    FsdFineTuneOptions ft = p.ft;
    ft.seed = run.seed;
    t0 = Clock::now();
    const auto tuned = FineTuneLora(model, aux, ft, &run.in_domain);
    const auto ood_tuned = FineTuneLora(model, ood, ft, &run.ood);
    out.seconds_finetune += Since(t0);
    t0 = Clock::now();
    std::vector<cb::ref::mia::TextStats> with_ft = base, with_ood = base;
    {
      const NeuralScorer a(tuned, p.backend), b(ood_tuned, p.backend);
      for (size_t i = 0; i < base.size(); ++i) {
        with_ft[i].ll_ft = a.LogProbs(ids[i]);
        with_ood[i].ll_ft = b.LogProbs(ids[i]);
        double drop = 0;
        for (size_t t = 0; t < base[i].ll.size(); ++t) drop += with_ft[i].ll_ft[t] - base[i].ll[t];
        run.nll_drop.push_back(drop / double(base[i].ll.size()));
      }
    }
    out.seconds_scoring += Since(t0);
    for (auto& m : cb::ref::mia::ScoreAll(with_ft)) {
      if (m.method.rfind("fsd_", 0) == 0) run.fsd.push_back(std::move(m));
    }
    for (auto& m : cb::ref::mia::ScoreAll(with_ood)) {
      if (m.method.rfind("fsd_", 0) == 0) run.fsd_ood.push_back(std::move(m));
    }
    out.runs.push_back(std::move(run));
  }
  for (const FsdFineTuneOptions& options : p.sweep) {
    NeuralSweepPoint point;
    point.options = options;
    point.options.seed = p.ft.seed;
    t0 = Clock::now();
    const auto tuned = FineTuneLora(model, aux, point.options, &point.report);
    out.seconds_finetune += Since(t0);
    t0 = Clock::now();
    const NeuralScorer scorer(tuned, p.backend);
    for (size_t i = 0; i < base.size(); ++i) {
      cb::ref::mia::TextStats s = base[i];
      s.ll_ft = scorer.LogProbs(ids[i]);
      point.fsd_loss.push_back(cb::ref::mia::FsdScore(s, "loss"));
      point.fsd_mink.push_back(cb::ref::mia::FsdScore(s, "mink"));
    }
    out.seconds_scoring += Since(t0);
    out.sweep.push_back(std::move(point));
  }
  return out;
}

}  // namespace cb::mia
