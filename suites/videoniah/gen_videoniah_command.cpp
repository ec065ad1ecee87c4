// File: suites/videoniah/gen_videoniah_command.cpp
// `claimbench gen videoniah --tasks ... --count N --seed S --out DIR`: writes
// VideoNIAH items (generators/videoniah.h) as Y4M videos plus the annotation
// in the VNBench release schema:
//   <video>.y4m                one per item (4:2:0, full-range BT.601)
//   VNBench-cb-4try.json       list of rows {video, question, options, gt,
//                              gt_option, needle_time, length, type, try}
//   manifest.json              generator, version, params, per-item content hash
//                              (of the RGB frames, not the file bytes), file hashes
// The folder is written under a temporary name and renamed, so it appears
// complete or not at all; an existing DIR is refused.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "generators/videoniah.h"
#include "harness/cli/commands.h"
#include "harness/cli/common.h"
#include "harness/hash.h"
#include "harness/progress.h"
#include "suites/videoniah/media.h"

namespace cb::cli {
namespace {

namespace fs = std::filesystem;
namespace gv = cb::gen::videoniah;

struct GenVideoNiahOptions {
  std::string tasks = "all";
  int count = 1;
  gv::Params params;
  std::string out;
  std::string format = "y4m";
};

// "all" or a comma-separated list of subtask keys.
std::vector<gv::Task> ParseTasks(const std::string& spec) {
  if (spec == "all") return gv::AllTasks();
  std::vector<gv::Task> out;
  std::stringstream ss(spec);
  std::string key;
  while (std::getline(ss, key, ',')) {
    auto t = gv::ParseTask(key);
    if (!t) {
      std::string known;
      for (gv::Task k : gv::AllTasks()) known += (known.empty() ? "" : ", ") + std::string(gv::TaskKey(k));
      throw UsageError("--tasks: unknown task '" + key + "' (known: " + known + ", or all)");
    }
    out.push_back(*t);
  }
  if (out.empty()) throw UsageError("--tasks: empty list");
  return out;
}

int RunGenVideoNiah(const GenVideoNiahOptions& o) {
  const std::vector<gv::Task> tasks = ParseTasks(o.tasks);
  if (o.count < 1 || o.count > 100000) throw UsageError("--count must be in [1, 100000]");
  if (o.format != "y4m")
    throw UsageError("--format '" + o.format + "': only y4m is built (MP4 needs libavcodec, not linked yet)");
  // Validate params (and placement) for every item before writing anything.
  std::vector<gv::Item> items;
  try {
    for (gv::Task t : tasks)
      for (int i = 0; i < o.count; ++i) items.push_back(gv::MakeItem(t, i, o.params));
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (o.out.empty()) throw UsageError("--out DIR is required");
  fs::path out(o.out);
  if (!out.has_filename() && out.has_parent_path()) out = out.parent_path();
  if (fs::exists(out)) throw UsageError("--out " + o.out + ": already exists (refusing to overwrite)");
  const fs::path parent = out.has_parent_path() ? out.parent_path() : fs::path(".");
  if (!fs::is_directory(parent)) throw UsageError("--out " + o.out + ": parent folder does not exist");

  gv::Renderer renderer(o.params);
  std::random_device rd;
  const fs::path tmp = parent / (out.filename().string() + ".tmp-" + std::to_string(rd()));
  fs::create_directory(tmp);
  try {
    cb::harness::ProgressBar bar(static_cast<int>(items.size()));
    nlohmann::json rows = nlohmann::json::array(), hashes = nlohmann::json::object();
    int64_t frames = 0;
    for (size_t k = 0; k < items.size(); ++k) {
      const gv::Item& it = items[k];
      cb::videoniah::Y4mWriter y4m((tmp / (it.video + ".y4m")).string(), o.params.width, o.params.height,
                                   o.params.fps);
      cb::harness::Hasher h;
      nlohmann::json head = {{"generator", gv::kVideoNiahName}, {"version", gv::kVideoNiahVersion},
                             {"params", gv::CanonicalParams(o.params)}, {"rows", nlohmann::json::array()}};
      for (int t = 0; t < 4; ++t) {
        rows.push_back(it.Annotation(t, o.params.fps));
        head["rows"].push_back(it.Annotation(t, o.params.fps));
      }
      h.Update(head.dump());
      gv::RenderItem(renderer, it, [&](int f, const gv::Frame& fr) {
        h.Update(std::string_view(reinterpret_cast<const char*>(fr.rgb.data()), fr.rgb.size()));
        y4m.Write(fr);
        ++frames;
        bar.Update(static_cast<int>(k), static_cast<double>(f + 1) / it.total_frames, it.video);
      });
      y4m.Close();
      hashes[it.video] = h.Digest().Hex();  // equals gv::ContentHash(renderer, it)
    }
    const std::string ann = rows.dump(1) + "\n";
    {
      std::ofstream f(tmp / "VNBench-cb-4try.json", std::ios::binary);
      f << ann;
      if (!f) throw std::runtime_error("cannot write the annotation file");
    }
    const nlohmann::json manifest = {{"generator", gv::kVideoNiahName},
                                     {"version", gv::kVideoNiahVersion},
                                     {"params", gv::CanonicalParams(o.params)},
                                     {"tasks", o.tasks},
                                     {"count", o.count},
                                     {"content_hashes", hashes},
                                     {"annotation_hash", cb::harness::Xxh3_128(ann).Hex()},
                                     {"frames", frames}};
    {
      std::ofstream f(tmp / "manifest.json", std::ios::binary);
      f << manifest.dump(2) << "\n";
      if (!f) throw std::runtime_error("cannot write manifest.json");
    }
    bar.Clear();
    fs::rename(tmp, out);
    std::printf("%s: %zu items (%lld frames, %dx%d at %d fps), annotation %s\n", o.out.c_str(), items.size(),
                static_cast<long long>(frames), o.params.width, o.params.height, o.params.fps,
                (out / "VNBench-cb-4try.json").string().c_str());
  } catch (...) {
    std::error_code ec;
    fs::remove_all(tmp, ec);
    throw;
  }
  return kExitOk;
}

}  // namespace

void AddGenVideoNiahCommand(CLI::App& app, const CommandLine&, int* exit_code) {
  CLI::App* gen = CommandGroup(app, "gen", "Write procedural data sets");
  auto o = std::make_shared<GenVideoNiahOptions>();
  CLI::App* c = gen->add_subcommand("videoniah", "VideoNIAH needle videos for the nine VNBench subtasks (Y4M + annotation)");
  c->add_option("--tasks", o->tasks, "Comma-separated subtask keys (ret_edit1, ..., cnt_insert1) or all")
      ->capture_default_str();
  c->add_option("--count", o->count, "Items per subtask")->capture_default_str();
  c->add_option("--seed", o->params.seed, "Seed")->capture_default_str();
  c->add_option("--out", o->out, "Output folder (must not exist)")->required();
  c->add_option("--width", o->params.width, "Frame width (even)")->capture_default_str();
  c->add_option("--height", o->params.height, "Frame height (even)")->capture_default_str();
  c->add_option("--fps", o->params.fps, "Frames per second")->capture_default_str();
  c->add_option("--min-seconds", o->params.min_seconds, "Shortest haystack")->capture_default_str();
  c->add_option("--max-seconds", o->params.max_seconds, "Longest haystack")->capture_default_str();
  c->add_option("--needle-seconds", o->params.needle_seconds, "How long a needle lasts")->capture_default_str();
  c->add_option("--frames", o->params.sample_frames, "K: every needle is visible among K uniform frames")
      ->capture_default_str();
  c->add_option("--format", o->format, "y4m")->capture_default_str();
  c->callback([o, exit_code] { *exit_code = RunGenVideoNiah(*o); });
}

CB_REGISTER_COMMAND(gen_videoniah, AddGenVideoNiahCommand);

}  // namespace cb::cli
