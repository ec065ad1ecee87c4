// File: generators/regions_test.cpp
// The regions generator: determinism and seed sensitivity, structure
// invariants (lesions inside their organ, organ levels distinct, boxes on the
// grid), one question per task, bad parameters.
#include <gtest/gtest.h>

#include "generators/regions.h"

namespace cb::gen::regions {
namespace {

TEST(Regions, DeterministicAndSeeded) {
  const Params p{.seed = 7, .count = 8, .size = 128};
  EXPECT_EQ(ContentHash(Generate(p)), ContentHash(Generate(p)));
  Params q = p;
  q.seed = 8;
  EXPECT_NE(ContentHash(Generate(p)), ContentHash(Generate(q)));
}

TEST(Regions, StructuresAndQuestions) {
  const auto scans = Generate({.seed = 1, .count = 12, .size = 160});
  for (const Scan& s : scans) {
    ASSERT_EQ(s.questions.size(), AllTasks().size());
    ASSERT_GE(s.organs.size(), 2u);
    ASSERT_GE(s.lesions.size(), 1u);
    for (const auto& l : s.lesions) {
      ASSERT_GE(l.organ, 0);
      const auto& o = s.organs[static_cast<size_t>(l.organ)].pixel_box;
      EXPECT_GT(l.pixel_box[0], o[0]);
      EXPECT_GT(l.pixel_box[1], o[1]);
      EXPECT_LT(l.pixel_box[2], o[2]);
      EXPECT_LT(l.pixel_box[3], o[3]);
    }
    for (const auto* list : {&s.organs, &s.lesions})
      for (const auto& st : *list)
        for (int k = 0; k < 4; ++k) {
          EXPECT_GE(st.grid_box[k], 0);
          EXPECT_LE(st.grid_box[k], 999);
        }
    EXPECT_NE(s.questions[0].gt.find("<ref>"), std::string::npos);
  }
  EXPECT_EQ(scans[2].modality, Modality::kXray);
}

TEST(Regions, LegendLevelsAreSeparated) {
  for (Modality m : AllModalities()) {
    const Legend& lg = LegendFor(m);
    std::vector<int> levels = {lg.background, lg.body, lg.lesion};
    for (const auto& [n, v] : lg.organs) levels.push_back(v);
    for (size_t i = 0; i < levels.size(); ++i)
      for (size_t j = i + 1; j < levels.size(); ++j) EXPECT_GE(std::abs(levels[i] - levels[j]), 25) << ModalityName(m);
  }
}

TEST(Regions, BadParams) {
  EXPECT_THROW(MakeScan({.size = 50}, 0), std::invalid_argument);
  EXPECT_THROW(Generate({.count = -1}), std::invalid_argument);
}

}  // namespace
}  // namespace cb::gen::regions
