// File: suites/mtad/lm_pair.cpp
// Loading a target/draft pair and running the reference decoders on it
// (suites/mtad/lm_pair.h).
#include "suites/mtad/lm_pair.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "harness/hash.h"
#include "harness/interrupt.h"
#include "harness/random.h"
#include "suites/lm/substrate_data.h"

namespace cb::mtad {

namespace ref = cb::ref::mtad;
namespace lms = cb::lm_suite;

namespace {

std::unique_ptr<lms::CpuTransformer> LoadOne(const std::string& dir, const char* role, std::string* hash,
                                             std::unique_ptr<cb::ref::lm::BpeTokenizer>* tok) {
  try {
    const cb::ref::lm::HfCheckpoint ck = cb::ref::lm::LoadCheckpoint(dir);
    auto model = std::make_unique<lms::CpuTransformer>(ck.config, ck.tensors);
    if (!model->arch().causal || model->arch().Patches())
      throw std::invalid_argument("not a causal token model");
    *tok = std::make_unique<cb::ref::lm::BpeTokenizer>(cb::ref::lm::BpeTokenizer::Load(dir));
    std::vector<double> w(model->params().begin(), model->params().end());
    *hash += cb::harness::HashDoubles(w).Hex();
    return model;
  } catch (const std::exception& e) {
    throw std::invalid_argument(std::string("mtad: ") + role + " checkpoint " + dir + ": " + e.what());
  }
}

}  // namespace

std::unique_ptr<LmPair> LoadPair(const std::string& target_dir, const std::string& draft_dir,
                                 int cache_capacity, cb::harness::Backend backend) {
  auto p = std::make_unique<LmPair>();
  p->target_dir = target_dir;
  p->draft_dir = draft_dir;
  std::string hash;
  std::unique_ptr<cb::ref::lm::BpeTokenizer> dtok;
  p->target_tf = LoadOne(target_dir, "target", &hash, &p->tokenizer);
  p->draft_tf = LoadOne(draft_dir, "draft", &hash, &dtok);
  if (p->target_tf->config().vocab_size != p->draft_tf->config().vocab_size)
    throw std::invalid_argument("mtad: target and draft vocabularies differ (" +
                                std::to_string(p->target_tf->config().vocab_size) + " vs " +
                                std::to_string(p->draft_tf->config().vocab_size) + ")");
  if (p->tokenizer->ContentHash() != dtok->ContentHash())
    throw std::invalid_argument("mtad: target and draft tokenizers differ");
  p->content_hash = cb::harness::Xxh3_128(hash + p->tokenizer->ContentHash()).Hex();
  p->target_lm = lms::MakeIncrementalLm(*p->target_tf, backend);
  p->draft_lm = lms::MakeIncrementalLm(*p->draft_tf, backend);
  p->target = std::make_unique<CachedLmModel>(*p->target_lm, cache_capacity);
  p->draft = std::make_unique<CachedLmModel>(*p->draft_lm, cache_capacity);
  return p;
}

std::vector<std::vector<int>> SubstratePrompts(const LmPair& pair, int n, int len) {
  if (n < 1 || len < 1) throw std::invalid_argument("mtad: prompts need n >= 1 and len >= 1");
  const lms::SubstrateData data = lms::MakeSubstrateData(pair.tokenizer->vocab_size(), *pair.tokenizer);
  std::vector<std::vector<int>> docs;
  for (const auto& doc : data.heldout_docs)
    docs.push_back(pair.tokenizer->Encode(lms::DocumentText(data.corpus.lexicon, doc)));
  // Round robin over the documents, window k of each at offset k * kStride.
  constexpr size_t kStride = 128;
  std::vector<std::vector<int>> out;
  for (size_t k = 0; static_cast<int>(out.size()) < n; ++k) {
    bool any = false;
    for (const auto& ids : docs) {
      if (static_cast<int>(out.size()) == n) break;
      if (k * kStride + len > ids.size()) continue;
      out.emplace_back(ids.begin() + k * kStride, ids.begin() + k * kStride + len);
      any = true;
    }
    if (!any) throw std::invalid_argument("mtad: too few held-out tokens for the prompts");
  }
  return out;
}

const char* DecoderName(Decoder d) {
  return d == Decoder::kAncestral ? "ancestral" : d == Decoder::kSpeculative ? "speculative" : "mtad";
}

DecodeRuns RunDecoder(const LmPair& pair, Decoder decoder, const std::vector<std::vector<int>>& prompts,
                      int count, int tokens, const ref::MtadParams& params, uint64_t seed, bool score) {
  DecodeRuns r;
  for (int i = 0; i < count; ++i) {
    cb::harness::ThrowIfInterrupted(std::string("in ") + DecoderName(decoder) + " decoding, after " +
                                    std::to_string(i) + " of " + std::to_string(count) + " prompts");
    const std::vector<int>& prompt = prompts[i % prompts.size()];
    pair.target->Clear();
    pair.draft->Clear();
    cb::harness::Rng rng(seed, static_cast<uint64_t>(i));
    const ref::Generation g =
        decoder == Decoder::kAncestral
            ? ref::Ancestral(*pair.target, prompt, tokens, params.filter, rng)
        : decoder == Decoder::kSpeculative
            ? ref::Speculative(*pair.target, *pair.draft, prompt, tokens,
                               {.gamma = params.gamma, .filter = params.filter}, rng)
            : ref::Mtad(*pair.target, *pair.draft, prompt, tokens, params, rng);
    if (score) r.nll.push_back(ref::MeanNll(*pair.target, prompt, g.tokens));
    r.efficiency.push_back(g.costs.TokensPerTargetCall());
    r.costs += g.costs;
    r.tokens.push_back(g.tokens);
  }
  return r;
}

}  // namespace cb::mtad
