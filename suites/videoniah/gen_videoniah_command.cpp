// File: suites/videoniah/gen_videoniah_command.cpp
// `claimbench gen videoniah --tasks ... --count N --seed S --out DIR
// [--format mp4|y4m] [--crf N] [--haystack FILE ...]`: writes VideoNIAH items
// (generators/videoniah.h) plus the annotation in the VNBench release schema:
//   <video>.mp4 | <video>.y4m  one per item; MP4 is H.264 (libx264), lossless
//                              by default (crf 0); both carry the same 4:2:0
//                              full-range BT.601 frames
//   VNBench-cb-4try.json       list of rows {video, question, options, gt,
//                              gt_option, needle_time, length, type, try}
//   manifest.json              generator, version, params, per-item content hash
//                              (of the RGB frames, not the file bytes), per-item
//                              decoded-frame hash (I420 bytes a decoder returns),
//                              the user haystacks used, if any
// With --haystack, item k (counted over all tasks) is edited into user video
// k mod H, decoded and scaled to the frame size (video_io.h). Every input is
// checked before anything is written. The folder is written under a temporary
// name and renamed, so it appears complete or not at all; an existing DIR is
// refused.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "generators/videoniah.h"
#include "harness/atomic_file.h"
#include "harness/cli/commands.h"
#include "harness/hash.h"
#include "harness/interrupt.h"
#include "harness/progress.h"
#include "suites/videoniah/media.h"
#include "suites/videoniah/video_io.h"

namespace cb::cli {
namespace {

namespace fs = std::filesystem;
namespace gv = cb::gen::videoniah;

struct GenVideoNiahOptions {
  std::string tasks = "all";
  int count = 1;
  gv::Params params;
  std::string out;
  std::string format = "mp4";
  int crf = 0;
  std::string preset = "ultrafast";  // lossless veryfast is 4x slower for 12% smaller files
  std::vector<std::string> haystacks;
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

// Writes one item's frames in the chosen format; returns the XXH3-128 of the
// I420 bytes written (what a lossless decoder returns).
class ItemWriter {
 public:
  ItemWriter(const fs::path& base, const GenVideoNiahOptions& o) : format_(o.format) {
    const gv::Params& p = o.params;
    if (format_ == "y4m") {
      path_ = base.string() + ".y4m";
      y4m_ = std::make_unique<cb::videoniah::Y4mWriter>(path_, p.width, p.height, p.fps);
    } else {
      path_ = base.string() + ".mp4";
      mp4_ = std::make_unique<cb::videoniah::Mp4Writer>(path_, p.width, p.height, p.fps,
                                                        cb::videoniah::Mp4Options{o.crf, o.preset, 0});
    }
  }
  void Write(const gv::Frame& fr) {
    cb::videoniah::RgbToI420(fr, &i420_);
    hash_.Update(i420_);
    if (y4m_) {
      y4m_->Write(fr);  // converts again: the Y4M writer owns its format
    } else {
      mp4_->WriteI420(i420_);
    }
  }
  std::string Close() {
    if (y4m_) y4m_->Close();
    if (mp4_) mp4_->Close();
    return hash_.Digest().Hex();
  }
  const std::string& path() const { return path_; }

 private:
  std::string format_, path_, i420_;
  std::unique_ptr<cb::videoniah::Y4mWriter> y4m_;
  std::unique_ptr<cb::videoniah::Mp4Writer> mp4_;
  cb::harness::Hasher hash_;
};

int RunGenVideoNiah(const GenVideoNiahOptions& o) {
  const std::vector<gv::Task> tasks = ParseTasks(o.tasks);
  if (o.count < 1 || o.count > 100000) throw UsageError("--count must be in [1, 100000]");
  if (o.format != "y4m" && o.format != "mp4") throw UsageError("--format '" + o.format + "': use mp4 or y4m");
  if (o.crf < 0 || o.crf > 51) throw UsageError("--crf must be in [0, 51] (0: lossless)");
  if (o.format == "y4m" && o.crf != 0) throw UsageError("--crf applies to --format mp4 only");
  static const std::vector<std::string> kPresets = {"ultrafast", "superfast", "veryfast", "faster", "fast",
                                                    "medium",    "slow",      "slower",   "veryslow"};
  if (std::find(kPresets.begin(), kPresets.end(), o.preset) == kPresets.end())
    throw UsageError("--preset '" + o.preset + "': use ultrafast, superfast, veryfast, faster, fast, medium, slow, "
                     "slower or veryslow");
  if (o.out.empty()) throw UsageError("--out DIR is required");
  fs::path out(o.out);
  if (!out.has_filename() && out.has_parent_path()) out = out.parent_path();
  if (fs::exists(out)) throw UsageError("--out " + o.out + ": already exists (refusing to overwrite)");
  const fs::path parent = out.has_parent_path() ? out.parent_path() : fs::path(".");
  if (!fs::is_directory(parent)) throw UsageError("--out " + o.out + ": parent folder does not exist");
  if (o.format == "mp4") cb::videoniah::RequireH264Encoder();
  try {
    gv::MakeItem(tasks[0], 0, o.params);  // params errors first, before decoding any video
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  // User haystacks: decode every one now, so a bad file fails before output.
  std::vector<std::unique_ptr<cb::videoniah::DecodedHaystack>> hay;
  for (const std::string& path : o.haystacks)
    hay.push_back(std::make_unique<cb::videoniah::DecodedHaystack>(path, o.params));  // throws one line naming it
  // Validate params (and placement) for every item before writing anything.
  std::vector<gv::Item> items;
  std::vector<int> item_haystack;  // index into hay, or -1
  for (gv::Task t : tasks) {
    for (int i = 0; i < o.count; ++i) {
      const int hk = hay.empty() ? -1 : static_cast<int>(items.size() % hay.size());
      try {
        items.push_back(gv::MakeItem(t, i, o.params, hk < 0 ? 0 : hay[hk]->frames()));
      } catch (const std::invalid_argument& e) {
        throw UsageError((hk < 0 ? std::string() : "--haystack " + hay[hk]->path() + ": ") + e.what());
      }
      item_haystack.push_back(hk);
    }
  }

  gv::Renderer renderer(o.params);
  int64_t frames = 0;
  cb::harness::WriteDirectoryAtomically(out, [&](const fs::path& tmp) {
    cb::harness::ProgressBar bar(static_cast<int>(items.size()));
    nlohmann::json rows = nlohmann::json::array(), hashes = nlohmann::json::object(),
                   decoded = nlohmann::json::object(), used = nlohmann::json::object();
    for (size_t k = 0; k < items.size(); ++k) {
      // The check point: the temporary folder is removed, nothing is written.
      cb::harness::ThrowIfInterrupted("after " + std::to_string(k) + " of " + std::to_string(items.size()) +
                                      " items");
      const gv::Item& it = items[k];
      renderer.SetHaystack(item_haystack[k] < 0 ? nullptr : hay[item_haystack[k]].get());
      if (item_haystack[k] >= 0) used[it.video] = hay[item_haystack[k]]->path();
      ItemWriter writer(tmp / it.video, o);
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
        writer.Write(fr);
        ++frames;
        bar.Update(static_cast<int>(k), static_cast<double>(f + 1) / it.total_frames, it.video);
      });
      const std::string written = writer.Close();
      hashes[it.video] = h.Digest().Hex();  // equals gv::ContentHash(renderer, it)
      if (o.format == "mp4") {
        // Hash what a decoder returns; lossless must give back what went in.
        const cb::videoniah::DecodedHash d = cb::videoniah::HashDecodedI420(writer.path());
        if (o.crf == 0 && (d.hex != written || d.frames != it.total_frames))
          throw std::runtime_error(writer.path() + ": lossless H.264 did not decode to the frames written");
        decoded[it.video] = d.hex;
      } else {
        decoded[it.video] = written;
      }
    }
    renderer.SetHaystack(nullptr);
    const std::string ann = rows.dump(1) + "\n";
    {
      std::ofstream f(tmp / "VNBench-cb-4try.json", std::ios::binary);
      f << ann;
      if (!f) throw std::runtime_error("cannot write the annotation file");
    }
    nlohmann::json manifest = {{"generator", gv::kVideoNiahName},
                               {"version", gv::kVideoNiahVersion},
                               {"params", gv::CanonicalParams(o.params)},
                               {"tasks", o.tasks},
                               {"count", o.count},
                               {"format", o.format},
                               {"content_hashes", hashes},
                               {"decoded_i420_hashes", decoded},
                               {"annotation_hash", cb::harness::Xxh3_128(ann).Hex()},
                               {"frames", frames}};
    if (o.format == "mp4") manifest["mp4"] = {{"codec", "libx264"}, {"crf", o.crf}, {"preset", o.preset},
                                              {"lossless", o.crf == 0}, {"libavcodec", cb::videoniah::LibavcodecVersion()}};
    if (!hay.empty()) {
      nlohmann::json list = nlohmann::json::array();
      for (const auto& hs : hay)
        list.push_back({{"file", hs->path()}, {"frames", hs->frames()}, {"rgb_hash", hs->ContentHash()}});
      manifest["haystacks"] = list;
      manifest["item_haystack"] = used;
    }
    {
      std::ofstream f(tmp / "manifest.json", std::ios::binary);
      f << manifest.dump(2) << "\n";
      if (!f) throw std::runtime_error("cannot write manifest.json");
    }
    bar.Clear();
  });
  std::printf("%s: %zu items (%lld frames, %dx%d at %d fps, %s), annotation %s\n", o.out.c_str(), items.size(),
              static_cast<long long>(frames), o.params.width, o.params.height, o.params.fps,
              o.format == "mp4" ? (o.crf == 0 ? "H.264 lossless" : ("H.264 crf " + std::to_string(o.crf)).c_str())
                                : "Y4M",
              (out / "VNBench-cb-4try.json").string().c_str());
  return kExitOk;
}

}  // namespace

void AddGenVideoNiahCommand(CLI::App& app, const CommandLine&, int* exit_code) {
  CLI::App* gen = CommandGroup(app, "gen", "Write procedural data sets");
  auto o = std::make_shared<GenVideoNiahOptions>();
  CLI::App* c = gen->add_subcommand("videoniah", "VideoNIAH needle videos for the nine VNBench subtasks (MP4 or Y4M + annotation)");
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
  c->add_option("--format", o->format, "mp4 (H.264, libx264) or y4m (uncompressed)")->capture_default_str();
  c->add_option("--crf", o->crf, "MP4 quality: 0 lossless (default), 1-51 lossy (x264 crf)")->capture_default_str();
  c->add_option("--preset", o->preset, "x264 speed preset (ultrafast ... veryslow)")->capture_default_str();
  c->add_option("--haystack", o->haystacks, "Your own videos as haystacks (item k uses file k mod count)")
      ->expected(1, -1);
  c->callback([o, exit_code] { *exit_code = RunGenVideoNiah(*o); });
}

CB_REGISTER_COMMAND(gen_videoniah, AddGenVideoNiahCommand);

}  // namespace cb::cli
