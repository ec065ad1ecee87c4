// File: suites/pf/pf_command_util.h
// -----------------------------------------------------------------------------
// What `claimbench gen text` (pf_command.cpp) shares with its transformer
// path (pf_lm_command.cpp): key and watermark parsing, and the checkpoint
// variant of the command.
#ifndef CB_SUITES_PF_PF_COMMAND_UTIL_H_
#define CB_SUITES_PF_PF_COMMAND_UTIL_H_

#include <cstdint>
#include <string>

#include "reference/pf/pf.h"

namespace cb::cli {

// An unsigned 64-bit key, decimal or 0x-hex; UsageError otherwise.
uint64_t PfParseKey(const std::string& s);
// "pf", "gumbel", "kgw" (and "none" when allow_none); UsageError otherwise.
cb::ref::pf::Watermark PfParseWatermark(const std::string& s, bool allow_none);

struct GenTextCheckpointOptions {
  std::string checkpoint, prompt_ids, prompts, backend = "cpu";
  std::string decoder = "pf", watermark = "none", key = "0", out;
  int m = 4, count = 20, length = 64;
  double temperature = 1.0, top_p = 1.0;
  uint64_t seed = 1;
};

// `gen text --checkpoint DIR (--prompt-ids IDS | --prompts FILE.jsonl)`:
// writes one {"prompt", "tokens"[, "text"]} line per text (token ids of the
// checkpoint's vocabulary; "text" only when the checkpoint carries our
// tokenizer). Every check runs before anything is computed; the output is
// written atomically. Returns the exit code.
int RunGenTextCheckpoint(const GenTextCheckpointOptions& o);

}  // namespace cb::cli

#endif  // CB_SUITES_PF_PF_COMMAND_UTIL_H_
