// File: harness/cli/common.h
// -----------------------------------------------------------------------------
// Pieces shared by the `claimbench` commands: the ledger location, run
// metadata (git, source hash, platform, build), ceilings measured once per
// platform, and the one-line error type with its exit code.
#ifndef CB_HARNESS_CLI_COMMON_H_
#define CB_HARNESS_CLI_COMMON_H_

#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "harness/model_client.h"
#include "ledger/ledger.h"

namespace cb::cli {

// Exit codes (DESIGN §8).
inline constexpr int kExitOk = 0;
inline constexpr int kExitRegression = 1;    // a regression / failed claim, where asked to gate
inline constexpr int kExitInconclusive = 2;
inline constexpr int kExitError = 3;

// A user-facing error: one line, names the bad input; exit code 3.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// --ledger, else $CLAIMBENCH_LEDGER, else ./claimbench.db.
std::string ResolveLedgerPath(const std::string& flag_value);

// Adds the --ledger option (same name and help on every command) to `cmd`.
void AddLedgerOption(CLI::App* cmd, std::string* value);

// The command line as one string (recorded with the run).
std::string JoinArgs(int argc, char** argv);

// Metadata of a new run: git commit and dirty flag of the source tree this
// binary was built from (empty when that tree is gone or not a git checkout),
// source hash, platform fingerprint, build.
cb::ledger::RunMeta CollectRunMeta(const std::string& command, const std::string& profile,
                                   uint64_t seed);

// The platform's ceilings (DESIGN §5): read from the ledger when this
// platform hash has them, else measured now (CPU always; GPU when a device
// is usable; always the same quick sizes, so stored ceilings are comparable)
// and stored. With `remeasure`, measured again even when stored, and each
// stored value replaced only by a higher one: a ceiling is the best the
// machine did, so one measurement on a loaded machine cannot lower it for
// good. Prints each ceiling that rose.
std::vector<cb::ledger::Ceiling> EnsureCeilings(cb::ledger::Ledger& ledger,
                                                const std::string& platform_hash,
                                                bool remeasure = false);

// The ledger's http_cache as a model client's response cache, so an
// interrupted evaluation resumes without asking again.
class LedgerResponseCache : public cb::harness::ResponseCache {
 public:
  explicit LedgerResponseCache(cb::ledger::Ledger& ledger) : ledger_(ledger) {}
  std::optional<std::string> Get(const std::string& key) override { return ledger_.CacheGet(key); }
  void Put(const std::string& key, std::string_view response) override {
    ledger_.CachePut(key, response);
  }

 private:
  cb::ledger::Ledger& ledger_;
};

// Removes `path` and its SQLite side files when `created` (the file did not
// exist before this command): a command that fails on bad input leaves no
// new ledger behind.
void RemoveIfCreated(const std::string& path, bool created);

// Pads or cuts `s` to `width` characters (for terminal tables).
std::string Fit(const std::string& s, size_t width);

}  // namespace cb::cli

#endif  // CB_HARNESS_CLI_COMMON_H_
