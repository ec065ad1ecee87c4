// File: suites/unip/eval_unip_command.cpp
// `claimbench eval unip --attention FILE.safetensors`: the layer-wise NMI
// profile of attention maps dumped from a real ViT (README "Dumping attention
// maps"), NMI-HAD's teacher layer and its stability over s in [0.06, 0.12].
//   tensors     one per layer, softmax probabilities [B, H, N, N] or [H, N, N]
//               (F32, F16, BF16 or F64), ordered by the last number in the
//               name ("blocks.11.attn" is layer 11); other names are refused
//   --no-cls    the maps have no CLS token (by default token 0 is dropped,
//               as cl-vs-mim does)
//   --target S  NMI-HAD's target (default 0.09)
//   --json      the profile as JSON
// Computes and prints; records nothing in a ledger.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/cli/commands.h"
#include "harness/interrupt.h"
#include "harness/safetensors.h"
#include "reference/unip/nmi.h"

namespace cb::cli {
namespace {

namespace ru = cb::ref::unip;

struct EvalUnipOptions {
  std::string attention;
  bool no_cls = false, json = false;
  double target = ru::kNmiHadTarget;
};

struct LayerRow {
  int layer = 0;
  std::string name;
  std::vector<int64_t> shape;
  double nmi = 0;
};

// The last run of digits in `name`, or -1.
int TrailingNumber(const std::string& name) {
  size_t end = name.find_last_of("0123456789");
  if (end == std::string::npos) return -1;
  size_t begin = end;
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(name[begin - 1]))) --begin;
  if (end - begin + 1 > 6) return -1;
  return std::stoi(name.substr(begin, end - begin + 1));
}

LayerRow Measure(const cb::harness::SafetensorsFile& file, const cb::harness::SafetensorsTensor& t, bool drop_cls) {
  const std::string where = file.path() + ": tensor '" + t.name + "'";
  if (t.shape.size() != 3 && t.shape.size() != 4) throw UsageError(where + ": expected [B, H, N, N] or [H, N, N]");
  const int64_t images = t.shape.size() == 4 ? t.shape[0] : 1;
  const int64_t heads = t.shape[t.shape.size() - 3], n = t.shape.back();
  if (t.shape[t.shape.size() - 2] != n) throw UsageError(where + ": the maps are not square");
  if (images < 1 || heads < 1 || n < (drop_cls ? 3 : 2)) throw UsageError(where + ": too few images, heads or tokens");
  std::vector<double> a;
  try {
    a = file.ReadAsDouble(t.name);
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  // Softmax probabilities: every row sums to 1 (to the dtype's rounding).
  for (int64_t r = 0; r < images * heads * n; ++r) {
    double sum = 0.0;
    for (int64_t j = 0; j < n; ++j) {
      const double v = a[static_cast<size_t>(r * n + j)];
      if (!std::isfinite(v) || v < 0.0)
        throw UsageError(where + ": an entry is negative or not finite (pass softmax probabilities)");
      sum += v;
    }
    if (std::abs(sum - 1.0) > 1e-2)
      throw UsageError(where + ": row " + std::to_string(r) + " sums to " + std::to_string(sum) +
                       ", not 1 (pass softmax probabilities, not logits)");
  }
  LayerRow row;
  row.name = t.name;
  row.shape = t.shape;
  row.nmi = ru::LayerNmi(a, static_cast<int>(images), static_cast<int>(heads), static_cast<int>(n), drop_cls);
  return row;
}

int RunEvalUnip(const EvalUnipOptions& o) {
  if (!(o.target > 0.0 && o.target < 1.0)) throw UsageError("--target must lie in (0, 1)");
  cb::harness::SafetensorsFile file;
  try {
    file = cb::harness::SafetensorsFile::Open(o.attention);
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  std::map<int, const cb::harness::SafetensorsTensor*> by_layer;
  for (const auto& t : file.tensors()) {
    const int l = TrailingNumber(t.name);
    if (l < 0) throw UsageError(o.attention + ": tensor '" + t.name + "' has no layer number in its name");
    if (!by_layer.emplace(l, &t).second)
      throw UsageError(o.attention + ": tensors '" + by_layer[l]->name + "' and '" + t.name + "' are both layer " +
                       std::to_string(l));
  }
  if (by_layer.empty()) throw UsageError(o.attention + ": no tensors");
  std::vector<LayerRow> rows;
  for (const auto& [l, t] : by_layer) {
    cb::harness::ThrowIfInterrupted();
    LayerRow row = Measure(file, *t, !o.no_cls);
    row.layer = l;
    rows.push_back(std::move(row));
  }
  std::vector<double> profile;
  for (const LayerRow& r : rows) profile.push_back(r.nmi);
  const int chosen = rows[ru::NmiHadLayer(profile, o.target)].layer;
  std::vector<std::pair<double, int>> stability;
  for (double s : {0.06, 0.075, 0.09, 0.105, 0.12}) stability.push_back({s, rows[ru::NmiHadLayer(profile, s)].layer});

  if (o.json) {
    nlohmann::json layers = nlohmann::json::array(), stab = nlohmann::json::array();
    for (const LayerRow& r : rows)
      layers.push_back({{"layer", r.layer}, {"tensor", r.name}, {"shape", r.shape}, {"nmi", r.nmi},
                        {"kind", ru::NmiKind(r.nmi)}});
    for (const auto& [s, l] : stability) stab.push_back({{"target", s}, {"layer", l}});
    const nlohmann::json j = {{"file", o.attention}, {"cls_dropped", !o.no_cls}, {"layers", layers},
                              {"nmi_had", {{"target", o.target}, {"layer", chosen}}}, {"stability", stab}};
    std::printf("%s\n", j.dump(1).c_str());
    return kExitOk;
  }
  std::printf("%-6s %-32s %-22s %-9s %s\n", "layer", "tensor", "shape", "NMI", "kind");
  for (const LayerRow& r : rows) {
    std::string shape;
    for (int64_t d : r.shape) shape += (shape.empty() ? "" : "x") + std::to_string(d);
    std::printf("%-6d %-32s %-22s %-9.5f %s\n", r.layer, Fit(r.name, 32).c_str(), shape.c_str(), r.nmi,
                ru::NmiKind(r.nmi));
  }
  std::printf("\nNMI-HAD: layer %d (NMI closest to %.3f)\n", chosen, o.target);
  std::printf("over s in [0.06, 0.12]:");
  for (const auto& [s, l] : stability) std::printf("  s %.3f -> %d", s, l);
  std::printf("\nkinds: global < 0.06 <= hybrid <= 0.12 < local (our cut, from the s range; see the README)\n");
  return kExitOk;
}

}  // namespace

void AddEvalUnipCommand(CLI::App& app, const CommandLine&, int* exit_code) {
  CLI::App* eval = CommandGroup(app, "eval", "Evaluate methods on statistics from real models");
  auto o = std::make_shared<EvalUnipOptions>();
  CLI::App* c = eval->add_subcommand("unip", "UNIP: the layer-wise NMI profile of a ViT's attention maps and "
                                             "NMI-HAD's teacher layer");
  c->add_option("--attention", o->attention, "safetensors, one [B, H, N, N] softmax tensor per layer")->required();
  c->add_flag("--no-cls", o->no_cls, "The maps have no CLS token (else token 0 is dropped)");
  c->add_option("--target", o->target, "NMI-HAD's target NMI")->capture_default_str();
  c->add_flag("--json", o->json, "Print the profile as JSON");
  c->callback([o, exit_code] { *exit_code = RunEvalUnip(*o); });
}

CB_REGISTER_COMMAND(eval_unip, AddEvalUnipCommand);

}  // namespace cb::cli
