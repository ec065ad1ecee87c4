// File: ledger/cli/ledger_command.cpp
// `claimbench ledger {verify,head,log,show,export,import,merge}`.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <system_error>

#include <unistd.h>

#include "harness/atomic_file.h"
#include "harness/cli/commands.h"
#include "ledger/cli/common.h"
#include "ledger/analysis/gbench_json.h"
#include "ledger/analysis/run_data.h"

namespace cb::cli {
namespace {

namespace lg = cb::ledger;

struct LedgerOptions {
  std::string ledger;
  bool json = false;
  int limit = 20;
  std::string run = "latest";
  std::vector<std::string> runs;  // export selection
  std::string file;               // export output / import input
  std::vector<std::string> sources;  // merge sources, in order
  std::string format = "jsonl";   // export / import: jsonl (claimbench) or gbench-json
  std::string expect_head;        // verify: a chain hash that must still be in the chain
};

// Opens an existing ledger for reading; a missing file is a usage error, not a new ledger.
lg::Ledger OpenExisting(const std::string& flag) {
  const std::string path = ResolveLedgerPath(flag);
  if (!std::filesystem::exists(path)) throw UsageError("ledger '" + path + "': no such file");
  return lg::Ledger::OpenReadOnly(path);
}

void CheckFormat(const std::string& format) {
  if (format != "jsonl" && format != "gbench-json") {
    throw UsageError("--format '" + format + "': expected jsonl or gbench-json");
  }
}

// Google Benchmark JSON of one sealed run (the newest complete one by default).
int ExportGbench(const LedgerOptions& o) {
  if (o.runs.size() > 1) throw UsageError("--format gbench-json exports one run; give one --run");
  lg::Ledger ledger = OpenExisting(o.ledger);
  const int64_t id = o.runs.empty() ? lg::NewestSealedRun(ledger) : ledger.ResolveRun(o.runs[0]);
  const std::string text = lg::ExportGbenchJson(ledger, id).dump(2) + "\n";
  if (o.file.empty() || o.file == "-") {
    std::cout << text;
  } else {
    cb::harness::WriteFileAtomically(o.file, text);
  }
  return kExitOk;
}

int ImportGbench(const LedgerOptions& o) {
  std::ifstream in(o.file, std::ios::binary);
  if (!in || std::filesystem::is_directory(o.file)) {
    throw UsageError("import '" + o.file + "': cannot read");
  }
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) throw UsageError("import '" + o.file + "': not valid JSON");
  const std::string path = ResolveLedgerPath(o.ledger);
  const bool created = !std::filesystem::exists(path);
  int64_t id = 0;
  try {
    lg::Ledger ledger = lg::Ledger::Open(path);
    id = lg::ImportGbenchJson(ledger, j, o.file, "claimbench ledger import --format gbench-json " + o.file);
  } catch (...) {
    RemoveIfCreated(path, created);
    throw;
  }
  std::printf("imported Google Benchmark results of %s as run %lld into %s\n", o.file.c_str(),
              static_cast<long long>(id), path.c_str());
  return kExitOk;
}


int Verify(const LedgerOptions& o) {
  CheckExpectHead(o.expect_head);
  lg::Ledger ledger = OpenExisting(o.ledger);
  const lg::VerifyReport rep = o.json ? ledger.Verify(o.expect_head) : VerifyOrSay(ledger, o.expect_head);
  if (o.json) {
    std::cout << nlohmann::json({{"ok", rep.ok},
                                 {"runs", rep.runs},
                                 {"results", rep.results},
                                 {"claims", rep.claims},
                                 {"unsealed_runs", rep.unsealed_runs},
                                 {"ceilings", rep.ceilings},
                                 {"artifacts", rep.artifacts},
                                 {"decisions", rep.decisions},
                                 {"cache_entries", rep.cache_entries},
                                 {"chain_head", rep.chain_head},
                                 {"first_error", rep.first_error}})
                     .dump(2)
              << "\n";
  } else if (rep.ok) {
    std::printf("ok: %lld runs (%lld unsealed), %lld results, %lld claims, %lld ceilings, "
                "%lld artifacts, %lld decisions, %lld cache entries verified in %s\n"
                "chain head %s\n",
                static_cast<long long>(rep.runs), static_cast<long long>(rep.unsealed_runs),
                static_cast<long long>(rep.results), static_cast<long long>(rep.claims),
                static_cast<long long>(rep.ceilings), static_cast<long long>(rep.artifacts),
                static_cast<long long>(rep.decisions), static_cast<long long>(rep.cache_entries),
                ledger.path().c_str(), rep.chain_head.empty() ? "-" : rep.chain_head.c_str());
  }
  return rep.ok ? kExitOk : kExitRegression;
}

// The chain head as stored (cheap; `verify` checks it). A ledger with no
// sealed run has none, which is an error: there is nothing to anchor.
int Head(const LedgerOptions& o) {
  lg::Ledger ledger = OpenExisting(o.ledger);
  const std::optional<lg::ChainHead> head = ledger.Head();
  if (!head) throw UsageError("ledger '" + ledger.path() + "': no sealed run, so no chain head");
  if (o.json) {
    std::cout << nlohmann::json({{"chain_head", head->chain_hash},
                                 {"run", head->run_id},
                                 {"chain_seq", head->chain_seq}})
                     .dump(2)
              << "\n";
  } else {
    std::printf("%s\n", head->chain_hash.c_str());
  }
  return kExitOk;
}

nlohmann::json RunJson(const lg::RunSummary& r) {
  return {{"id", r.id},
          {"run_uuid", r.run_uuid},
          {"status", r.status},
          {"command", r.command},
          {"profile", r.profile},
          {"started_at", r.started_at},
          {"finished_at", r.finished_at},
          {"platform_hash", r.platform_hash},
          {"run_hash", r.run_hash},
          {"chain_hash", r.chain_hash},
          {"results", r.results},
          {"claims", r.claims}};
}

int Log(const LedgerOptions& o) {
  if (o.limit < 1) throw UsageError("--limit must be >= 1");
  lg::Ledger ledger = OpenExisting(o.ledger);
  const auto runs = ledger.Log(o.limit);
  if (o.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : runs) out.push_back(RunJson(r));
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  std::printf("%-5s %-11s %-8s %-20s %8s %7s  %-12s %s\n", "run", "status", "profile", "started",
              "results", "claims", "run_hash", "command");
  for (const auto& r : runs) {
    std::printf("%-5lld %-11s %-8s %-20s %8lld %7lld  %-12s %s\n", static_cast<long long>(r.id),
                r.status.c_str(), r.profile.c_str(), r.started_at.substr(0, 19).c_str(),
                static_cast<long long>(r.results), static_cast<long long>(r.claims),
                r.run_hash.empty() ? "-" : r.run_hash.substr(0, 12).c_str(), r.command.c_str());
  }
  return kExitOk;
}

int Show(const LedgerOptions& o) {
  lg::Ledger ledger = OpenExisting(o.ledger);
  const int64_t id = ledger.ResolveRun(o.run);
  const auto run = ledger.GetRun(id);
  const auto results = ledger.GetResults(id);
  const auto claims = ledger.GetClaims(id);
  const auto ceilings = ledger.GetCeilings(run.platform_hash);
  if (o.json) {
    nlohmann::json out = RunJson(run);
    out["ceilings"] = nlohmann::json::array();
    for (const auto& c : ceilings) {
      out["ceilings"].push_back({{"name", c.name}, {"value", c.value}, {"unit", c.unit}});
    }
    out["result_rows"] = nlohmann::json::array();
    for (const auto& r : results) {
      nlohmann::json j = {{"suite", r.suite},   {"case", r.case_name}, {"backend", r.backend},
                          {"params", r.params}, {"metric", r.metric},  {"unit", r.unit},
                          {"value", r.value},   {"n", r.n}};
      if (r.ci_low && r.ci_high) j["ci"] = {*r.ci_low, *r.ci_high};
      if (r.energy_j) j["energy_j"] = *r.energy_j;
      out["result_rows"].push_back(j);
    }
    out["claim_rows"] = nlohmann::json::array();
    for (const auto& c : claims) {
      out["claim_rows"].push_back({{"id", c.claim_id}, {"verdict", c.verdict},
                                   {"value", c.value ? nlohmann::json(*c.value) : nlohmann::json()},
                                   {"reason", c.reason}});
    }
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }
  std::printf("run %lld  %s  profile %s\n  command   %s\n  started   %s\n  finished  %s\n"
              "  platform  %s\n  run_hash  %s\n  chain     %s\n",
              static_cast<long long>(run.id), run.status.c_str(), run.profile.c_str(),
              run.command.c_str(), run.started_at.c_str(), run.finished_at.c_str(),
              run.platform_hash.c_str(), run.run_hash.c_str(), run.chain_hash.c_str());
  std::printf("\nceilings of this platform\n");
  for (const auto& c : ceilings) {
    std::printf("  %s %10.4g %s\n", Fit(c.name, 24).c_str(), c.value, c.unit.c_str());
  }
  std::printf("\nresults (%zu)\n", results.size());
  for (const auto& r : results) {
    std::printf("  %s %s %s %s = %.6g %s", Fit(r.suite, 10).c_str(), Fit(r.case_name, 28).c_str(),
                Fit(r.backend, 5).c_str(), Fit(r.metric, 20).c_str(), r.value, r.unit.c_str());
    if (r.ci_low && r.ci_high) std::printf(" [%.6g, %.6g]", *r.ci_low, *r.ci_high);
    std::printf("\n");
  }
  std::printf("\nclaims (%zu)\n", claims.size());
  for (const auto& c : claims) {
    std::printf("  %s %s %s\n", Fit(c.claim_id, 16).c_str(), Fit(c.verdict, 15).c_str(),
                c.reason.c_str());
  }
  return kExitOk;
}

int Export(const LedgerOptions& o) {
  CheckFormat(o.format);
  if (o.format == "gbench-json") return ExportGbench(o);
  lg::Ledger ledger = OpenExisting(o.ledger);
  std::vector<int64_t> ids;
  for (const auto& r : o.runs) ids.push_back(ledger.ResolveRun(r));
  if (o.file.empty() || o.file == "-") {
    ledger.Export(std::cout, ids);
    return kExitOk;
  }
  // Write to a temporary file beside the target, then rename: a failed export
  // leaves no partial file and never a half-written FILE.
  try {
    cb::harness::WriteFileAtomically(o.file, [&](std::ostream& out) { ledger.Export(out, ids); });
  } catch (const std::runtime_error& e) {
    // The file's own errors ("cannot write '<file>'...") are the user's to fix.
    const std::string what = e.what();
    if (what.rfind("cannot write '" + o.file + "'", 0) == 0) throw UsageError("--out: " + what);
    throw;
  }
  return kExitOk;
}

int Import(const LedgerOptions& o) {
  CheckFormat(o.format);
  if (o.format == "gbench-json") return ImportGbench(o);
  std::ifstream in(o.file, std::ios::binary);
  if (!in || std::filesystem::is_directory(o.file)) {
    throw UsageError("import '" + o.file + "': cannot read");
  }
  const std::string path = ResolveLedgerPath(o.ledger);
  const bool created = !std::filesystem::exists(path);
  lg::ImportReport rep;
  try {
    lg::Ledger ledger = lg::Ledger::Open(path);
    rep = ledger.Import(in, o.file);
  } catch (...) {
    RemoveIfCreated(path, created);  // a refused import leaves no new ledger behind
    throw;
  }
  std::printf("imported %lld runs, skipped %lld already present, into %s\n",
              static_cast<long long>(rep.runs_added), static_cast<long long>(rep.runs_skipped),
              path.c_str());
  return kExitOk;
}

// Every source is opened (and so checked as a ledger) before the target is
// touched; then each is merged in its own transaction, in the order given.
int Merge(const LedgerOptions& o) {
  for (const std::string& source : o.sources) {
    if (!std::filesystem::exists(source)) throw UsageError("merge '" + source + "': no such file");
    lg::Ledger::OpenReadOnly(source);
  }
  const std::string path = ResolveLedgerPath(o.ledger);
  const bool created = !std::filesystem::exists(path);
  lg::ImportReport total;
  try {
    lg::Ledger ledger = lg::Ledger::Open(path);
    for (const std::string& source : o.sources) {
      const lg::ImportReport rep = ledger.Merge(source);
      if (o.sources.size() > 1) {
        std::printf("%s: %lld runs merged, %lld already present\n", source.c_str(),
                    static_cast<long long>(rep.runs_added), static_cast<long long>(rep.runs_skipped));
      }
      total.runs_added += rep.runs_added;
      total.runs_skipped += rep.runs_skipped;
    }
  } catch (...) {
    RemoveIfCreated(path, created);
    throw;
  }
  std::printf("merged %lld runs, skipped %lld already present, into %s\n",
              static_cast<long long>(total.runs_added), static_cast<long long>(total.runs_skipped),
              path.c_str());
  return kExitOk;
}

}  // namespace

void AddLedgerCommand(CLI::App& app, const CommandLine&, int* exit_code) {
  auto o = std::make_shared<LedgerOptions>();
  CLI::App* ledger = app.add_subcommand("ledger", "Inspect, verify and exchange ledgers");
  ledger->require_subcommand(1);
  auto add_ledger_flag = [&](CLI::App* cmd) { AddLedgerOption(cmd, &o->ledger); };

  CLI::App* verify = ledger->add_subcommand("verify", "Recompute every hash; name the first bad row");
  add_ledger_flag(verify);
  verify->add_flag("--json", o->json, "Machine-readable output");
  AddExpectHeadOption(verify, &o->expect_head);
  verify->callback([o, exit_code] { *exit_code = Verify(*o); });

  CLI::App* head = ledger->add_subcommand(
      "head", "Print the chain head (chain_hash of the newest sealed run) to keep elsewhere");
  add_ledger_flag(head);
  head->add_flag("--json", o->json, "Machine-readable output");
  head->callback([o, exit_code] { *exit_code = Head(*o); });

  CLI::App* log = ledger->add_subcommand("log", "List runs, newest first");
  add_ledger_flag(log);
  log->add_option("--limit", o->limit, "How many runs")->capture_default_str();
  log->add_flag("--json", o->json, "Machine-readable output");
  log->callback([o, exit_code] { *exit_code = Log(*o); });

  CLI::App* show = ledger->add_subcommand("show", "Show one run with its results and claims");
  add_ledger_flag(show);
  show->add_option("run", o->run, "Run id, 'latest', or a run_hash/run_uuid prefix")
      ->capture_default_str();
  show->add_flag("--json", o->json, "Machine-readable output");
  show->callback([o, exit_code] { *exit_code = Show(*o); });

  CLI::App* exp = ledger->add_subcommand("export", "Write sealed runs as JSON Lines");
  add_ledger_flag(exp);
  exp->add_option("--run", o->runs, "Only these runs (repeatable; default all sealed runs)");
  exp->add_option("--out", o->file, "Output file (default stdout)");
  exp->add_option("--format", o->format,
                  "jsonl (claimbench runs) or gbench-json (Google Benchmark JSON of one run)")
      ->capture_default_str();
  exp->callback([o, exit_code] { *exit_code = Export(*o); });

  CLI::App* imp = ledger->add_subcommand("import", "Add the runs of an export file (idempotent)");
  add_ledger_flag(imp);
  imp->add_option("file", o->file, "Export file (JSON Lines), or Google Benchmark JSON")->required();
  imp->add_option("--format", o->format, "jsonl or gbench-json (Google Benchmark --benchmark_out)")
      ->capture_default_str();
  imp->callback([o, exit_code] { *exit_code = Import(*o); });

  CLI::App* merge =
      ledger->add_subcommand("merge", "Add the sealed runs of other ledgers, in order (idempotent)");
  add_ledger_flag(merge);
  merge->add_option("other", o->sources, "The other ledger files (e.g. the shards of one run)")
      ->required();
  merge->callback([o, exit_code] { *exit_code = Merge(*o); });
}

CB_REGISTER_COMMAND(ledger, AddLedgerCommand);

}  // namespace cb::cli
