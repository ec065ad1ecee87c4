// File: suites/docs/docs_layers_command.cpp
// `claimbench docs --checkpoint DIR` (see docs_layers_command.h).
#include "suites/docs/docs_layers_command.h"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/atomic_file.h"
#include "harness/claim.h"
#include "harness/progress.h"
#include "ledger/cli/common.h"
#include "ledger/ledger.h"
#include "ledger/run_guard.h"
#include "suites/docs/docs_layer_rows.h"
#include "suites/docs/docs_layers.h"

namespace cb::docs {
namespace {

namespace h = cb::harness;

// One projection type's results, for the output.
struct TypeResult {
  std::string proj;
  std::vector<int> layer;
  int64_t rows = 0, cols = 0;
  SimilarityMatrix sim;
  Adjacency summary;
  ChanceFloor chance;
};

std::string Num(double v) {
  if (std::isnan(v)) return "";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string FormatCsv(const std::vector<TypeResult>& results) {
  std::ostringstream out;
  out << "proj,what,layer_i,layer_j,value,ci_low,ci_high\n";
  for (const auto& r : results) {
    for (size_t i = 0; i < r.layer.size(); ++i) {
      for (size_t j = i + 1; j < r.layer.size(); ++j) {
        out << r.proj << ",docs_score," << r.layer[i] << "," << r.layer[j] << "," << Num(r.sim.at(i, j))
            << ",,\n";
      }
    }
    const Adjacency& a = r.summary;
    auto line = [&](const char* what, double v, const h::Interval* ci = nullptr) {
      out << r.proj << "," << what << ",,," << Num(v) << "," << (ci ? Num(ci->low) : "") << ","
          << (ci ? Num(ci->high) : "") << "\n";
    };
    line("adjacent_mean", a.adjacent_mean);
    line("non_adjacent_mean", a.non_adjacent_mean);
    line("adjacent_minus_non_adjacent", a.gap_far, &a.gap_far_ci);
    line("adjacent_minus_chance", a.gap_chance, &a.gap_chance_ci);
    line("permutation_p", a.permutation_p);
    line("chance_mean", r.chance.mean, &r.chance.ci);
    line("chance_sd", r.chance.sd);
    line("chance_max", r.chance.max);
  }
  return out.str();
}

nlohmann::json Maybe(double v) { return std::isnan(v) ? nlohmann::json() : nlohmann::json(v); }

std::string FormatJson(const std::vector<TypeResult>& results, const CheckpointLayersOptions& o,
                       int64_t run_id) {
  nlohmann::json j = {{"checkpoint", o.dir}, {"backend", o.backend_name}, {"run_id", run_id},
                      {"vectors", o.vectors}};
  j["projections"] = nlohmann::json::array();
  for (const auto& r : results) {
    nlohmann::json docs = nlohmann::json::array();
    for (size_t i = 0; i < r.layer.size(); ++i) {
      nlohmann::json row = nlohmann::json::array();
      for (size_t k = 0; k < r.layer.size(); ++k) row.push_back(r.sim.at(i, k));
      docs.push_back(row);
    }
    const Adjacency& a = r.summary;
    j["projections"].push_back(
        {{"proj", r.proj},
         {"layers", r.layer},
         {"shape", {r.rows, r.cols}},
         {"docs", docs},
         {"adjacent_mean", a.adjacent_mean},
         {"non_adjacent_mean", Maybe(a.non_adjacent_mean)},
         {"adjacent_minus_non_adjacent", {Maybe(a.gap_far), Maybe(a.gap_far_ci.low), Maybe(a.gap_far_ci.high)}},
         {"adjacent_minus_chance", {a.gap_chance, a.gap_chance_ci.low, a.gap_chance_ci.high}},
         {"permutation_p", Maybe(a.permutation_p)},
         {"chance", {{"draws", r.chance.scores.size()}, {"mean", r.chance.mean}, {"ci", {r.chance.ci.low, r.chance.ci.high}},
                     {"sd", r.chance.sd}, {"max", r.chance.max}}}});
  }
  return j.dump(2) + "\n";
}

}  // namespace

int RunCheckpointLayers(const CheckpointLayersOptions& o, const cb::cli::CommandLine& cmdline) {
  if (o.chance_draws < 1) throw cb::cli::UsageError("--chance-draws must be >= 1");
  if (o.vectors != "columns" && o.vectors != "rows") {
    throw cb::cli::UsageError("--vectors '" + o.vectors + "': expected columns or rows");
  }
  const std::vector<std::string> files = CheckpointFiles(o.dir);
  const auto& types = LlamaProjections();
  size_t pairs = 0;
  for (const auto& type : types) {  // headers of every type, before the ledger
    const size_t layers = ScanProjection(files, type).size();
    pairs += layers * (layers - 1) / 2;
  }

  cb::ledger::Ledger ledger = cb::ledger::Ledger::Open(cb::cli::ResolveLedgerPath(o.ledger));
  const int64_t run_id = ledger.BeginRun(
      cb::cli::CollectRunMeta(cb::cli::JoinArgs(cmdline.argc, cmdline.argv), "docs", o.seed));
  cb::ledger::RunGuard run(ledger, run_id);  // sealed "failed" if anything below throws
  std::fprintf(stderr, "claimbench docs run %lld: %s, %zu projection types, %zu pairs, %s, ledger %s\n",
               static_cast<long long>(run_id), o.dir.c_str(), types.size(), pairs, o.backend_name.c_str(),
               ledger.path().c_str());
  h::ProgressBar bar(static_cast<int>(types.size()));
  std::vector<TypeResult> results;
  for (size_t k = 0; k < types.size(); ++k) {
    if (h::InterruptRequested()) {
      bar.Clear();
      run.Finish(cb::ledger::RunStatus::kInterrupted);
      std::fprintf(stderr, "claimbench: interrupted after %zu of %zu projection types; run %lld sealed as interrupted\n",
                   k, types.size(), static_cast<long long>(run_id));
      return cb::cli::kExitError;
    }
    bar.Update(static_cast<int>(k), 0, types[k].name);
    const ProjectionLayers layers =
        o.vectors == "rows" ? Transposed(LoadProjection(files, types[k])) : LoadProjection(files, types[k]);
    TypeResult r;
    r.proj = types[k].name;
    r.layer = layers.layer;
    r.rows = layers.tensors[0].rows;
    r.cols = layers.tensors[0].cols;
    const uint64_t chance_seed = o.seed + 7919 * (k + 1);
    r.chance = ChanceFloorOf(o.backend, r.rows, r.cols, o.chance_draws, chance_seed);
    r.sim = LayerSimilarity(o.backend, layers.tensors, nullptr);
    r.summary = Summarise(r.layer, r.sim, r.chance, o.seed);
    const nlohmann::json params = {{"checkpoint", o.dir}, {"proj", r.proj}, {"vectors", o.vectors}};
    std::vector<h::Result> rows =
        LayerRows("checkpoint_layers", params, r.proj + " DOCS, " + o.vectors, layers, r.sim, r.summary);
    for (auto& row : ChanceRows("checkpoint_chance_floor", params, r.chance, chance_seed)) rows.push_back(row);
    for (auto& row : rows) row.backend = o.backend_name;
    ledger.AddResults(run_id, rows);
    results.push_back(std::move(r));
  }
  bar.Clear();
  const std::string text = o.format == "csv" ? FormatCsv(results) : FormatJson(results, o, run_id);
  if (o.out.empty()) {
    std::cout << text << std::flush;
  } else {
    try {
      h::WriteFileAtomically(o.out, text);
    } catch (const std::runtime_error&) {
      throw std::runtime_error("--out " + o.out + ": cannot write");
    }
  }
  run.Finish(cb::ledger::RunStatus::kComplete);
  return cb::cli::kExitOk;
}

}  // namespace cb::docs
