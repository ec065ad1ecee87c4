// File: suites/mtad/mtad_substrate.cpp
// Builds the corpus, the target and draft n-gram models and the prompts of
// suites/mtad/mtad_substrate.h.
#include "suites/mtad/mtad_substrate.h"

#include "generators/corpora.h"
#include "harness/hash.h"
#include "harness/timer.h"

namespace cb::mtad {

void CostlyModel::Next(std::span<const cb::ref::lm::Token> prefix, std::span<double> out) const {
  for (int r = 0; r < repeats_; ++r) {
    base_.Next(prefix, out);
    cb::harness::DoNotOptimize(out[0]);
  }
}

std::unique_ptr<Substrate> BuildSubstrate(const SubstrateParams& params) {
  auto s = std::make_unique<Substrate>();
  const cb::gen::Lexicon lexicon(kVocab, /*capitalized_fraction=*/0.0, /*entity_tokens=*/0);
  cb::gen::TeacherParams tp;
  tp.seed = params.seed;
  const cb::gen::Teacher teacher(lexicon, tp);
  std::vector<cb::ref::lm::Document> docs;
  docs.reserve(params.train_docs);
  for (int i = 0; i < params.train_docs; ++i) {
    docs.push_back(teacher.Sample(params.doc_words, params.seed, static_cast<uint64_t>(i)));
  }
  s->target_lm.Train(docs);
  s->bigram_lm.Train(docs);
  std::string prompt_bytes;
  for (int j = 0; j < params.prompts; ++j) {
    s->prompts.push_back(
        teacher.Sample(params.prompt_len, params.seed, (uint64_t{1} << 32) | uint64_t(j)));
    for (auto t : s->prompts.back()) prompt_bytes += std::to_string(t) + ",";
    prompt_bytes += ";";
  }
  s->input_hash = cb::harness::Xxh3_128(s->target_lm.ContentHash() + s->bigram_lm.ContentHash() +
                                        prompt_bytes)
                      .Hex();
  return s;
}

}  // namespace cb::mtad
