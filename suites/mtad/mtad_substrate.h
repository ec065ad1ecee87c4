// File: suites/mtad/mtad_substrate.h
// -----------------------------------------------------------------------------
// The models every MTAD claim, benchmark and test uses: a V = 64 synthetic
// corpus from the topic-HMM teacher (generators/corpora.h), a 4-gram
// Kneser-Ney target and a bigram Kneser-Ney draft trained on it, and held-out
// prompts (the first prompt_len tokens of fresh teacher documents). V = 64 is
// the brief's "V ~ 32-64", small enough to enumerate V^3 blocks exactly.
#ifndef CB_SUITES_MTAD_MTAD_SUBSTRATE_H_
#define CB_SUITES_MTAD_MTAD_SUBSTRATE_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "reference/lm/kn_lm.h"
#include "reference/mtad.h"

namespace cb::mtad {

inline constexpr int kVocab = 64;

struct SubstrateParams {
  uint64_t seed = 7;
  int train_docs = 400;
  int doc_words = 120;
  int prompts = 64;
  int prompt_len = 8;
};

struct Substrate {
  Substrate() : target_lm(4, kVocab), bigram_lm(2, kVocab), target(target_lm), bigram(bigram_lm) {}
  Substrate(const Substrate&) = delete;
  Substrate& operator=(const Substrate&) = delete;

  cb::ref::lm::KneserNeyLm target_lm;  // 4-gram
  cb::ref::lm::KneserNeyLm bigram_lm;  // 2-gram draft
  cb::ref::mtad::KnModel target;
  cb::ref::mtad::KnModel bigram;
  std::vector<cb::ref::lm::Document> prompts;
  std::string input_hash;  // the two models' content hashes and the prompts
};

// A model whose every evaluation runs the base model `repeats` times (same
// result): a stand-in for a target that costs r x the draft, as a 13B-70B
// LLM does next to its 68M-1B assistant. Used only for wall-time claims and
// benchmarks; the measured cost ratio is recorded beside each result.
class CostlyModel : public cb::ref::mtad::NextTokenModel {
 public:
  CostlyModel(const cb::ref::mtad::NextTokenModel& base, int repeats)
      : base_(base), repeats_(repeats < 1 ? 1 : repeats) {}
  int vocab_size() const override { return base_.vocab_size(); }
  double EvalCost() const override { return base_.EvalCost() * repeats_; }
  void Next(std::span<const cb::ref::lm::Token> prefix, std::span<double> out) const override;
  int repeats() const { return repeats_; }

 private:
  const cb::ref::mtad::NextTokenModel& base_;
  int repeats_;
};

// Deterministic in params (document i of the training set from Rng(seed, i),
// prompt j from Rng(seed, 1 << 32 | j)).
std::unique_ptr<Substrate> BuildSubstrate(const SubstrateParams& params = {});

}  // namespace cb::mtad

#endif  // CB_SUITES_MTAD_MTAD_SUBSTRATE_H_
