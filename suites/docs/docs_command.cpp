// File: suites/docs/docs_command.cpp
// -----------------------------------------------------------------------------
// `claimbench docs --safetensors FILE... [--match REGEX]`: the layer x layer
// DOCS matrix of a checkpoint's matching 2-D tensors, printed as CSV or JSON
// and recorded in the ledger, one row per pair (suite docs, case checkpoint,
// metric docs_score). Every input is read and checked before the ledger is
// opened, so bad input records nothing; each pair is committed as it is
// computed, so an interrupted run keeps what it finished.
// `claimbench docs --checkpoint DIR`: every projection type of a Hugging Face
// Llama checkpoint with the chance floor (docs_layers_command.h).
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/atomic_file.h"
#include "harness/claim.h"
#include "harness/cli/commands.h"
#include "ledger/cli/common.h"
#include "harness/hash.h"
#include "harness/progress.h"
#include "ledger/ledger.h"
#include "ledger/run_guard.h"
#include "suites/docs/docs_checkpoint.h"
#include "suites/docs/docs_layers_command.h"

namespace cb::docs {
namespace {

namespace h = cb::harness;
using cb::cli::UsageError;

struct DocsOptions {
  std::vector<std::string> files;
  std::string checkpoint;
  std::string match;
  std::string vectors = "columns";
  int chance_draws = 5;
  uint64_t seed = 20250101;
  std::string backend = "cpu";
  std::string format = "csv";
  std::string out;
  std::string ledger;
};

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string quoted = "\"";
  for (const char c : s) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string FormatCsv(const SimilarityMatrix& sim) {
  std::ostringstream out;
  out << "tensor";
  for (const auto& name : sim.names) out << "," << CsvField(name);
  out << "\n";
  char cell[32];
  for (size_t i = 0; i < sim.names.size(); ++i) {
    out << CsvField(sim.names[i]);
    for (size_t j = 0; j < sim.names.size(); ++j) {
      std::snprintf(cell, sizeof cell, ",%.6f", sim.at(i, j));
      out << cell;
    }
    out << "\n";
  }
  return out.str();
}

std::string FormatJson(const SimilarityMatrix& sim, const std::vector<NamedTensor>& tensors,
                       const std::string& backend, int64_t run_id) {
  nlohmann::json j = {{"backend", backend}, {"run_id", run_id}};
  j["tensors"] = nlohmann::json::array();
  for (const auto& t : tensors) {
    j["tensors"].push_back({{"file", t.file},
                            {"name", t.name},
                            {"shape", {t.rows, t.cols}},
                            {"content_hash", t.content_hash}});
  }
  j["docs"] = nlohmann::json::array();
  for (size_t i = 0; i < sim.names.size(); ++i) {
    nlohmann::json row = nlohmann::json::array();
    for (size_t k = 0; k < sim.names.size(); ++k) row.push_back(sim.at(i, k));
    j["docs"].push_back(row);
  }
  return j.dump(2) + "\n";
}

h::Result PairRow(const NamedTensor& x, const NamedTensor& y, const std::string& backend,
                  const cb::ref::docs::DocsResult& r) {
  h::Result row;
  row.suite = "docs";
  row.case_name = "checkpoint";
  row.backend = backend;
  row.params = {{"x", x.name}, {"y", y.name},  {"x_file", x.file}, {"y_file", y.file},
                {"m", x.rows}, {"n1", x.cols}, {"n2", y.cols}};
  row.metric = "docs_score";
  row.unit = "similarity";
  row.value = r.score;
  row.input_hash = h::Xxh3_128(x.content_hash + y.content_hash).Hex();
  return row;
}

// Fails now, before any work, when --out cannot be written: its temporary
// file is created and removed again.
void CheckOutputWritable(const std::string& path) {
  if (path.empty()) return;
  const std::string tmp = path + ".tmp";
  if (!std::ofstream(tmp, std::ios::binary | std::ios::trunc)) {
    throw UsageError("--out " + path + ": cannot write there");
  }
  std::remove(tmp.c_str());
}

// stdout, or `path` through a temporary file and a rename (no partial file).
void WriteOutput(const std::string& path, const std::string& text) {
  if (path.empty()) {
    std::cout << text << std::flush;
    return;
  }
  try {
    h::WriteFileAtomically(path, text);
  } catch (const std::runtime_error&) {
    throw std::runtime_error("--out " + path + ": cannot write");
  }
}

int RunDocs(const DocsOptions& o, const cb::cli::CommandLine& cmdline) {
  // Every argument and every tensor is checked before the ledger is opened.
  if (o.format != "csv" && o.format != "json") {
    throw UsageError("--format '" + o.format + "': expected csv or json");
  }
  const auto backend = h::ParseBackend(o.backend);
  if (!backend) throw UsageError("--backend '" + o.backend + "': expected cpu or cuda");
  if (const auto status = h::Availability(*backend); !status.ok) {
    throw UsageError("--backend " + o.backend + ": unavailable: " + status.reason);
  }
  if (o.files.empty() == o.checkpoint.empty()) {
    throw UsageError("give exactly one of --safetensors FILE... or --checkpoint DIR");
  }
  if (!o.checkpoint.empty() && !o.match.empty()) {
    throw UsageError("--match selects tensors for --safetensors; --checkpoint takes every projection type");
  }
  CheckOutputWritable(o.out);
  if (!o.checkpoint.empty()) {
    return RunCheckpointLayers({.dir = o.checkpoint,
                                .backend = *backend,
                                .backend_name = o.backend,
                                .format = o.format,
                                .out = o.out,
                                .ledger = o.ledger,
                                .vectors = o.vectors,
                                .chance_draws = o.chance_draws,
                                .seed = o.seed},
                               cmdline);
  }
  const std::vector<NamedTensor> tensors = LoadMatchingTensors(o.files, o.match);
  const size_t pairs = tensors.size() * (tensors.size() - 1) / 2;

  cb::ledger::Ledger ledger = cb::ledger::Ledger::Open(cb::cli::ResolveLedgerPath(o.ledger));
  const int64_t run_id = ledger.BeginRun(
      cb::cli::CollectRunMeta(cb::cli::JoinArgs(cmdline.argc, cmdline.argv), "docs", 0));
  cb::ledger::RunGuard run(ledger, run_id);  // sealed "failed" if anything below throws
  std::fprintf(
      stderr, "claimbench docs run %lld: %zu tensors of %lld rows, %zu pairs, %s, ledger %s\n",
      static_cast<long long>(run_id), tensors.size(), static_cast<long long>(tensors[0].rows),
      pairs, o.backend.c_str(), ledger.path().c_str());

  h::ProgressBar bar(static_cast<int>(pairs));
  int done = 0;
  SimilarityMatrix sim;
  try {
    sim = LayerSimilarity(*backend, tensors, [&](size_t i, size_t j, const auto& r) {
      ledger.AddResult(run_id, PairRow(tensors[i], tensors[j], o.backend, r));
      bar.Update(++done, 0, tensors[i].name + " vs " + tensors[j].name);
      if (h::InterruptRequested() && done < static_cast<int>(pairs)) throw h::Interrupted{};
    });
  } catch (const h::Interrupted&) {
    bar.Clear();
    run.Finish(cb::ledger::RunStatus::kInterrupted);
    std::fprintf(stderr,
                 "claimbench: interrupted after %d of %zu pairs; run %lld sealed as interrupted\n",
                 done, pairs, static_cast<long long>(run_id));
    return cb::cli::kExitError;
  } catch (...) {
    bar.Clear();
    throw;
  }
  bar.Clear();
  // The output is written before the run is sealed, so a run sealed
  // "complete" always delivered its matrix.
  WriteOutput(o.out, o.format == "csv" ? FormatCsv(sim) : FormatJson(sim, tensors, o.backend, run_id));
  run.Finish(cb::ledger::RunStatus::kComplete);
  return cb::cli::kExitOk;
}

void AddDocsCommand(CLI::App& app, const cb::cli::CommandLine& cmdline, int* exit_code) {
  auto o = std::make_shared<DocsOptions>();
  CLI::App* cmd = app.add_subcommand(
      "docs", "DOCS layer x layer similarity of a checkpoint's weight matrices (safetensors)");
  cmd->add_option("--safetensors", o->files, "Checkpoint files (one or more shards)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--checkpoint", o->checkpoint,
                  "A Hugging Face Llama checkpoint folder: every projection type, all layers, "
                  "with the chance floor");
  cmd->add_option("--vectors", o->vectors,
                  "--checkpoint: compare each tensor's columns as stored, or its rows (a Hugging Face "
                  "weight's output neurons)")
      ->capture_default_str();
  cmd->add_option("--chance-draws", o->chance_draws,
                  "--checkpoint: independent Gaussian pairs per projection type for the chance floor")
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "--checkpoint: seed of the chance floor and the bootstrap")
      ->capture_default_str();
  cmd->add_option("--match", o->match,
                  "Regex selecting the 2-D tensors to compare, e.g. 'self_attn\\.q_proj'");
  cmd->add_option("--backend", o->backend, "cpu or cuda")->capture_default_str();
  cmd->add_option("--format", o->format, "csv or json")->capture_default_str();
  cmd->add_option("--out", o->out, "Write the matrix here instead of stdout");
  cb::cli::AddLedgerOption(cmd, &o->ledger);
  cmd->callback([o, cmdline, exit_code] { *exit_code = RunDocs(*o, cmdline); });
}

}  // namespace

CB_REGISTER_COMMAND(docs, AddDocsCommand);

}  // namespace cb::docs
