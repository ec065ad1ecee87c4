// File: generators/docvqa_test.cpp
// The document/chart generator: determinism, the golden content hash, the
// oracle reading every answer back from the pixels, letter balance, and
// refusal of bad parameters.
#include "generators/docvqa.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "fixtures/golden.h"

namespace cb::gen::docvqa {
namespace {

TEST(DocVqa, DeterministicAndSeedDependent) {
  const Generator a(Params{.seed = 7, .count = 3}), b(Params{.seed = 7, .count = 3}), c(Params{.seed = 8, .count = 3});
  EXPECT_EQ(ContentHash(a.All()), ContentHash(b.All()));
  EXPECT_NE(ContentHash(a.All()), ContentHash(c.All()));
  // An item does not depend on how many others are generated.
  EXPECT_EQ(ContentHash({a.Make(Kind::kLineChart, 2)}),
            ContentHash({Generator(Params{.seed = 7, .count = 50}).Make(Kind::kLineChart, 2)}));
}

TEST(DocVqa, QuestionsWithoutPixelsAreTheSame) {
  const Generator g(Params{.seed = 9, .count = 4});
  for (int k = 0; k < kNumKinds; ++k)
    for (int i = 0; i < 4; ++i) {
      const Item a = g.Make(static_cast<Kind>(k), i), b = g.Make(static_cast<Kind>(k), i, /*render=*/false);
      EXPECT_TRUE(b.image.rgb.empty());
      ASSERT_EQ(a.questions.size(), b.questions.size());
      for (size_t q = 0; q < a.questions.size(); ++q) {
        EXPECT_EQ(a.questions[q].text, b.questions[q].text);
        EXPECT_EQ(a.questions[q].answer, b.questions[q].answer);
      }
    }
}

TEST(DocVqa, GoldenHash) {
  const Generator g(Params{.seed = 1, .count = 4});
  cb::testing::ExpectMatchesGolden("generators/docvqa_golden.txt", {{"seed1_count4", ContentHash(g.All())}});
}

TEST(DocVqa, OracleReadsEveryAnswerFromThePixels) {
  const Generator g(Params{.seed = 3, .count = 12});
  const Oracle o(g);
  int asked = 0;
  for (const auto& item : g.All()) {
    for (const auto& q : item.questions) {
      ++asked;
      EXPECT_EQ(o.Answer(item.image, q), q.answer) << q.id << " " << q.text;
    }
    int inexact = 0;
    if (item.kind == Kind::kDocument) {
      o.ReadRow(item.image, kDocLeft, kDocTop + 2 * kDocPitch, 40, &inexact);
      EXPECT_EQ(inexact, 0) << item.id;
    }
  }
  EXPECT_EQ(asked, 3 * 12 * 2);
}

TEST(DocVqa, TheOracleIsNotFooledByAnotherImage) {
  const Generator g(Params{.seed = 3, .count = 8});
  const Oracle o(g);
  int same = 0, n = 0;
  for (int i = 0; i < 8; ++i) {
    const Item a = g.Make(Kind::kBarChart, i), b = g.Make(Kind::kBarChart, (i + 1) % 8);
    ++n;
    same += o.Answer(b.image, a.questions[0]) == a.questions[0].answer;
  }
  EXPECT_LT(same, n / 2);
}

TEST(DocVqa, LettersAreUniformInBlocksOfFour) {
  const Generator g(Params{.seed = 5, .count = 40});
  std::map<std::string, std::array<int, 4>> counts;
  for (const auto& item : g.All())
    for (const auto& q : item.questions)
      if (q.task == "mcq") ++counts[q.kind][static_cast<size_t>(q.answer[0] - 'A')];
  ASSERT_EQ(counts.size(), 2u);
  for (const auto& [kind, c] : counts)
    for (int k : c) EXPECT_EQ(k, 10) << kind;
}

TEST(DocVqa, RefusesBadParams) {
  EXPECT_THROW(Generator(Params{.seed = 1, .count = 0}), std::invalid_argument);
}

}  // namespace
}  // namespace cb::gen::docvqa
