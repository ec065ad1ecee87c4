// File: suites/m3/eval_m3_command.cpp
// `claimbench eval m3 --features FILE.safetensors`: M3's principal scene
// components and Gaussian memory attention on a user's feature dump (layout
// in suites/m3/README.md):
//   features    (N, D)  required: the foundation-model feature vectors
//   queries     (P, c)  optional, with projection (c, D): rendered queries
//   projection  (c, D)  and W_m of a trained M3 field, read through GMA
//   targets     (P, D)  optional: the features the queries should give
// Reports the memory bank (rows, dropped, unrepresented), GMA's
// reconstruction of the features from their own directions (queries = the
// features, W_m = I: the best GMA can do with this memory, fp64 and the
// code's fp16) and, with queries, the distance of GMA(queries) to targets.
//   --model clip|siglip|dinov2|seem|llama3|llamav picks the paper's θ
//   (.80 .85 .75 1.0 1.0 .60); --theta overrides it; --tau (0.05);
//   --order forward|reversed; --max-rows (10000); --write-memory FILE;
//   --ledger, --json
// Every input is read and checked before the ledger is touched; SIGINT
// during the PSC walk exits 3 and records nothing (harness/interrupt.h).
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/cli/commands.h"
#include "harness/hash.h"
#include "harness/interrupt.h"
#include "harness/progress.h"
#include "harness/safetensors.h"
#include "ledger/cli/common.h"
#include "ledger/ledger.h"
#include "ledger/run_guard.h"
#include "reference/m3/gma.h"
#include "reference/m3/loss.h"
#include "reference/m3/psc.h"

namespace cb::cli {
namespace {

namespace h = cb::harness;
namespace rm = cb::ref::m3;

struct EvalM3Options {
  std::string features, model, order = "forward", write_memory, ledger;
  double theta = NAN, tau = rm::kGmaTemperature;
  int64_t max_rows = 10000;
  bool json = false;
};

// The paper's defaults (brief other-papers.md §5; the scripts use others).
double PaperTheta(const std::string& model) {
  if (model == "clip") return 0.80;
  if (model == "siglip") return 0.85;
  if (model == "dinov2") return 0.75;
  if (model == "seem" || model == "llama3") return 1.0;
  if (model == "llamav") return 0.60;
  throw UsageError("--model '" + model + "': expected clip, siglip, dinov2, seem, llama3 or llamav");
}

struct Matrix {
  int64_t rows = 0, cols = 0;
  std::vector<double> values;
};

// A 2-D tensor of the dump, or nothing when optional and absent.
std::unique_ptr<Matrix> ReadMatrix(const h::SafetensorsFile& file, const std::string& path, const std::string& name,
                                   bool required) {
  const h::SafetensorsTensor* t = file.Find(name);
  if (!t) {
    if (required) throw UsageError(path + ": no tensor '" + name + "' (suites/m3/README.md has the layout)");
    return nullptr;
  }
  if (t->shape.size() != 2 || t->shape[0] < 1 || t->shape[1] < 1)
    throw UsageError(path + ": tensor '" + name + "' must be 2-D and non-empty");
  auto m = std::make_unique<Matrix>();
  m->rows = t->shape[0], m->cols = t->shape[1];
  try {
    m->values = file.ReadAsDouble(name);
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  for (double v : m->values)
    if (!std::isfinite(v)) throw UsageError(path + ": tensor '" + name + "' holds a non-finite value");
  return m;
}

h::Result Row(const std::string& case_name, const nlohmann::json& params, const std::string& metric, double value,
              const std::string& direction, const std::string& input_hash) {
  h::Result r;
  r.suite = "m3";
  r.case_name = case_name;
  r.backend = "cpu";
  r.params = params;
  r.metric = metric;
  r.unit = "1";
  r.direction = direction;
  r.value = value;
  r.input_hash = input_hash;
  return r;
}

int RunEvalM3(const EvalM3Options& o, const CommandLine& cmdline) {
  if (o.features.empty()) throw UsageError("give --features FILE.safetensors");
  double theta = o.theta;
  if (!o.model.empty()) {
    const double paper = PaperTheta(o.model);
    if (std::isnan(theta)) theta = paper;
  }
  if (std::isnan(theta)) throw UsageError("give --model (for the paper's θ) or --theta");
  if (!(theta >= -1.0 && theta <= 1.0)) throw UsageError("--theta must be in [-1, 1]");
  if (!(o.tau > 0) || !std::isfinite(o.tau)) throw UsageError("--tau must be positive");
  if (o.order != "forward" && o.order != "reversed") throw UsageError("--order must be forward or reversed");
  if (o.max_rows < 1) throw UsageError("--max-rows must be >= 1");

  const h::SafetensorsFile file = [&] {
    try {
      return h::SafetensorsFile::Open(o.features);
    } catch (const std::runtime_error& e) {
      throw UsageError(e.what());
    }
  }();
  const std::unique_ptr<Matrix> features = ReadMatrix(file, o.features, "features", true);
  const std::unique_ptr<Matrix> queries = ReadMatrix(file, o.features, "queries", false);
  const std::unique_ptr<Matrix> projection = ReadMatrix(file, o.features, "projection", false);
  const std::unique_ptr<Matrix> targets = ReadMatrix(file, o.features, "targets", false);
  const int64_t n = features->rows;
  const int d = int(features->cols);
  if (n > o.max_rows)
    throw UsageError(o.features + ": " + std::to_string(n) + " feature rows; PSC is O(N^2 D), raise --max-rows to run "
                     "it (default 10000)");
  if (bool(queries) != bool(projection)) throw UsageError(o.features + ": 'queries' and 'projection' come together");
  if (queries && (projection->rows != queries->cols || projection->cols != d))
    throw UsageError(o.features + ": projection must be (c, D) = (" + std::to_string(queries->cols) + ", " +
                     std::to_string(d) + ")");
  if (targets && (!queries || targets->rows != queries->rows || targets->cols != d))
    throw UsageError(o.features + ": 'targets' needs 'queries' and must be (P, D) = (queries rows, " +
                     std::to_string(d) + ")");
  for (int64_t i = 0; i < n; ++i) {
    double ss = 0;
    for (int k = 0; k < d; ++k) ss += features->values[i * d + k] * features->values[i * d + k];
    if (ss == 0) throw UsageError(o.features + ": feature row " + std::to_string(i) +
                                  " is zero (PSC divides by the norm; the authors' code would give NaN)");
  }
  std::vector<double> rows = features->values;
  if (o.order == "reversed")
    for (int64_t i = 0; i < n; ++i)
      std::copy(&features->values[(n - 1 - i) * d], &features->values[(n - i) * d], &rows[i * d]);
  const std::string input_hash = h::HashDoubles(features->values).Hex();

  h::ProgressBar bar(1);
  const rm::PscResult psc = rm::PrincipalSceneComponents(rows.data(), n, d, theta, [&](int64_t i, int64_t total) {
    if (i % 64 != 0) return;
    h::ThrowIfInterrupted("during the PSC walk (row " + std::to_string(i) + " of " + std::to_string(total) + ")");
    bar.Update(0, double(i) / double(total), "psc");
  });
  bar.Clear();
  const std::vector<double> memory = rm::GatherRows(rows.data(), d, psc.selected);
  const int k = int(psc.selected.size());

  // GMA reads the memory with each feature's own direction (W_m = I).
  const rm::GmaShape self{n, d, d, k};
  std::vector<double> recon(size_t(n) * d), recon_half(recon.size());
  rm::GmaForward(self, features->values.data(), nullptr, memory.data(), o.tau, recon.data());
  rm::GmaHalf(self, features->values.data(), nullptr, memory.data(), o.tau, recon_half.data());
  h::ThrowIfInterrupted("after GMA");
  const rm::FeatureDistance r64 = rm::CosineMseLoss(recon.data(), features->values.data(), n, d, false);
  const rm::FeatureDistance r16 = rm::CosineMseLoss(recon_half.data(), features->values.data(), n, d, false);
  std::unique_ptr<rm::FeatureDistance> query_dist;
  if (targets) {
    const rm::GmaShape qs{queries->rows, int(queries->cols), d, k};
    std::vector<double> out(size_t(qs.pixels) * d);
    rm::GmaForward(qs, queries->values.data(), projection->values.data(), memory.data(), o.tau, out.data());
    query_dist = std::make_unique<rm::FeatureDistance>(
        rm::CosineMseLoss(out.data(), targets->values.data(), qs.pixels, d, false));
  }
  if (!o.write_memory.empty()) {
    h::SafetensorsWriteTensor t{"F32", {k, d}, memory};
    h::WriteSafetensors(o.write_memory, {{"memory", t}},
                        {{"theta", std::to_string(theta)}, {"source", std::filesystem::path(o.features).filename()}});
  }

  const nlohmann::json params = {{"source", std::filesystem::path(o.features).filename().string()},
                                 {"rows", n}, {"dim", d}, {"theta", theta}, {"tau", o.tau}, {"order", o.order},
                                 {"model", o.model}};
  std::vector<h::Result> results = {
      Row("psc", params, "memory_rows", k, "", input_hash),
      Row("psc", params, "dropped", double(psc.dropped.size()), "", input_hash),
      Row("psc", params, "unrepresented", double(psc.unrepresented.size()), "lower", input_hash),
      Row("gma_self", params, "cosine_distance_fp64", r64.cosine, "lower", input_hash),
      Row("gma_self", params, "mse_fp64", r64.mse, "lower", input_hash),
      Row("gma_self", params, "cosine_distance_fp16", r16.cosine, "lower", input_hash),
      Row("gma_self", params, "mse_fp16", r16.mse, "lower", input_hash)};
  if (query_dist) {
    results.push_back(Row("gma_queries", params, "cosine_distance", query_dist->cosine, "lower", input_hash));
    results.push_back(Row("gma_queries", params, "mse", query_dist->mse, "lower", input_hash));
  }
  auto ledger = cb::ledger::Ledger::Open(ResolveLedgerPath(o.ledger));
  cb::ledger::RunGuard run(ledger,
                           ledger.BeginRun(CollectRunMeta(JoinArgs(cmdline.argc, cmdline.argv), "eval", 0)));
  ledger.AddResults(run.run_id(), results);
  run.Finish(cb::ledger::RunStatus::kComplete);
  const auto summary = ledger.GetRun(run.run_id());
  if (o.json) {
    nlohmann::json j = {{"run_id", run.run_id()}, {"run_hash", summary.run_hash}, {"rows", n}, {"dim", d},
                        {"theta", theta}, {"memory_rows", k}, {"dropped", psc.dropped.size()},
                        {"unrepresented", psc.unrepresented.size()},
                        {"gma_self", {{"cosine_distance_fp64", r64.cosine}, {"mse_fp64", r64.mse},
                                      {"cosine_distance_fp16", r16.cosine}, {"mse_fp16", r16.mse}}}};
    if (query_dist) j["gma_queries"] = {{"cosine_distance", query_dist->cosine}, {"mse", query_dist->mse}};
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  std::printf("%lld feature rows of dimension %d from %s, θ %.3g (%s order)\n", static_cast<long long>(n), d,
              o.features.c_str(), theta, o.order.c_str());
  std::printf("PSC memory: %d rows; %zu dropped, %zu represented by no memory row\n", k, psc.dropped.size(),
              psc.unrepresented.size());
  std::printf("GMA of the features' own directions (τ %.3g): cosine distance %.4f, MSE %.6g (fp16: %.4f, %.6g)\n",
              o.tau, r64.cosine, r64.mse, r16.cosine, r16.mse);
  if (query_dist)
    std::printf("GMA of the queries vs the targets: cosine distance %.4f, MSE %.6g\n", query_dist->cosine,
                query_dist->mse);
  std::printf("\nrun %lld complete, run_hash %s\n", static_cast<long long>(run.run_id()), summary.run_hash.c_str());
  return kExitOk;
}

}  // namespace

void AddEvalM3Command(CLI::App& app, const CommandLine& cmdline, int* exit_code) {
  CLI::App* eval = CommandGroup(app, "eval", "Evaluate methods on statistics from real models");
  auto o = std::make_shared<EvalM3Options>();
  CLI::App* c = eval->add_subcommand("m3", "M3: principal scene components and Gaussian memory attention on a "
                                           "feature dump");
  c->add_option("--features", o->features, "safetensors with 'features' (N, D) [+ queries, projection, targets]");
  c->add_option("--model", o->model, "clip, siglip, dinov2, seem, llama3 or llamav (the paper's θ)");
  c->add_option("--theta", o->theta, "PSC similarity threshold (overrides --model's)");
  c->add_option("--tau", o->tau, "GMA softmax temperature")->capture_default_str();
  c->add_option("--order", o->order, "Walk the rows forward or reversed")->capture_default_str();
  c->add_option("--max-rows", o->max_rows, "Refuse dumps with more rows (PSC is O(N^2 D))")->capture_default_str();
  c->add_option("--write-memory", o->write_memory, "Write the memory bank to this safetensors file");
  c->add_flag("--json", o->json, "Print the run as JSON");
  AddLedgerOption(c, &o->ledger);
  c->callback([o, cmdline, exit_code] { *exit_code = RunEvalM3(*o, cmdline); });
}

CB_REGISTER_COMMAND(eval_m3, AddEvalM3Command);

}  // namespace cb::cli
