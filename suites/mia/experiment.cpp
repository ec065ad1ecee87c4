// File: suites/mia/experiment.cpp
// The synthetic membership-inference experiment; see experiment.h.
#include "suites/mia/experiment.h"

#include <algorithm>
#include <stdexcept>

#include "reference/lm/kn_lm.h"

namespace cb::mia {
namespace {

using cb::ref::lm::Document;
using cb::ref::lm::KneserNeyLm;

// ll_t for t = 1..T-1 (the first token is never scored, brief §0).
std::vector<double> ScoredLogProbs(const KneserNeyLm& lm, const Document& doc) {
  std::vector<double> ll;
  for (size_t t = 1; t < doc.size(); ++t) ll.push_back(lm.LogProb(doc, t));
  return ll;
}

}  // namespace

const std::vector<double>& ExperimentResult::Scores(const std::string& method, bool ood) const {
  for (const auto& m : ood ? fsd_ood : methods) {
    if (m.method == method) return m.scores;
  }
  throw std::out_of_range("ExperimentResult: no method '" + method + "'");
}

ExperimentResult RunExperiment(const ExperimentParams& params) {
  const cb::gen::MiaCorpus corpus = cb::gen::MakeMiaCorpus(params.corpus);
  const int v = params.corpus.vocab_size;
  KneserNeyLm target(params.order, v);
  target.SetPruning(params.prune);
  target.Train(corpus.TrainingSet());
  KneserNeyLm reference(params.order, v);
  reference.SetPruning(params.prune);
  reference.Train(corpus.background);
  KneserNeyLm tuned = target;
  tuned.FineTune(corpus.aux_nonmembers, params.ft_weight);
  KneserNeyLm ood_tuned = target;
  ood_tuned.FineTune(corpus.ood, params.ft_weight);

  ExperimentResult out;
  out.split = corpus.SplitName();
  out.corpus_hash = corpus.content_hash;
  out.model_hash = target.ContentHash();
  std::vector<cb::ref::mia::TextStats> base, ood;
  auto add = [&](const Document& doc, int label) {
    cb::ref::mia::TextStats s;
    s.label = label;
    s.text = corpus.lexicon.Render(doc);
    for (size_t t = 1; t < doc.size(); ++t) {
      const auto m = target.NextTokenMoments(doc, t);
      s.ll.push_back(m.log_prob);
      s.mu.push_back(m.mu);
      s.sigma2.push_back(std::max(m.second - m.mu * m.mu, 0.0));
    }
    const Document lower = corpus.lexicon.LowerDoc(doc);
    s.ll_lower = ScoredLogProbs(target, lower);
    s.ll_ref = ScoredLogProbs(reference, doc);
    cb::ref::mia::TextStats o = s;
    s.ll_ft = ScoredLogProbs(tuned, doc);
    s.ll_lower_ft = ScoredLogProbs(tuned, lower);
    o.ll_ft = ScoredLogProbs(ood_tuned, doc);
    o.ll_lower_ft = ScoredLogProbs(ood_tuned, lower);
    double drop = 0;
    for (size_t i = 0; i < s.ll.size(); ++i) drop += s.ll_ft[i] - s.ll[i];  // NLL before - after
    out.nll_drop.push_back(drop / double(s.ll.size()));
    out.labels.push_back(label);
    out.positions += static_cast<int64_t>(s.ll.size());
    base.push_back(std::move(s));
    ood.push_back(std::move(o));
  };
  for (const auto& d : corpus.members) add(d, 1);
  for (const auto& d : corpus.nonmembers) add(d, 0);
  for (const double w : params.sweep_weights) {
    KneserNeyLm swept = target;
    swept.FineTune(corpus.aux_nonmembers, w);
    FsdSweepPoint point{w, {}, {}};
    for (auto& s : base) {
      cb::ref::mia::TextStats t = s;
      const Document doc = corpus.lexicon.Tokenize(s.text);
      t.ll_ft = ScoredLogProbs(swept, doc);
      point.fsd_loss.push_back(cb::ref::mia::FsdScore(t, "loss"));
      point.fsd_mink.push_back(cb::ref::mia::FsdScore(t, "mink"));
    }
    out.sweep.push_back(std::move(point));
  }
  out.methods = cb::ref::mia::ScoreAll(base);
  for (auto& m : cb::ref::mia::ScoreAll(ood)) {
    if (m.method.rfind("fsd_", 0) == 0) out.fsd_ood.push_back(std::move(m));
  }
  return out;
}

}  // namespace cb::mia
