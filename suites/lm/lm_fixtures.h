// File: suites/lm/lm_fixtures.h
// -----------------------------------------------------------------------------
// Where the `claimbench` binary finds the substrate's shipped models at run
// time (fixtures/lm: draft/, target/, oracle/): $CLAIMBENCH_LM_FIXTURES when
// set, else $CB_FIXTURES_DIR/lm when that is set (a relocated test binary),
// else the first <ancestor>/fixtures/lm that holds draft/config.json,
// walking up from the running binary's folder (an in-tree build:
// build/<preset>/claimbench -> fixtures/lm). Claims that need a model report
// UNMEASURABLE with MissingLmFixtures()'s reason when neither exists.
#ifndef CB_SUITES_LM_LM_FIXTURES_H_
#define CB_SUITES_LM_LM_FIXTURES_H_

#include <string>

namespace cb::lm_suite {

inline constexpr char kLmFixturesEnv[] = "CLAIMBENCH_LM_FIXTURES";

// The folder, or "" when none was found.
std::string LmFixturesDir();
// The reason a claim gives when LmFixturesDir() is empty.
std::string MissingLmFixtures();

}  // namespace cb::lm_suite

#endif  // CB_SUITES_LM_LM_FIXTURES_H_
