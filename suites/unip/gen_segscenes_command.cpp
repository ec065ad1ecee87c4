// File: suites/unip/gen_segscenes_command.cpp
// `claimbench gen segscenes --out FILE.safetensors`: UNIP's procedural
// segmentation scenes (generators/segscenes.h) as one safetensors file,
// written whole or not at all:
//   rgb    F32 [count, size, size, 3]  the RGB domain, in [0, 1]
//   ir     F32 [count, size, size]     the infrared-like domain, in [0, 1]
//   label  F32 [count, size, size]     class per pixel, 0 background .. C (exact)
// with __metadata__ generator, version, params and the content hash (of the
// fp64 output, before the rounding to fp32). The summary line goes to stderr.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>

#include "generators/segscenes.h"
#include "harness/cli/commands.h"
#include "harness/interrupt.h"
#include "harness/safetensors.h"

namespace cb::cli {
namespace {

struct GenSegScenesOptions {
  std::string out;
  cb::gen::SegScenesParams params;
};

int RunGenSegScenes(const GenSegScenesOptions& o) {
  if (std::filesystem::exists(o.out)) throw UsageError("--out " + o.out + ": already exists");
  cb::gen::SegScenes set;
  try {
    set = cb::gen::MakeSegScenes(o.params);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  const int64_t count = o.params.count, n = o.params.size;
  cb::harness::SafetensorsWriteTensor rgb{"F32", {count, n, n, 3}, {}}, ir{"F32", {count, n, n}, {}},
      label{"F32", {count, n, n}, {}};
  for (const cb::gen::SegScene& s : set.scenes) {
    rgb.values.insert(rgb.values.end(), s.rgb.begin(), s.rgb.end());
    ir.values.insert(ir.values.end(), s.ir.begin(), s.ir.end());
    label.values.insert(label.values.end(), s.label.begin(), s.label.end());
  }
  cb::harness::ThrowIfInterrupted();  // the check point before the one write
  cb::harness::WriteSafetensors(o.out, {{"rgb", rgb}, {"ir", ir}, {"label", label}},
                                {{"generator", cb::gen::kSegScenesName},
                                 {"version", std::to_string(cb::gen::kSegScenesVersion)},
                                 {"params", o.params.Canonical()},
                                 {"content_hash", set.hash.Hex()}});
  std::fprintf(stderr, "%d scenes of %dx%d -> %s (segscenes v%d, content hash %s)\n", o.params.count, o.params.size,
               o.params.size, o.out.c_str(), cb::gen::kSegScenesVersion, set.hash.Hex().c_str());
  return kExitOk;
}

}  // namespace

void AddGenSegScenesCommand(CLI::App& app, const CommandLine&, int* exit_code) {
  CLI::App* gen = CommandGroup(app, "gen", "Write procedural data sets");
  auto o = std::make_shared<GenSegScenesOptions>();
  CLI::App* c = gen->add_subcommand(
      "segscenes", "Segmentation scenes in an RGB and an infrared-like domain (UNIP), as safetensors");
  c->add_option("--out", o->out, "safetensors file to write (must not exist)")->required();
  c->add_option("--count", o->params.count, "Number of scenes")->capture_default_str();
  c->add_option("--size", o->params.size, "Image side in pixels (16..128)")->capture_default_str();
  c->add_option("--classes", o->params.classes, "Object classes besides the background (1..5)")
      ->capture_default_str();
  c->add_option("--min-objects", o->params.min_objects, "Fewest objects per scene")->capture_default_str();
  c->add_option("--max-objects", o->params.max_objects, "Most objects per scene (<= 12)")->capture_default_str();
  c->add_option("--seed", o->params.seed, "Generator seed")->capture_default_str();
  c->callback([o, exit_code] { *exit_code = RunGenSegScenes(*o); });
}

CB_REGISTER_COMMAND(gen_segscenes, AddGenSegScenesCommand);

}  // namespace cb::cli
