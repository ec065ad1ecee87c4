// File: ledger/cli/common.h
// -----------------------------------------------------------------------------
// Pieces shared by the commands that read or write a ledger (the ledger's
// own and the methods'): the ledger location, run
// metadata (git, source hash, platform, build), ceilings measured once per
// platform, the chain-head anchor (--expect-head).
#ifndef CB_LEDGER_CLI_COMMON_H_
#define CB_LEDGER_CLI_COMMON_H_

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "harness/cli/commands.h"
#include "harness/hash.h"
#include "harness/model_client.h"
#include "ledger/ledger.h"

namespace cb::cli {

// --ledger, else $CLAIMBENCH_LEDGER, else ./claimbench.db.
std::string ResolveLedgerPath(const std::string& flag_value);

// Adds the --ledger option (same name and help on every command) to `cmd`.
void AddLedgerOption(CLI::App* cmd, std::string* value);

// Adds --expect-head HEX (same name and help on every command) to `cmd`.
void AddExpectHeadOption(CLI::App* cmd, std::string* value);

// Throws UsageError naming --expect-head unless `value` is empty or 32 hex
// digits. Called with the other arguments, before any ledger is opened.
void CheckExpectHead(const std::string& value);

// Ledger::Verify(expect_head); when it fails, prints the one line
// "claimbench: ledger 'PATH' does not verify: WHY" to stderr.
// Returns the report either way.
cb::ledger::VerifyReport VerifyOrSay(cb::ledger::Ledger& ledger, const std::string& expect_head);

// The command line as one string (recorded with the run): arguments joined
// by spaces, argv[0] written "claimbench", and an argument that is empty or
// holds anything but letters, digits and _ . / : = , @ % + ^ - written in
// single quotes (a ' inside as '\'') so SplitArgs() gives the arguments back.
std::string JoinArgs(int argc, char** argv);

// The arguments of a JoinArgs() string, shell-style: whitespace separates,
// '...' is literal, a backslash outside quotes escapes the next character.
// Throws UsageError on an unterminated quote.
std::vector<std::string> SplitArgs(const std::string& command);

// Metadata of a new run: git commit and dirty flag of the source tree this
// binary was built from (empty when that tree is gone or not a git checkout),
// source hash, platform fingerprint, build.
cb::ledger::RunMeta CollectRunMeta(const std::string& command, const std::string& profile,
                                   uint64_t seed);

// The platform's ceilings (DESIGN §5): read from the ledger when this
// platform hash has them and none is provisional, else measured now (CPU
// always; GPU when a device is usable; always the same quick sizes, so stored
// ceilings are comparable) under the machine-wide lock (one measurer at a
// time, harness/machine_load.h) and stored by ledger/ceiling_update.h's rule:
// a ceiling is the best the machine did while quiet; one measured while
// other tasks were runnable is stored provisional (detail.provisional, with
// the load in detail.load) and replaced by the next quiet measurement
// (CB_CEILING_LOAD overrides the sampled verdict, CeilingLoadOverride()). With
// `remeasure`, measured again even when stored. Prints each ceiling that
// changed. Returns what is stored without measuring when SIGINT/SIGTERM
// arrived while waiting for the lock (the caller checks InterruptRequested).
// CB_CEILING_LOAD: "quiet" or "busy" replaces the load verdict of a ceiling
// measurement (containers whose /proc/loadavg shows the host's load; tests),
// "" when unset. UsageError for any other value: commands that measure call
// it before they open a ledger, so a bad value changes nothing.
std::string CeilingLoadOverride();

std::vector<cb::ledger::Ceiling> EnsureCeilings(cb::ledger::Ledger& ledger,
                                                const std::string& platform_hash,
                                                bool remeasure = false);

// The ledger's http_cache as a model client's response cache, so an
// interrupted evaluation resumes without asking again. It remembers every
// answer it hands out or stores, so the run can record which answers its
// scores rest on (AnswersRow).
class LedgerResponseCache : public cb::harness::ResponseCache {
 public:
  explicit LedgerResponseCache(cb::ledger::Ledger& ledger) : ledger_(ledger) {}
  std::optional<std::string> Get(const std::string& key) override;
  void Put(const std::string& key, std::string_view response) override;
  // Answers stored through this cache (what an interrupted run kept).
  int64_t stored() const { return stored_; }

  // The answers used, as one exact result row for the run: case
  // "endpoint_answers", metric "answers_used" (how many), output_hash the
  // XXH3-128 of each key and the XXH3-128 of its answer, in key order. Being
  // one of the run's rows, it puts the answers under the run's run_hash: a
  // run that read an answer changed since (even one re-hashed in the cache)
  // differs from it in this row, and `reproduce` / the gate say CHANGED.
  cb::harness::Result AnswersRow(const std::string& suite, const std::string& input_hash) const;

 private:
  cb::ledger::Ledger& ledger_;
  int64_t stored_ = 0;
  std::map<std::string, cb::harness::Hash128> used_;  // key -> hash of the answer
};

// Removes `path` and its SQLite side files when `created` (the file did not
// exist before this command): a command that fails on bad input leaves no
// new ledger behind.
void RemoveIfCreated(const std::string& path, bool created);

}  // namespace cb::cli

#endif  // CB_LEDGER_CLI_COMMON_H_
