// File: generators/ibedl_mc_test.cpp
// The IB-EDL multiple-choice generator: deterministic, the answer is the
// generating topic, label noise flips exactly floor(noise N) items to another
// class, and the OOD teacher and another K give other splits.
#include "generators/ibedl_mc.h"

#include <gtest/gtest.h>

#include <set>

namespace cb::gen {
namespace {

TEST(IbedlMc, DeterministicAndWellFormed) {
  const McParams p{.k = 4, .n = 40, .words = 10};
  const McSplit a = MakeMcSplit(p), b = MakeMcSplit(p);
  EXPECT_EQ(a.content_hash, b.content_hash);
  ASSERT_EQ(a.items.size(), 40u);
  EXPECT_EQ(std::set<std::string>(a.keywords.begin(), a.keywords.end()).size(), 4u);
  std::set<int> classes;
  for (const McItem& it : a.items) {
    EXPECT_EQ(it.label, it.clean_label);
    classes.insert(it.label);
    EXPECT_NE(it.prompt.find(" Options: A " + a.keywords[0] + " B "), std::string::npos);
    EXPECT_EQ(it.prompt.substr(it.prompt.size() - 8), " Answer:");
  }
  EXPECT_EQ(classes.size(), 4u);
  McParams q = p;
  q.role = 9;
  EXPECT_NE(MakeMcSplit(q).content_hash, a.content_hash);
}

TEST(IbedlMc, NoiseFlipsFloorOfTheFraction) {
  const McSplit s = MakeMcSplit({.k = 4, .n = 50, .noise = 0.3});
  EXPECT_EQ(s.flipped, 15);
  int flipped = 0;
  for (const McItem& it : s.items) {
    flipped += it.label != it.clean_label;
    EXPECT_GE(it.label, 0);
    EXPECT_LT(it.label, 4);
  }
  EXPECT_EQ(flipped, 15);
  // The same items as the clean split, only labels change.
  const McSplit clean = MakeMcSplit({.k = 4, .n = 50});
  for (size_t i = 0; i < s.items.size(); ++i) EXPECT_EQ(s.items[i].prompt, clean.items[i].prompt);
}

TEST(IbedlMc, OodTeacherAndAnotherK) {
  const McSplit id = MakeMcSplit({.k = 4, .n = 5});
  const McSplit ood = MakeMcSplit({.teacher = McTeacher::kOod, .k = 4, .n = 5});
  const McSplit k5 = MakeMcSplit({.teacher = McTeacher::kOod, .k = 5, .n = 5});
  EXPECT_NE(id.keywords, ood.keywords);
  EXPECT_EQ(k5.keywords.size(), 5u);
  EXPECT_NE(k5.items[0].prompt.find(" E "), std::string::npos);
  EXPECT_THROW(MakeMcSplit({.k = 9}), std::invalid_argument);
  EXPECT_THROW(MakeMcSplit({.noise = 1.5}), std::invalid_argument);
}

}  // namespace
}  // namespace cb::gen
