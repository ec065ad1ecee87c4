// File: generators/reasoning.h
// -----------------------------------------------------------------------------
// Procedural reasoning tasks with exact answers, for running the ReGenesis
// pipeline, its filter and its scorer end to end without a data set
// (suites/regenesis): three task families, one per answer family of
// reference/regenesis/extract.h:
//   arith    (number)  multi-step arithmetic word problems, five templates
//                      (buy and give, packs, wages, share then add, pages
//                      left); integer answers, every intermediate >= 0;
//   order    (letter)  "who is the tallest / shortest" of four people from
//                      three shuffled adjacent comparisons, options (A)-(D);
//   compare  (yesno)   "is X taller than Y" from a chain of three
//                      comparisons (transitivity needed for the far pair).
// Each item carries a worked rationale ending "The answer is X." (the
// ground-truth rationale of the GT-SFT baseline and what a correct fake
// model says).
// Determinism: item i of a family is a pure function of (kReasoningVersion,
// seed, family, i): its draws come from Rng(seed, (family + 1) << 32 | i), so
// an item does not depend on how many others are asked for.
#ifndef CB_GENERATORS_REASONING_H_
#define CB_GENERATORS_REASONING_H_

#include <cstdint>
#include <string>
#include <vector>

namespace cb::gen::reasoning {

inline constexpr const char* kReasoningName = "reasoning";
inline constexpr int kReasoningVersion = 1;

struct Item {
  std::string id;        // "<task>-<i>"
  std::string task;      // "arith" | "order" | "compare"
  std::string family;    // "number" | "letter" | "yesno"
  std::string question;  // with the options for "order"
  std::string answer;    // normalised: "42", "C", "yes"
  std::string rationale; // steps, ending "The answer is <answer>."
  std::vector<std::string> options;  // "order": the four names in option order
};

struct Params {
  uint64_t seed = 20250101;
  int arith = 10, order = 10, compare = 10;  // items per task
};

// REQUIRES: counts in [0, 100000]; throws std::invalid_argument otherwise.
std::vector<Item> Generate(const Params& p);
Item MakeItem(uint64_t seed, const std::string& task, int index);

// XXH3-128 hex over the name, version and every field of every item.
std::string ContentHash(const std::vector<Item>& items);

}  // namespace cb::gen::reasoning

#endif  // CB_GENERATORS_REASONING_H_
