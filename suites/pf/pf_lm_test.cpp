// File: suites/pf/pf_lm_test.cpp
// Tests of the transformer path of the PF suite: lm_decoding.h (decoding
// from the smoke checkpoint with a KV cache, checked against a full forward
// pass of the same model) and teacher_words.h (BPE text back to teacher
// words, scored exactly as Teacher::PredictiveLogProbs scores the words).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "fixtures/paths.h"
#include "generators/corpora.h"
#include "reference/lm/bpe_tokenizer.h"
#include "reference/lm/hf_checkpoint.h"
#include "reference/pf/pf.h"
#include "harness/backend.h"
#include "suites/lm/cpu_transformer.h"
#include "suites/lm/incremental_lm.h"
#include "suites/pf/lm_decoding.h"
#include "suites/pf/teacher_words.h"

namespace cb::pf {
namespace {

namespace ref = cb::ref::pf;

std::string Smoke() { return cb::testing::FixturePath("lm/smoke"); }

class LmDecodingTest : public ::testing::Test {
 protected:
  LmDecodingTest() : ck_(cb::ref::lm::LoadCheckpoint(Smoke())), model_(ck_.config, ck_.tensors) {}
  cb::ref::lm::HfCheckpoint ck_;
  cb::lm_suite::CpuTransformer model_;

  // Decodes on `lm`'s backend and checks every recorded NLL (and greedy's
  // choice) against the CPU fast path's full forward over the decoded text.
  void ExpectDecodingMatchesAFullForwardPass(const cb::lm_suite::IncrementalLm& lm) const;
};

void LmDecodingTest::ExpectDecodingMatchesAFullForwardPass(const cb::lm_suite::IncrementalLm& lm) const {
  const std::vector<int> prompt = {3, 40, 7, 200};
  for (LmDecoder d : {LmDecoder::kGreedy, LmDecoder::kPf, LmDecoder::kSoftmax}) {
    const LmDecoded out = DecodeLm(lm, prompt, {.decoder = d, .temperature = 0.8, .seed = 11,
                                                .max_new_tokens = 20});
    ASSERT_EQ(out.tokens.size(), 24u);
    ASSERT_EQ(out.nll.size(), 20u);
    const std::vector<int> all(out.tokens.begin(), out.tokens.end());
    const std::vector<float> logits = model_.Forward(all);  // [24, V]
    const int V = ck_.config.vocab_size;
    for (int t = 0; t < 20; ++t) {
      const size_t pos = prompt.size() + t;  // predicted from row pos - 1
      std::vector<double> u(logits.begin() + (pos - 1) * V, logits.begin() + pos * V);
      const double mx = *std::max_element(u.begin(), u.end());
      double z = 0;
      for (double x : u) z += std::exp(x - mx);
      EXPECT_NEAR(out.nll[t], mx + std::log(z) - u[out.tokens[pos]], 1e-4);
      EXPECT_GT(out.entropy[t], 0);
      EXPECT_LE(out.entropy[t], std::log(double(V)) + 1e-9);
      if (d == LmDecoder::kGreedy) {
        // Exact equality would be fragile only at a near-tie of the two
        // paths' fp32 rows; the chosen token must be within 1e-4 of the max.
        EXPECT_GE(u[out.tokens[pos]], mx - 1e-4) << t;
      }
    }
  }
}

TEST_F(LmDecodingTest, KvCacheDecodingMatchesAFullForwardPass) {
  ExpectDecodingMatchesAFullForwardPass(*cb::lm_suite::MakeIncrementalLm(model_, cb::harness::Backend::kCpu));
}

// The CUDA path's decode (device prefill and decode steps) scored by the CPU
// path: the 1e-4 NLL bound covers both paths' fp32 rounding.
TEST_F(LmDecodingTest, CudaDecodingMatchesTheCpuForwardPass) {
  const auto status = cb::harness::Availability(cb::harness::Backend::kCuda);
  if (!status.ok) GTEST_SKIP() << "cuda: " << status.reason;
  ExpectDecodingMatchesAFullForwardPass(*cb::lm_suite::MakeIncrementalLm(model_, cb::harness::Backend::kCuda));
}

TEST_F(LmDecodingTest, PfWatermarkIsTheReferenceChoiceOnEachRow) {
  const std::vector<int> prompt = {9, 9, 12, 30, 31};
  const ref::WatermarkParams params{.key = 77, .context = 3};
  const LmDecoded out = DecodeLm(model_, prompt, {.decoder = LmDecoder::kPf, .watermark = ref::Watermark::kPf,
                                                  .params = params, .max_new_tokens = 12});
  const std::vector<int> all(out.tokens.begin(), out.tokens.end());
  const std::vector<float> logits = model_.Forward(all);
  const int V = ck_.config.vocab_size;
  int same = 0;
  for (size_t pos = prompt.size(); pos < out.tokens.size(); ++pos) {
    const std::vector<double> u(logits.begin() + (pos - 1) * V, logits.begin() + pos * V);
    same += ref::WatermarkedSample(ref::Watermark::kPf, params, u, 1.0, out.tokens, pos, 0) == out.tokens[pos];
  }
  // The forward pass and the KV cache differ in fp32 rounding only.
  EXPECT_EQ(same, 12);
  EXPECT_LT(ref::Detect(ref::Watermark::kPf, params, out.tokens).p_value, 0.05);
}

TEST_F(LmDecodingTest, BadInputThrows) {
  EXPECT_THROW(DecodeLm(model_, std::vector<int>{}, {}), std::invalid_argument);
  EXPECT_THROW(DecodeLm(model_, std::vector<int>{1, 384}, {}), std::invalid_argument);
  EXPECT_THROW(DecodeLm(model_, std::vector<int>{1, -1}, {}), std::invalid_argument);
  EXPECT_THROW(DecodeLm(model_, std::vector<int>(256, 1), {}), std::invalid_argument);
  EXPECT_THROW(DecodeLm(model_, std::vector<int>{1}, {.temperature = 0}), std::invalid_argument);
  EXPECT_THROW(DecodeLm(model_, std::vector<int>{1}, {.top_p = 1.5}), std::invalid_argument);
  EXPECT_THROW(DecodeLm(model_, std::vector<int>{1},
                        {.decoder = LmDecoder::kSoftmax, .watermark = ref::Watermark::kPf}),
               std::invalid_argument);
  EXPECT_THROW(DecodeLm(model_, std::vector<int>{1},
                        {.decoder = LmDecoder::kPf, .watermark = ref::Watermark::kGumbel}),
               std::invalid_argument);
  EXPECT_THROW(ParseLmDecoder("beam"), std::invalid_argument);
}

TEST_F(LmDecodingTest, StopsAtMaxPositionEmbeddings) {
  const std::vector<int> prompt(250, 5);  // max_position_embeddings = 256
  const LmDecoded out = DecodeLm(model_, prompt, {.decoder = LmDecoder::kGreedy, .max_new_tokens = 50});
  EXPECT_EQ(out.tokens.size(), 256u);
}

class TeacherWordsTest : public ::testing::Test {
 protected:
  TeacherWordsTest()
      : lexicon_(params_.vocab_size, params_.capitalized_fraction, params_.entity_tokens),
        teacher_(lexicon_, gen::MiaTeachers(params_).base),
        tok_(cb::ref::lm::BpeTokenizer::Load(Smoke())) {}
  gen::CorpusParams params_;
  gen::Lexicon lexicon_;
  gen::Teacher teacher_;
  cb::ref::lm::BpeTokenizer tok_;  // 384 tokens: words span several ids
};

TEST_F(TeacherWordsTest, ScoresTheGeneratedWordsExactly) {
  const gen::Document doc = teacher_.Sample(20, 3, 0xABC);
  const gen::Document prompt(doc.begin(), doc.begin() + 5);
  const std::vector<double> logp = teacher_.PredictiveLogProbs(doc);
  double want = 0;
  for (int t = 5; t < 20; ++t) want -= logp[t];
  // Ended by "\n": every word counts.
  const TeacherScore s = ScoreWithTeacher(teacher_, tok_, prompt, tok_.Encode(lexicon_.Render(doc) + "\n"));
  EXPECT_TRUE(s.document_end);
  EXPECT_FALSE(s.prompt_altered);
  EXPECT_EQ(s.generated_words, 15);
  EXPECT_EQ(s.scored + s.impossible, 15);
  EXPECT_EQ(s.impossible, 0);  // the teacher's own sample
  EXPECT_NEAR(s.nats, want, 1e-9 * std::abs(want));
  // Text after the "\n" is a new document: not read.
  const TeacherScore after =
      ScoreWithTeacher(teacher_, tok_, prompt, tok_.Encode(lexicon_.Render(doc) + "\nthe the"));
  EXPECT_EQ(after.generated_words, 15);
  EXPECT_NEAR(after.nats, want, 1e-9 * std::abs(want));
  // Without it the last word may be cut by the token budget: dropped.
  const TeacherScore cut = ScoreWithTeacher(teacher_, tok_, prompt, tok_.Encode(lexicon_.Render(doc)));
  EXPECT_EQ(cut.generated_words, 14);
  EXPECT_NEAR(cut.nats, want + logp[19], 1e-9 * std::abs(want));
}

TEST_F(TeacherWordsTest, CountsUnknownWordsAndStopsThere) {
  gen::Document doc = teacher_.Sample(20, 4, 0xABD);
  const gen::Document prompt(doc.begin(), doc.begin() + 5);
  const std::vector<double> logp = teacher_.PredictiveLogProbs(doc);
  double want = 0;
  for (int t = 5; t < 10; ++t) want -= logp[t];
  const gen::Document head(doc.begin(), doc.begin() + 10), tail(doc.begin() + 10, doc.end());
  // Word 10 becomes "qqzx" (not a lexicon word), and a doubled space later.
  const std::string text =
      lexicon_.Render(head) + " qqzx " + lexicon_.Render(tail) + "  " + lexicon_.Word(doc[3]) + "\n";
  const TeacherScore s = ScoreWithTeacher(teacher_, tok_, prompt, tok_.Encode(text));
  EXPECT_EQ(s.generated_words, 5 + 1 + 10 + 1 + 1);
  EXPECT_EQ(s.scored, 5);
  EXPECT_EQ(s.unknown, 1);
  EXPECT_EQ(s.after_unknown, 12);
  EXPECT_NEAR(s.nats, want, 1e-9 * std::abs(want));
  // The prompt's last word extended by the model: nothing is scored.
  const gen::Document rest(doc.begin() + 5, doc.end());
  const std::string ext = lexicon_.Render(prompt) + "s " + lexicon_.Render(rest) + "\n";
  const TeacherScore e = ScoreWithTeacher(teacher_, tok_, prompt, tok_.Encode(ext));
  EXPECT_TRUE(e.prompt_altered);
  EXPECT_EQ(e.scored, 0);
}

}  // namespace
}  // namespace cb::pf
