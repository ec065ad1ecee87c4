// File: suites/medrega/golden_cases.h
// -----------------------------------------------------------------------------
// Golden scorer cases for claim medrega.S1 and the tests: inputs, the metric
// the authors' code reports (paper-compatible) or the strict definition gives,
// and the value derived by hand from xmed-lab/MedRegA at
// dfdb0dbbcca0b80b8f1c121c3c45490dc8001529 (the derivation is the case's
// `why`); `raises` marks inputs on which the code raises (paper mode).
#ifndef CB_SUITES_MEDREGA_GOLDEN_CASES_H_
#define CB_SUITES_MEDREGA_GOLDEN_CASES_H_

#include <string>
#include <vector>

#include "reference/medrega/grounding.h"
#include "reference/medrega/text_metrics.h"

namespace cb::medrega {

struct GoldenCase {
  std::string name, file;  // file: the authors' evaluator the case follows
  cb::ref::medrega::Task task;
  cb::ref::medrega::Mode mode;
  std::vector<cb::ref::medrega::GroundingItem> grounding;
  std::vector<cb::ref::medrega::TextItem> text;
  std::string metric;
  double expected = 0, tolerance = 1e-9;
  bool raises = false;
  std::string why;
};

const std::vector<GoldenCase>& GoldenCases();

// Whether our scorer gives the case's value (or raises PaperError when it
// should); `got` receives what it gave, for messages.
bool RunGoldenCase(const GoldenCase& c, std::string* got);

}  // namespace cb::medrega

#endif  // CB_SUITES_MEDREGA_GOLDEN_CASES_H_
