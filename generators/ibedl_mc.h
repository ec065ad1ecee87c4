// File: generators/ibedl_mc.h
// -----------------------------------------------------------------------------
// A synthetic multiple-choice task for IB-EDL (issue 21), on the corpora
// generator's language (generators/corpora.h), so that the substrate's trained
// transformers (fixtures/lm, trained on MakeMiaCorpus({})) read it as text of
// their own language.
//
// An item of K classes: the class c ~ U{0..K-1}; the question is a document of
// `words` words drawn from the teacher restricted to topic c (topic weights
// one-hot at c); the options are the K topics' keywords (keyword of topic z:
// the lowercase word maximising UnigramProb(z, w) / mean_z' UnigramProb(z', w),
// ties to the smaller id), listed in topic order; the answer is the letter of
// c. So the answer follows from the teacher's topic structure. The prompt:
//   "<document> Options: A <kw0> B <kw1> C <kw2> D <kw3> Answer:"
// and the model is read at the position after "Answer:" (tokens " A", ...).
//
// Label noise (the authors' LabelPerturbation, datasets/classification.py):
// floor(noise * N) items chosen by a shuffle seeded with `noise_seed` (42 in
// the authors' code) get a uniformly drawn other label. numpy's
// default_rng(42) is PCG64; ours is Philox (harness/random.h), so WHICH items
// flip differs from the authors' (their count and law are the same).
//
// Teachers: kBase is MiaTeachers(CorpusParams{}).base (the language the
// models were trained on), kOod is .ood (another topic structure and
// successor tables: the out-of-distribution split). K may differ per split
// (the K_ID != K_OOD pitfall), up to the teacher's 8 topics.
//
// Determinism: item i of split `role` draws its class from Rng(seed, (role <<
// 32) | i) and its document from Teacher::Sample(words, seed, the same
// stream); the noise from Rng(noise_seed, 0). ContentHash() covers the
// params, every prompt and label (XXH3-128).
//
// Errors: K outside [2, 8], n < 1, words < 1 or noise outside [0, 1] throw
// std::invalid_argument.
#ifndef CB_GENERATORS_IBEDL_MC_H_
#define CB_GENERATORS_IBEDL_MC_H_

#include <cstdint>
#include <string>
#include <vector>

namespace cb::gen {

inline constexpr int kIbedlMcVersion = 1;

enum class McTeacher { kBase, kOod };

struct McParams {
  McTeacher teacher = McTeacher::kBase;
  int k = 4;
  int n = 100;
  int words = 12;
  double noise = 0.0;          // fraction of flipped labels
  uint64_t seed = 1;
  uint64_t role = 1;           // split id: train, test, ood, ... use different roles
  uint64_t noise_seed = 42;
};

struct McItem {
  std::string prompt;
  int label = 0;       // what training reads (flipped for a noisy item)
  int clean_label = 0; // the teacher's class
};

struct McSplit {
  McParams params;
  std::vector<std::string> keywords;  // [K]
  std::vector<McItem> items;
  int flipped = 0;
  std::string content_hash;
};

McSplit MakeMcSplit(const McParams& params);
// The answer letters " A", " B", ... (K of them) whose last tokens are the head's target ids.
std::vector<std::string> McAnswerStrings(int k);

}  // namespace cb::gen

#endif  // CB_GENERATORS_IBEDL_MC_H_
