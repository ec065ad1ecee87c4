// File: ledger/claim_table.cpp
// Paper claims apart from prerequisites (see claim_table.h).
#include "ledger/claim_table.h"

#include <algorithm>

namespace cb::ledger {

bool IsPrerequisite(const ClaimRow& c) { return c.kind && *c.kind == "prerequisite"; }

std::string PrerequisiteLine::Text() const {
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  };
  std::string s = suite + " prerequisites: " + std::to_string(hold) + "/" + std::to_string(total) + " hold";
  if (!failed.empty()) s += "; failed: " + join(failed);
  if (!unsettled.empty()) s += "; inconclusive: " + join(unsettled);
  if (!unmeasured.empty()) s += "; not measured here: " + join(unmeasured);
  return s;
}

ClaimTable SplitClaims(const std::vector<ClaimRow>& rows) {
  ClaimTable t;
  std::map<std::string, PrerequisiteLine> lines;
  for (const ClaimRow& c : rows) {
    if (!IsPrerequisite(c)) {
      t.paper.push_back(&c);
      continue;
    }
    PrerequisiteLine& line = lines[c.suite];
    line.suite = c.suite;
    ++line.total;
    const bool errored = c.reason.rfind("error: ", 0) == 0;
    if (c.verdict == "REPRODUCED") {
      ++line.hold;
    } else if (c.verdict == "NOT_REPRODUCED" || errored) {
      line.failed.push_back(c.claim_id + " " + (errored ? std::string("error") : c.verdict));
      std::string& marks = t.failed_prerequisites[c.suite];
      marks += (marks.empty() ? "" : ", ") + c.claim_id;
    } else if (c.verdict == "INCONCLUSIVE") {
      line.unsettled.push_back(c.claim_id);
    } else {
      line.unmeasured.push_back(c.claim_id);
    }
  }
  std::stable_sort(t.paper.begin(), t.paper.end(), [](const ClaimRow* a, const ClaimRow* b) {
    return a->paper != b->paper ? a->paper < b->paper : a->claim_id < b->claim_id;
  });
  for (auto& [suite, line] : lines) t.prerequisites.push_back(std::move(line));
  return t;
}

}  // namespace cb::ledger
