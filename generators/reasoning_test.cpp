// File: generators/reasoning_test.cpp
// Tests of the procedural reasoning tasks: determinism and golden content
// hashes, an item's independence of the counts, the families' shapes.
#include "generators/reasoning.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "fixtures/golden.h"

namespace {

namespace gr = cb::gen::reasoning;

TEST(Reasoning, DeterministicAndIndependentOfCounts) {
  const auto a = gr::Generate({.seed = 3, .arith = 20, .order = 5, .compare = 5});
  const auto b = gr::Generate({.seed = 3, .arith = 20, .order = 5, .compare = 5});
  EXPECT_EQ(gr::ContentHash(a), gr::ContentHash(b));
  EXPECT_NE(gr::ContentHash(a), gr::ContentHash(gr::Generate({.seed = 4, .arith = 20, .order = 5, .compare = 5})));
  const auto c = gr::Generate({.seed = 3, .arith = 2, .order = 7, .compare = 0});
  EXPECT_EQ(c[1].question, a[1].question);   // arith-1
  EXPECT_EQ(c[2].question, a[20].question);  // order-0
  EXPECT_EQ(a[20].id, "order-0");
  EXPECT_THROW(gr::Generate({.arith = -1}), std::invalid_argument);
  EXPECT_THROW(gr::MakeItem(1, "poetry", 0), std::invalid_argument);
}

TEST(Reasoning, FamiliesHaveTheirShapes) {
  const auto items = gr::Generate({.seed = 11, .arith = 200, .order = 100, .compare = 100});
  std::set<std::string> questions;
  std::map<std::string, int> letters, yesno;
  for (const auto& it : items) {
    questions.insert(it.question);
    EXPECT_NE(it.rationale.find("The answer is " + it.answer + "."), std::string::npos) << it.id;
    if (it.task == "arith") {
      EXPECT_EQ(it.family, "number");
      EXPECT_GE(std::stoll(it.answer), 0) << it.question;
    } else if (it.task == "order") {
      EXPECT_EQ(it.options.size(), 4u);
      ++letters[it.answer];
    } else {
      ++yesno[it.answer];
    }
  }
  EXPECT_GT(questions.size(), 390u);  // almost all distinct
  EXPECT_EQ(letters.size(), 4u);      // every letter occurs
  EXPECT_GT(yesno["yes"], 25);
  EXPECT_GT(yesno["no"], 25);
}

TEST(Golden, ReasoningHashesMatchFixture) {
  cb::testing::ExpectMatchesGolden(
      "generators/reasoning_golden.txt",
      {{"reasoning_s1_a10_o10_c10", gr::ContentHash(gr::Generate({.seed = 1, .arith = 10, .order = 10, .compare = 10}))},
       {"reasoning_s20250101_a3_o0_c2", gr::ContentHash(gr::Generate({.seed = 20250101, .arith = 3, .order = 0, .compare = 2}))}});
}

}  // namespace
