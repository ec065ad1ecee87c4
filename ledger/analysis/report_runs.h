// File: ledger/analysis/report_runs.h
// -----------------------------------------------------------------------------
// Logical runs for the report (issue 29): `claimbench run --shard i/n` writes
// one ledger run per shard, and `ledger merge` keeps them as n runs. Shards
// of one run are the sealed runs with the same seed, profile, git commit and
// shard count n; the report shows them as ONE run: the members' results and
// claims together, which shards it holds, and which of [0, n) are missing.
//
// The shard a run ran is read from its recorded command line ("--shard i/n"
// or "--shard=i/n"): the ledger stores no other trace of it.
#ifndef CB_LEDGER_ANALYSIS_REPORT_RUNS_H_
#define CB_LEDGER_ANALYSIS_REPORT_RUNS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ledger/analysis/run_data.h"
#include "ledger/ledger.h"

namespace cb::ledger {

struct ShardTag {
  int index = 0, count = 1;  // 0 <= index < count
};

// ShardOfCommand()
//
// The `--shard i/n` of a recorded command line; nullopt when it has none or a
// malformed one (a run that was refused never reaches the ledger).
std::optional<ShardTag> ShardOfCommand(const std::string& command);

struct LogicalRun {
  RunData data;                  // every member's results and claims; data.run is the chosen run's summary
  std::vector<int64_t> run_ids;  // member runs, by shard index (one run when not sharded)
  int shard_count = 0;           // 0: not a sharded run
  std::vector<int> shards;       // shard indices held, ascending
  std::vector<int> missing;      // indices of [0, shard_count) with no run in this ledger
};

// LoadLogicalRun()
//
// The logical run that `run_id` belongs to. Among several sealed runs for one
// shard index (the same sharded run repeated), the one nearest `run_id` in id
// is taken. REQUIRES: run_id exists in `ledger` (LedgerError otherwise).
LogicalRun LoadLogicalRun(Ledger& ledger, int64_t run_id);

// "shards 0, 1 of 2 (runs 3, 4)"; "" for an unsharded run.
std::string DescribeShards(const LogicalRun& run);
// "shard 1 of 2 is missing: ..." ; "" when none is.
std::string MissingShardsWarning(const LogicalRun& run);

}  // namespace cb::ledger

#endif  // CB_LEDGER_ANALYSIS_REPORT_RUNS_H_
