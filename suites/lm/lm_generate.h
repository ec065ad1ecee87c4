// File: suites/lm/lm_generate.h
// -----------------------------------------------------------------------------
// `claimbench lm generate` (lm_generate.cpp), added to the `lm` command group
// that lm_score_command.cpp registers.
#ifndef CB_SUITES_LM_LM_GENERATE_H_
#define CB_SUITES_LM_LM_GENERATE_H_

#include <CLI/CLI.hpp>

namespace cb::lm_suite {

void AddGenerateSubcommand(CLI::App* lm, int* exit_code);

}  // namespace cb::lm_suite

#endif  // CB_SUITES_LM_LM_GENERATE_H_
