// File: generators/regions.h
// -----------------------------------------------------------------------------
// Synthetic region-grounding "scans" for MedRegA's region-centric tasks (brief
// other-papers.md §6, issue 27): grey-level images with organ-like blobs and
// lesions at known boxes, four modalities that differ by contrast, and
// questions in the paper's three task formats:
//   text-to-region  ss (one organ), sm (every lesion: one name, several
//                   boxes), ms (every organ: one box each), mm (organs and
//                   lesions, several boxes per name); ground truth
//                   `<ref>name</ref><box>[[x1, y1, x2, y2], ...]</box>`
//   region-to-text  r2t: the structure inside a given box, one word
//   grounded report rg: "<organ> [[box]] ... lesion [[box]] ..." sentences
// Boxes are on MedRegA's 0-999 grid: g = round(p * 999 / W) of the pixel box
// [x1, y1, x2 + 1, y2 + 1) of the structure's visible pixels.
//
// Rendering: a body ellipse; 3-4 organs (per-modality set, lungs come in
// pairs), each a blob r(θ) = r0 (1 + a sin(kθ + φ)) at its modality's grey
// level, never overlapping; 2-3 lesions, small ellipses strictly inside an
// organ (at least 3 px from its edge), at the modality's lesion level
// (hypodense on CT, hyperintense on MRI, bright nodules on X-ray, dark cysts
// on ultrasound); uniform integer noise of at most kNoise levels. Levels of
// one modality are at least 25 apart, so a pixel's class follows from its
// value (Legend) and every answer follows from the pixels (the oracle in
// suites/medrega/pixel_oracle.h).
//
// Deterministic: a scan is a pure function of (seed, index, size), content
// hashed (ContentHash) with kRegionsVersion.
#ifndef CB_GENERATORS_REGIONS_H_
#define CB_GENERATORS_REGIONS_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cb::gen::regions {

inline constexpr const char* kRegionsName = "regions";
inline constexpr int kRegionsVersion = 1;
inline constexpr int kNoise = 4;  // |pixel - level| <= kNoise

enum class Modality { kCt, kMri, kXray, kUltrasound };
const char* ModalityName(Modality m);  // "ct" | "mri" | "xray" | "ultrasound"
std::vector<Modality> AllModalities();

// A modality's contrast: what a reader of the image knows.
struct Legend {
  int background = 0, body = 0, lesion = 0;
  std::vector<std::pair<std::string, int>> organs;  // name, grey level
  std::string lesion_word;                          // "lesion"
};
const Legend& LegendFor(Modality m);

struct Structure {
  std::string name;            // organ name or "lesion"
  int organ = -1;              // a lesion's organ (index into organs); -1 for an organ
  std::array<int, 4> pixel_box{};  // x1, y1, x2, y2 (exclusive) of its pixels
  std::array<int, 4> grid_box{};   // on the 0-999 grid
};

enum class Task { kSs, kSm, kMs, kMm, kR2t, kRg };
const char* TaskKey(Task t);  // the reference's keys: ss, sm, ms, mm, r2t, rg
std::vector<Task> AllTasks();

struct Question {
  Task task = Task::kSs;
  std::string prompt;
  std::string gt;                    // the scorer's ground truth (ref/box text or words)
  std::vector<std::string> names;    // the structures asked about (text-to-region)
  std::array<int, 4> region{};       // r2t: the grid box asked about
};

struct Scan {
  int index = 0;
  Modality modality = Modality::kCt;
  int width = 0, height = 0;
  std::vector<uint8_t> pixels;     // [height][width], row-major, grey
  std::vector<Structure> organs, lesions;
  std::vector<Question> questions;  // one per task, AllTasks() order
};

struct Params {
  uint64_t seed = 0;
  int count = 20;   // scans
  int size = 256;   // width = height, in [96, 1024]
};

nlohmann::json CanonicalParams(const Params& p);

// Scan `index` of the data set; throws std::invalid_argument on bad params.
Scan MakeScan(const Params& p, int index);
std::vector<Scan> Generate(const Params& p);

// Pixel box -> grid box, g = round(v * 999 / extent).
std::array<int, 4> ToGrid(const std::array<int, 4>& pixel_box, int width, int height);

// ` name [[...]] ...` answers and `<ref>` ground truth from structures.
std::string RefBox(const std::string& name, const std::vector<std::array<int, 4>>& grid_boxes);

// The grounded report for organs and lesions, in the order given (what the
// rg ground truth and the pixel oracle both write).
std::string Report(const std::vector<Structure>& organs, const std::vector<Structure>& lesions);

// Hash of pixels, structures and questions of every scan, with the version.
std::string ContentHash(const std::vector<Scan>& scans);

}  // namespace cb::gen::regions

#endif  // CB_GENERATORS_REGIONS_H_
