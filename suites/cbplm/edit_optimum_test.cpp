// File: suites/cbplm/edit_optimum_test.cpp
// -----------------------------------------------------------------------------
// reference/protparam/edit_optimum.h against brute force: every sequence
// within k substitutions of short fresh random sequences (cysteine-rich ones
// too, for the oxidized extinction coefficient's pairs), both directions,
// every concept it solves; plus hand-worked cases and its errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>

#include "fixtures/fresh_seed.h"
#include "harness/random.h"
#include "reference/protparam/edit_optimum.h"
#include "reference/protparam/protparam.h"
#include "reference/protparam/tables.h"

namespace cb::ref::protparam {
namespace {

double Concept(const std::string& s, const std::string& name) {
  const auto& names = ConceptNames();
  return ComputeConcepts(s).value[std::find(names.begin(), names.end(), name) - names.begin()];
}

// The largest (raise) or smallest (lower) concept value over every sequence
// within `k` substitutions of `s`, minus the concept of `s`.
double BruteForceDelta(const std::string& s, const std::string& name, int k, EditDirection dir) {
  const double base = Concept(s, name);
  double best = base;
  std::string t = s;
  std::function<void(size_t, int)> walk = [&](size_t from, int left) {
    const double v = Concept(t, name);
    best = dir == EditDirection::kRaise ? std::max(best, v) : std::min(best, v);
    if (left == 0) return;
    for (size_t i = from; i < t.size(); ++i) {
      const char keep = t[i];
      for (int b = 0; b < kNumStandard; ++b) {
        if (kStandardResidues[b] == keep) continue;
        t[i] = kStandardResidues[b];
        walk(i + 1, left - 1);
      }
      t[i] = keep;
    }
  };
  walk(0, k);
  return best - base;
}

TEST(EditOptimum, EqualsBruteForceOnFreshShortSequences) {
  CB_FRESH_SEED(seed);
  harness::Rng rng(seed, 0);
  const char* concepts[] = {"gravy", "avg_hydrophilicity", "avg_surface_accessibility", "aromaticity",
                            "molar_extinction_coefficient_reduced", "molar_extinction_coefficient_oxidized"};
  for (int t = 0; t < 12; ++t) {
    const int n = static_cast<int>(rng.UniformInt(1, 5));
    std::string s;
    for (int i = 0; i < n; ++i) {
      // Every third sequence half cysteines, so pairs form and break.
      s += (t % 3 == 0 && rng.Uniform() < 0.5) ? 'C' : kStandardResidues[rng.UniformInt(0, kNumStandard - 1)];
    }
    for (int k = 0; k <= 2; ++k) {
      for (const char* name : concepts) {
        for (EditDirection dir : {EditDirection::kRaise, EditDirection::kLower}) {
          SCOPED_TRACE(s + " " + name + " k=" + std::to_string(k) + (dir == EditDirection::kRaise ? " raise" : " lower"));
          const EditOptimum opt = OptimalEdit(s, name, k, dir);
          EXPECT_NEAR(opt.delta, BruteForceDelta(s, name, k, dir), 1e-9);
          EXPECT_LE(opt.changed, k);
          EXPECT_EQ(opt.edited.size(), s.size());
        }
      }
    }
  }
}

TEST(EditOptimum, HandWorkedCases) {
  // GRAVY of "GGGG" raised by 2 edits: two G (-0.4) -> I (4.5): +9.8 / 4.
  const EditOptimum g = OptimalEdit("GGGG", "gravy", 2, EditDirection::kRaise);
  EXPECT_EQ(g.edited, "IIGG");
  EXPECT_NEAR(g.delta, 9.8 / 4, 1e-12);
  // Nothing left to gain: an all-W sequence's extinction cannot rise.
  const EditOptimum w = OptimalEdit("WW", "molar_extinction_coefficient_reduced", 3, EditDirection::kRaise);
  EXPECT_EQ(w.changed, 0);
  EXPECT_EQ(w.delta, 0.0);
  // Oxidized "CCA", one edit up: A -> W (+5500) keeps the cystine; C -> W
  // would lose it (+5375).
  const EditOptimum ox = OptimalEdit("CCA", "molar_extinction_coefficient_oxidized", 1, EditDirection::kRaise);
  EXPECT_EQ(ox.edited, "CCW");
  EXPECT_EQ(ox.delta, 5500.0);
  // Lowering it by one: break the pair (-125).
  EXPECT_EQ(OptimalEdit("CCA", "molar_extinction_coefficient_oxidized", 1, EditDirection::kLower).delta, -125.0);
}

TEST(EditOptimum, RefusesWhatItCannotSolve) {
  EXPECT_FALSE(HasExactEditOptimum("isoelectric_point"));
  EXPECT_THROW(OptimalEdit("MKV", "instability_index", 1, EditDirection::kRaise), std::invalid_argument);
  EXPECT_THROW(OptimalEdit("MKX", "gravy", 1, EditDirection::kRaise), std::invalid_argument);
  EXPECT_THROW(OptimalEdit("", "gravy", 1, EditDirection::kRaise), std::invalid_argument);
  EXPECT_THROW(OptimalEdit("MKV", "gravy", -1, EditDirection::kRaise), std::invalid_argument);
}

}  // namespace
}  // namespace cb::ref::protparam
