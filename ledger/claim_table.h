// File: ledger/claim_table.h
// -----------------------------------------------------------------------------
// How every table of verdicts (the run's claims table, the Markdown and HTML
// reports) orders claims: the papers' own claims first, paper by paper, and
// the prerequisites (checks of our own code, harness ClaimKind) folded into
// one line per suite: "radar prerequisites: 5/6 hold; failed: radar.R6".
//
// A prerequisite that fails (NOT_REPRODUCED, or a claim that errored) marks
// every paper claim of its suite: the paper claims rest on the code it
// checks. A claim recorded before ledger schema 7 has no kind and is listed
// as a paper claim, as it was shown then.
#ifndef CB_LEDGER_CLAIM_TABLE_H_
#define CB_LEDGER_CLAIM_TABLE_H_

#include <map>
#include <string>
#include <vector>

#include "ledger/ledger.h"

namespace cb::ledger {

struct PrerequisiteLine {
  std::string suite;
  int total = 0, hold = 0;
  std::vector<std::string> failed;      // "radar.R6 NOT_REPRODUCED"
  std::vector<std::string> unsettled;   // INCONCLUSIVE, with the id
  std::vector<std::string> unmeasured;  // UNMEASURABLE, with the id
  // "radar prerequisites: 5/6 hold; failed: radar.R6 NOT_REPRODUCED; not
  // measured here: radar.R7"
  std::string Text() const;
};

struct ClaimTable {
  std::vector<const ClaimRow*> paper;            // in paper, then claim id order
  std::vector<PrerequisiteLine> prerequisites;   // by suite
  std::map<std::string, std::string> failed_prerequisites;  // suite -> "radar.R6, radar.R7"
};

// True for a claim of kind "prerequisite".
bool IsPrerequisite(const ClaimRow& c);

// REQUIRES: `rows` outlives the table.
ClaimTable SplitClaims(const std::vector<ClaimRow>& rows);

}  // namespace cb::ledger

#endif  // CB_LEDGER_CLAIM_TABLE_H_
