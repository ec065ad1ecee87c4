// File: suites/eagle/golden_check.h
// -----------------------------------------------------------------------------
// Scorer parity: runs every case of a golden file (fixtures/eagle/golden.jsonl:
// {"kind", "input", "paper"}, the outputs of EAGLE's own scorer code) through
// the paper-compatible scorers of reference/eagle and counts agreement.
#ifndef CB_SUITES_EAGLE_GOLDEN_CHECK_H_
#define CB_SUITES_EAGLE_GOLDEN_CHECK_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace cb::eagle {

struct GoldenReport {
  int cases = 0, agreed = 0;
  std::map<std::string, std::pair<int, int>> by_kind;  // kind -> (agreed, cases)
  std::vector<std::string> problems;                    // "kind input: ours X, code Y", the first few
};

// Throws std::runtime_error on a malformed line or an unknown kind.
GoldenReport CheckGolden(std::string_view jsonl);

// The golden file compiled into the binary (golden_cases.inc).
std::string_view EmbeddedGolden();

}  // namespace cb::eagle

#endif  // CB_SUITES_EAGLE_GOLDEN_CHECK_H_
