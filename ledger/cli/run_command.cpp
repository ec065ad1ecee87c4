// File: ledger/cli/run_command.cpp
// `claimbench run`: runs the selected claims in one ledger run and prints the
// claims table (paper, claim, paper value, measured [CI], setting, verdict).
//
// The run is sealed "complete" when every claim ran, "failed" when a claim
// threw, and "interrupted" on SIGINT/SIGTERM (a second signal kills at once;
// a killed run stays unsealed and shows as incomplete in `ledger log`).
// Every result is committed as it is recorded, so nothing recorded is lost.
//
// `claimbench run --resume RUN`: continues an interrupted or killed run in a
// new run that copies the claims RUN recorded, with their results, and runs
// the rest (ledger/README.md#claimbench-run---resume).
//
// `claimbench reproduce RUN`: the same run again from its recorded command
// line, gated against the recorded one (ledger/README.md#claimbench-reproduce).
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "harness/claim.h"
#include "harness/cli/commands.h"
#include "harness/progress.h"
#include "harness/shard.h"
#include "harness/source_hash.h"
#include "ledger/analysis/gate.h"
#include "ledger/analysis/gate_format.h"
#include "ledger/analysis/run_data.h"
#include "ledger/claim_sink.h"
#include "ledger/claim_table.h"
#include "ledger/cli/common.h"
#include "ledger/resume.h"
#include "ledger/run_guard.h"
#include "ledger/writer.h"

namespace cb::cli {
namespace {

namespace h = cb::harness;

struct RunOptions {
  std::vector<std::string> suites;
  std::vector<std::string> claims;  // ids or regexes
  std::string backend = "all";
  std::string profile = "quick";
  std::string seed = "20250101";
  std::string ledger;
  bool json = false;
  bool strict = false;
  bool silent = false;  // print nothing on stdout (reproduce prints the gate's report instead)
  std::string shard;  // "i/n": only the claims whose id hashes to shard i of n
  std::string resume;  // --resume: the unfinished run to continue
};

// What --resume continues: the unfinished run and what of it is kept.
struct Continuation {
  int64_t run_id = 0;
  std::string platform_hash;
  bool killed = false;  // still "running" with its writer gone: sealed interrupted first
  cb::ledger::ResumePlan plan;
};

// The paper claims, paper by paper, then one line per suite for its
// prerequisites (our own correctness), with the failing ones named.
void PrintTable(const std::vector<cb::ledger::ClaimRow>& rows) {
  const cb::ledger::ClaimTable table = cb::ledger::SplitClaims(rows);
  std::printf("\n%s %s %s %s %s %s %s\n", Fit("paper", 18).c_str(), Fit("claim", 16).c_str(),
              Fit("paper value", 18).c_str(), Fit("measured [CI]", 30).c_str(),
              Fit("setting", 44).c_str(), Fit("scale", 11).c_str(), "verdict");
  for (const cb::ledger::ClaimRow* c : table.paper) {
    std::printf("%s %s %s %s %s %s %s\n", Fit(c->paper, 18).c_str(), Fit(c->claim_id, 16).c_str(),
                Fit(c->paper_value, 18).c_str(), Fit(cb::ledger::FormatMeasured(*c), 30).c_str(),
                Fit(c->our_setting, 44).c_str(), Fit(c->scale, 11).c_str(), c->verdict.c_str());
    if (!c->reason.empty() && c->verdict != "REPRODUCED") {
      std::printf("%s   %s\n", std::string(18, ' ').c_str(), c->reason.c_str());
    }
    if (const auto failed = table.failed_prerequisites.find(c->suite);
        failed != table.failed_prerequisites.end()) {
      std::printf("%s   rests on a failed prerequisite: %s\n", std::string(18, ' ').c_str(),
                  failed->second.c_str());
    }
  }
  if (!table.prerequisites.empty()) std::printf("\n");
  for (const cb::ledger::PrerequisiteLine& p : table.prerequisites) {
    std::printf("%s\n", p.Text().c_str());
  }
}

cb::ledger::ClaimRow ToRow(const h::ClaimSpec& s, const h::Outcome& o) {
  cb::ledger::ClaimRow row;
  row.claim_id = s.id;
  row.suite = s.suite;
  row.paper = s.paper;
  row.section = s.section;
  row.statement = s.statement;
  row.paper_value = s.paper_value;
  row.paper_setting = s.paper_setting;
  row.our_setting = o.setting;
  row.metric = s.metric;
  row.criterion = s.criterion.Text();
  row.scale = h::ScaleName(o.scale);
  row.verdict = h::VerdictName(o.verdict);
  row.value = o.value;
  row.ci_low = o.ci_low;
  row.ci_high = o.ci_high;
  row.confidence = s.confidence;
  row.reason = o.reason;
  row.requirements = {{"gpu", s.requirements.gpu},
                      {"energy_meter", s.requirements.energy_meter},
                      {"endpoint", s.requirements.endpoint},
                      {"cpu_only", s.requirements.cpu_only},
                      {"min_profile", h::ProfileName(s.requirements.min_profile)}};
  row.depends_on_clock = s.depends_on_clock;  // stored and hashed (claim/3); the gate reads it
  row.kind = h::ClaimKindName(s.kind);
  row.criterion_hash = h::CriterionHash(s);
  row.inputs = nlohmann::json::array();
  for (const h::ClaimInput& in : o.inputs) {
    row.inputs->push_back({{"role", in.role},
                           {"name", in.name},
                           {"content_hash", in.content_hash},
                           {"declared", in.declared}});
  }
  return row;
}

// The backends --backend names: "all" = every available one; naming an
// unavailable one is an error.
std::vector<h::Backend> SelectBackends(const std::string& flag) {
  std::vector<h::Backend> backends;
  if (flag == "all") {
    for (const auto b : h::AllBackends()) {
      if (h::Availability(b).ok) backends.push_back(b);
    }
    return backends;
  }
  const auto b = h::ParseBackend(flag);
  if (!b) throw UsageError("--backend '" + flag + "': expected cpu, cuda or all");
  const auto status = h::Availability(*b);
  if (!status.ok) throw UsageError("--backend " + flag + ": unavailable: " + status.reason);
  return {*b};
}

// The claims --suite and --claim select: a claim matches a --claim value
// equal to its id or a regex matching its whole id.
std::vector<const h::ClaimDef*> SelectClaims(const RunOptions& o) {
  std::vector<std::regex> patterns;
  for (const auto& pattern : o.claims) {
    try {
      patterns.emplace_back(pattern);
    } catch (const std::regex_error&) {
      throw UsageError("--claim '" + pattern + "': not a valid regular expression");
    }
  }
  std::vector<const h::ClaimDef*> selected;
  for (const auto& def : h::RegisteredClaims()) {
    const auto& id = def.spec.id;
    bool suite_ok = o.suites.empty();
    for (const auto& suite : o.suites) suite_ok |= def.spec.suite == suite;
    bool claim_ok = o.claims.empty();
    for (size_t i = 0; i < patterns.size(); ++i) {
      claim_ok |= id == o.claims[i] || std::regex_match(id, patterns[i]);
    }
    if (suite_ok && claim_ok) selected.push_back(&def);
  }
  if (selected.empty()) {
    throw UsageError("no claim matches the --suite/--claim selection (see `claimbench list`)");
  }
  return selected;
}

// Why `def` cannot run here with these backends; empty when it can.
std::string Unmet(const h::ClaimDef& def, const std::vector<h::Backend>& backends,
                  const std::string& backend_flag) {
  std::string unmet = h::UnmetRequirement(def.spec.requirements);
  if (unmet.empty() && def.spec.requirements.gpu &&
      std::find(backends.begin(), backends.end(), h::Backend::kCuda) == backends.end()) {
    unmet = "no GPU: the cuda backend was not selected (--backend " + backend_flag + ")";
  }
  return unmet;
}

void PrintJson(int64_t run_id, const cb::ledger::RunSummary& summary, const RunOptions& o,
               uint64_t seed, const std::string& ledger_path,
               const std::vector<cb::ledger::ClaimRow>& rows) {
  nlohmann::json out = {{"run_id", run_id},       {"run_hash", summary.run_hash},
                        {"status", summary.status}, {"profile", o.profile},
                        {"seed", seed},           {"ledger", ledger_path},
                        {"claims", nlohmann::json::array()}};
  for (const auto& c : rows) {
    nlohmann::json j = {{"id", c.claim_id},         {"suite", c.suite},
                        {"kind", c.kind.value_or("")}, {"paper", c.paper},
                        {"paper_value", c.paper_value}, {"setting", c.our_setting},
                        {"scale", c.scale},         {"verdict", c.verdict},
                        {"reason", c.reason},       {"criterion_hash", c.criterion_hash.value_or("")}};
    j["inputs"] = c.inputs.value_or(nlohmann::json::array());
    j["value"] = c.value ? nlohmann::json(*c.value) : nlohmann::json();
    j["ci"] = c.ci_low && c.ci_high ? nlohmann::json({*c.ci_low, *c.ci_high}) : nlohmann::json();
    out["claims"].push_back(j);
  }
  std::cout << out.dump(2) << "\n";
}

// 1 if a claim is NOT_REPRODUCED, 2 if one is INCONCLUSIVE, else 0.
int StrictExitCode(const std::vector<cb::ledger::ClaimRow>& rows) {
  bool inconclusive = false;
  for (const auto& c : rows) {
    if (c.verdict == "NOT_REPRODUCED") return kExitRegression;
    inconclusive |= c.verdict == "INCONCLUSIVE";
  }
  return inconclusive ? kExitInconclusive : kExitOk;
}

// --seed: a whole decimal number in [0, 2^64).
uint64_t ParseSeed(const std::string& text) {
  uint64_t seed = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, seed);
  if (text.empty() || ec != std::errc() || ptr != end) {
    throw UsageError("--seed '" + text + "': expected an integer in [0, 2^64)");
  }
  return seed;
}

void AddRunOptions(CLI::App* cmd, RunOptions* options);

// The `run` options `run` was recorded with, from its stored command line
// (`what` says what for in the error: "reproduced", "resumed"); json,
// strict and ledger are left at their defaults: they are the caller's.
RunOptions ParseRecordedRun(const cb::ledger::RunSummary& run, const std::string& what) {
  const std::vector<std::string> args = SplitArgs(run.command);
  const std::string id = "run " + std::to_string(run.id);
  if (args.size() < 2 || args[0] != "claimbench" || args[1] != "run")
    throw UsageError(id + " was recorded by `" + run.command.substr(0, 60) +
                     "`, not `claimbench run`: only runs of claims can be " + what);
  RunOptions o;
  CLI::App parser("recorded");
  AddRunOptions(&parser, &o);
  std::vector<std::string> rest(args.rbegin(), args.rend() - 2);  // CLI11 parses a reversed vector
  try {
    parser.parse(rest);
  } catch (const CLI::ParseError& e) {
    throw UsageError(id + ": its recorded command line does not parse (" + std::string(e.what()) + ")");
  }
  o.json = false;
  o.strict = false;
  o.ledger.clear();
  return o;
}

// `run`'s recorded command line with `--resume UUID` in place of any
// --resume it had: what a resumed run records (its selection, and what it
// continued); `reproduce` ignores the --resume.
std::string ResumedCommand(const std::string& recorded, const std::string& uuid) {
  std::vector<std::string> args = SplitArgs(recorded);
  for (size_t i = 0; i < args.size();) {
    if (args[i] == "--resume") {
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(i),
                 args.begin() + static_cast<std::ptrdiff_t>(std::min(i + 2, args.size())));
    } else if (args[i].rfind("--resume=", 0) == 0) {
      args.erase(args.begin() + static_cast<std::ptrdiff_t>(i));
    } else {
      ++i;
    }
  }
  args.push_back("--resume");
  args.push_back(uuid);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  return JoinArgs(static_cast<int>(argv.size()), argv.data());
}

// --resume: checks that RUN can be continued here (unfinished, its writer
// gone, this build's sources, a ledger that verifies, claims that say which
// results are theirs) and returns it with what is kept; *o becomes RUN's
// recorded options (with `given`'s --json, --strict, --ledger) and *command
// what the new run records. Opens the ledger read-only: nothing is written.
Continuation PrepareResume(const RunOptions& given, RunOptions* o, std::string* command) {
  namespace lg = cb::ledger;
  const std::string path = ResolveLedgerPath(given.ledger);
  if (!std::filesystem::exists(path)) throw UsageError("ledger '" + path + "': no such file");
  lg::Ledger ledger = lg::Ledger::OpenReadOnly(path);
  Continuation c;
  c.run_id = ledger.ResolveRun(given.resume);
  const lg::RunSummary run = ledger.GetRun(c.run_id);
  const std::string name = "run " + std::to_string(c.run_id);
  if (run.status == "complete") throw UsageError(name + " is complete: there is nothing to resume");
  if (run.status == "failed") {
    throw UsageError(name + " failed (a claim threw) after every claim had run: start a new run");
  }
  if (run.status == "running" || run.status == "incomplete") {  // incomplete: running, its writer gone
    if (run.writer_alive) {
      throw UsageError(name + " is still being written by process " + std::to_string(run.pid) +
                       ": stop it first (SIGINT seals it interrupted)");
    }
    if (run.host != lg::HostName()) {
      throw UsageError(name + " was written on host '" + run.host +
                       "': resume it there, where claimbench can tell that its writer is gone");
    }
    c.killed = true;
  }
  const lg::RunMeta meta = ledger.GetRunMeta(c.run_id);
  const std::string here = cb::harness::build_info::kSourceHash;
  if (meta.source_hash != here) {
    throw UsageError(name + " was built from other sources (source hash " + meta.source_hash.substr(0, 12) +
                     ", this binary " + here.substr(0, 12) +
                     "): resume it with the build that began it, or start a new run");
  }
  *o = ParseRecordedRun(run, "resumed");
  o->json = given.json;
  o->strict = given.strict;
  o->ledger = path;
  o->resume = given.resume;
  if (const lg::VerifyReport report = ledger.Verify(); !report.ok) {
    throw UsageError("ledger '" + path + "' does not verify (" + report.first_error +
                     "): resuming copies recorded rows into a new run and would hide that");
  }
  c.plan = lg::PlanResume(name, ledger.GetResults(c.run_id), ledger.GetClaims(c.run_id));
  c.platform_hash = meta.platform_hash;
  *command = ResumedCommand(run.command, run.run_uuid);
  return c;
}

// Throws UsageError unless the claims `c` keeps are, in order, the first of
// `selected` (the recorded selection of the same sources gives the same list).
void CheckKeptClaims(const Continuation& c, const std::vector<const cb::harness::ClaimDef*>& selected) {
  const std::string name = "run " + std::to_string(c.run_id);
  if (c.plan.kept.size() > selected.size()) {
    throw UsageError(name + " recorded " + std::to_string(c.plan.kept.size()) +
                     " claims, more than its selection has (" + std::to_string(selected.size()) + ")");
  }
  for (size_t i = 0; i < c.plan.kept.size(); ++i) {
    if (c.plan.kept[i].claim.claim_id != selected[i]->spec.id) {
      throw UsageError(name + "'s claim " + std::to_string(i + 1) + " is " + c.plan.kept[i].claim.claim_id +
                       " where its selection has " + selected[i]->spec.id + ": it cannot be continued");
    }
  }
}

// Runs the selection into a new run of o.ledger's ledger, recording
// `command` as its command line; *run_id_out, when given, receives the new
// run's id.
int Run(const RunOptions& given, const std::string& given_command, int64_t* run_id_out = nullptr) {
  RunOptions o = given;
  std::string command = given_command;
  std::optional<Continuation> resumed;
  if (!given.resume.empty()) resumed = PrepareResume(given, &o, &command);
  // Every argument is checked before the ledger is opened: bad input changes nothing.
  const uint64_t seed = ParseSeed(o.seed);
  const auto profile = h::ParseProfile(o.profile);
  if (!profile) throw UsageError("--profile '" + o.profile + "': expected smoke, quick or full");
  const std::vector<h::Backend> backends = SelectBackends(o.backend);
  std::vector<const h::ClaimDef*> selected = SelectClaims(o);
  if (!o.shard.empty()) {
    const auto shard = h::ParseShard(o.shard);
    if (!shard) throw UsageError("--shard '" + o.shard + "': expected i/n with 0 <= i < n");
    std::erase_if(selected, [&](const h::ClaimDef* d) { return !h::InShard(d->spec.id, *shard); });
  }
  if (resumed) CheckKeptClaims(*resumed, selected);

  CeilingLoadOverride();  // a bad CB_CEILING_LOAD is refused before the ledger is touched
  const auto meta = CollectRunMeta(command, o.profile, seed);
  if (resumed && meta.platform_hash != resumed->platform_hash) {
    throw UsageError("run " + std::to_string(resumed->run_id) + " was recorded on another platform (hash " +
                     resumed->platform_hash.substr(0, 12) + ", here " + meta.platform_hash.substr(0, 12) +
                     "): its timings would not compare; resume it there or start a new run");
  }
  cb::ledger::Ledger ledger = cb::ledger::Ledger::Open(ResolveLedgerPath(o.ledger));
  EnsureCeilings(ledger, meta.platform_hash);
  h::ThrowIfInterrupted("before the run started");
  if (resumed && resumed->killed) ledger.FinishRun(resumed->run_id, cb::ledger::RunStatus::kInterrupted);
  const int64_t run_id = ledger.BeginRun(meta);
  if (run_id_out) *run_id_out = run_id;
  cb::ledger::RunGuard run(ledger, run_id);  // sealed "failed" if the loop below throws
  if (!o.json && !o.silent) {
    std::fprintf(stderr, "claimbench run %lld: %zu claims, profile %s, seed %llu, ledger %s\n",
                 static_cast<long long>(run_id), selected.size(), o.profile.c_str(),
                 static_cast<unsigned long long>(seed), ledger.path().c_str());
  }
  if (resumed && !o.silent) {
    const auto& plan = resumed->plan;
    std::fprintf(stderr,
                 "claimbench run %lld resumes run %lld%s: %zu claims kept with %lld results; %lld results "
                 "of the claim it was in are measured again\n",
                 static_cast<long long>(run_id), static_cast<long long>(resumed->run_id),
                 resumed->killed ? " (killed; now sealed interrupted)" : "", plan.kept.size(),
                 static_cast<long long>(plan.results_kept), static_cast<long long>(plan.results_dropped));
  }

  h::ProgressBar bar(static_cast<int>(selected.size()));
  std::vector<cb::ledger::ClaimRow> rows;
  cb::ledger::RunStatus status = cb::ledger::RunStatus::kComplete;
  for (size_t i = 0; i < selected.size(); ++i) {
    const h::ClaimDef& def = *selected[i];
    bar.Update(static_cast<int>(i), 0, def.spec.id);
    if (resumed && i < resumed->plan.kept.size()) {
      // Recorded by the run this one resumes: its rows are copied, not measured again.
      const auto& kept = resumed->plan.kept[i];
      ledger.AddResults(run_id, kept.results);
      rows.push_back(kept.claim);
      ledger.AddClaim(run_id, rows.back());
      if (kept.claim.reason.rfind("error: ", 0) == 0) status = cb::ledger::RunStatus::kFailed;
      continue;
    }
    h::Outcome outcome;
    if (const std::string unmet = Unmet(def, backends, o.backend); !unmet.empty()) {
      outcome.verdict = h::Verdict::kUnmeasurable;
      outcome.reason = unmet;
    } else {
      h::ClaimContext ctx(
          def.spec, *profile, seed, backends, cb::ledger::LedgerSink(ledger, run_id, def.spec.suite),
          [&](double fraction, std::string_view what) {
            bar.Update(static_cast<int>(i), fraction,
                       what.empty() ? def.spec.id : def.spec.id + " " + std::string(what));
          });
      try {
        if (def.spec.requirements.endpoint) ctx.UseInput(h::EndpointInput());
        outcome = ctx.Finish(def.run(ctx));
      } catch (const h::Interrupted&) {
        status = cb::ledger::RunStatus::kInterrupted;
        break;
      } catch (const std::exception& e) {
        // A claim that throws is a harness error, never a verdict about the paper.
        status = cb::ledger::RunStatus::kFailed;
        outcome.verdict = h::Verdict::kInconclusive;
        outcome.reason = std::string("error: ") + e.what();
      } catch (...) {
        status = cb::ledger::RunStatus::kFailed;
        outcome.verdict = h::Verdict::kInconclusive;
        outcome.reason = "error: unexpected exception";
      }
    }
    rows.push_back(ToRow(def.spec, outcome));
    ledger.AddClaim(run_id, rows.back());
    if (h::InterruptRequested()) {
      status = cb::ledger::RunStatus::kInterrupted;
      break;
    }
  }
  bar.Clear();
  run.Finish(status);
  const auto summary = ledger.GetRun(run_id);

  if (o.json && !o.silent) {
    PrintJson(run_id, summary, o, seed, ledger.path(), rows);
  } else if (!o.silent) {
    PrintTable(rows);
    std::printf("\nrun %lld %s, run_hash %s\n", static_cast<long long>(run_id),
                cb::ledger::RunStatusName(status), summary.run_hash.c_str());
  }

  if (status == cb::ledger::RunStatus::kInterrupted) {
    std::fprintf(stderr, "claimbench: interrupted by signal %d; run %lld sealed as interrupted\n",
                 h::InterruptSignal(), static_cast<long long>(run_id));
    return kExitError;
  }
  if (status == cb::ledger::RunStatus::kFailed) return kExitError;
  return o.strict ? StrictExitCode(rows) : kExitOk;
}

// The options of `run` on `cmd` (also how `reproduce` reads a recorded run's
// command line).
void AddRunOptions(CLI::App* cmd, RunOptions* options) {
  cmd->add_option("--suite", options->suites, "Only these suites (repeatable)");
  cmd->add_option("--claim", options->claims, "Only these claim ids or regexes (repeatable)");
  cmd->add_option("--backend", options->backend, "cpu, cuda or all (the available ones)")
      ->capture_default_str();
  cmd->add_option("--profile", options->profile, "smoke, quick or full")->capture_default_str();
  cmd->add_option("--seed", options->seed, "Seed of every random stream, in [0, 2^64)")
      ->capture_default_str();
  AddLedgerOption(cmd, &options->ledger);
  cmd->add_flag("--json", options->json, "Print the verdicts as JSON on stdout");
  cmd->add_flag("--strict", options->strict,
                "Exit 1 if a claim is NOT_REPRODUCED, 2 if one is INCONCLUSIVE");
  cmd->add_option("--shard", options->shard,
                  "i/n: run only shard i (0-based) of n, split by a hash of each claim id");
  cmd->add_option("--resume", options->resume,
                  "Continue this interrupted or killed run (id, 'latest', hash or uuid prefix) with its own "
                  "selection, profile, seed and backend: its recorded claims are copied into a new run, the "
                  "rest are run");
}

}  // namespace

void AddRunCommand(CLI::App& app, const CommandLine& cmdline, int* exit_code) {
  auto options = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "Run claims and record their results and verdicts");
  AddRunOptions(cmd, options.get());
  cmd->callback([cmd, options, cmdline, exit_code] {
    if (!options->resume.empty()) {
      for (const char* flag : {"--suite", "--claim", "--backend", "--profile", "--seed", "--shard"}) {
        if (cmd->count(flag) > 0) {
          throw UsageError(std::string("--resume continues a run with its own selection, profile, seed and "
                                       "backend: leave out ") + flag);
        }
      }
    }
    *exit_code = Run(*options, JoinArgs(cmdline.argc, cmdline.argv));
  });
}

CB_REGISTER_COMMAND(run, AddRunCommand);

// ---------------------------------------------------------------------------
// `claimbench reproduce RUN`

namespace {

namespace lg = cb::ledger;

struct ReproduceOptions {
  std::string run, ledger, policy;
  bool any_source = false, cross_platform = false, json = false;
};

// The `run` options RUN was recorded with, as reproduce uses them.
RunOptions RecordedOptions(const lg::RunSummary& run) {
  RunOptions o = ParseRecordedRun(run, "reproduced");
  o.silent = true;  // the report is the gate's; the run prints nothing of its own
  o.resume.clear();  // a resumed run is reproduced whole
  return o;
}

int Reproduce(const ReproduceOptions& o, const CommandLine& cmdline) {
  const lg::GatePolicy policy = o.policy.empty() ? lg::GatePolicy{} : lg::LoadPolicy(o.policy);
  const std::string path = ResolveLedgerPath(o.ledger);
  if (!std::filesystem::exists(path)) throw UsageError("ledger '" + path + "': no such file");
  int64_t recorded_id = 0;
  RunOptions options;
  {
    lg::Ledger ledger = lg::Ledger::Open(path);
    recorded_id = ledger.ResolveRun(o.run);
    const lg::RunSummary recorded = ledger.GetRun(recorded_id);
    if (recorded.status != "complete")
      throw UsageError("run " + std::to_string(recorded_id) + " is " + recorded.status +
                       "; only a complete run can be reproduced");
    options = RecordedOptions(recorded);
    const lg::RunMeta meta = ledger.GetRunMeta(recorded_id);
    const std::string here = cb::harness::build_info::kSourceHash;
    if (!o.any_source && meta.source_hash != here)
      throw UsageError("run " + std::to_string(recorded_id) + " was built from other sources (source hash " +
                       meta.source_hash.substr(0, 12) + ", commit " +
                       (meta.git_commit.empty() ? "unknown" : meta.git_commit.substr(0, 12)) + "; this binary " +
                       here.substr(0, 12) + "): build that commit, or pass --any-source to compare anyway");
  }
  options.ledger = path;
  int64_t new_id = 0;
  const int run_exit = Run(options, JoinArgs(cmdline.argc, cmdline.argv), &new_id);
  if (run_exit != kExitOk) return run_exit;  // interrupted or failed: said on stderr

  lg::Ledger ledger = lg::Ledger::Open(path);
  const lg::RunData baseline = lg::LoadRun(ledger, recorded_id);
  const lg::RunData candidate = lg::LoadRun(ledger, new_id);
  const lg::GateReport report = lg::Gate(baseline, candidate, policy, o.cross_platform);
  lg::StoreDecisions(ledger, report);
  if (o.json) {
    nlohmann::json j = lg::GateJson(report);
    j["recorded_run"] = recorded_id;
    j["reproduced_run"] = new_id;
    std::cout << j.dump(2) << "\n";
  } else {
    std::printf("run %lld reproduced as run %lld (%s)\n", static_cast<long long>(recorded_id),
                static_cast<long long>(new_id), candidate.run.run_hash.c_str());
    std::cout << lg::GateTable(report, false);
  }
  return report.exit_code;
}

}  // namespace

void AddReproduceCommand(CLI::App& app, const CommandLine& cmdline, int* exit_code) {
  auto o = std::make_shared<ReproduceOptions>();
  CLI::App* cmd = app.add_subcommand(
      "reproduce", "Re-run a recorded run with its own selection, profile, seed and backend, and gate the "
                   "new run against it: exit 0 same, 1 regression, 2 only ambiguous, 3 error");
  cmd->add_option("run", o->run, "The recorded run (id, 'latest', hash or uuid prefix)")->required();
  cmd->add_option("--policy", o->policy, "Gate policy JSON (ledger/README.md)");
  cmd->add_flag("--any-source", o->any_source,
                "Run although this binary was built from other sources than the recorded run");
  cmd->add_flag("--cross-platform", o->cross_platform,
                "Compare although the platform hashes differ (output-hash changes then only reported)");
  cmd->add_flag("--json", o->json, "Print the gate report as JSON");
  AddLedgerOption(cmd, &o->ledger);
  cmd->callback([o, cmdline, exit_code] { *exit_code = Reproduce(*o, cmdline); });
}

CB_REGISTER_COMMAND(reproduce, AddReproduceCommand);

}  // namespace cb::cli
