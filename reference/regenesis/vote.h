// File: reference/regenesis/vote.h
// -----------------------------------------------------------------------------
// What ReGenesis does with sampled reasoning paths (brief §8(a) step 5):
//   - de-duplication: paths equal after lower-casing ASCII and collapsing
//     runs of whitespace are one path; the first copy is kept;
//   - the exact-match filter: keep a path whose extracted answer equals the
//     normalised ground truth (extract.h);
//   - self-consistency: with no ground truth, keep the paths whose answer is
//     the majority answer. Paths without an answer do not vote. Ties go to
//     the answer that occurs first in sample order (deterministic, and what
//     Python's Counter.most_common(1) does).
#ifndef CB_REFERENCE_REGENESIS_VOTE_H_
#define CB_REFERENCE_REGENESIS_VOTE_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reference/regenesis/extract.h"

namespace cb::ref::regenesis {

struct Vote {
  std::optional<std::string> answer;  // nullopt when no path has one
  int count = 0, voters = 0;          // votes for it, paths with an answer
};
Vote MajorityVote(const std::vector<std::optional<std::string>>& answers);

// The dedup key of a path.
std::string PathKey(std::string_view path);
// Indices of the paths kept, in order.
std::vector<size_t> Deduplicate(const std::vector<std::string>& paths);

struct FilterResult {
  std::vector<size_t> kept;             // indices into the paths, in order
  int duplicates = 0, no_answer = 0, wrong = 0;
  std::optional<std::string> target;    // the gold or majority answer matched
  bool by_majority = false;             // no gold: self-consistency
};
// De-duplicates, extracts each path's answer, keeps those equal to `gold`
// (normalised in `f`; a gold with no normal form keeps nothing), or to the
// majority of the de-duplicated paths' answers when `gold` is nullopt.
FilterResult FilterPaths(const std::vector<std::string>& paths, const std::optional<std::string>& gold, Family f,
                         Rule rule = Rule::kStandard);

}  // namespace cb::ref::regenesis

#endif  // CB_REFERENCE_REGENESIS_VOTE_H_
