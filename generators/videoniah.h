// File: generators/videoniah.h
// -----------------------------------------------------------------------------
// VideoNIAH needle videos for the nine VNBench subtasks (brief
// generators-videoniah-sgp-cbplm.md §1.2, §1.5): a procedural haystack (a
// panned and zoomed texture, a drifting gradient, moving striped shapes,
// per-pixel noise) with needles that are unrelated to it, and a question
// whose answer follows from the needles alone:
//
//   edit    a gray subtitle box (RGB 80/80/80, centred at 85% of the height)
//           with white text "The secret word is <Name>." drawn with FreeType
//           (DejaVu Sans), or emoji object sprites pasted into the frame;
//   insert  full-frame pictures (one emoji, Noto Color Emoji through FreeType's
//           FT_LOAD_COLOR, centred on a plain card) spliced between frames, so
//           the video gets longer.
//
// Placement: a needle lasts D = round(needle_seconds * fps) frames, and each
// must be visible under uniform K-frame sampling (frame indices
// round(i * (N - 1) / (K - 1)), i = 0..K-1, the reference inference's
// linspace). So n distinct sampled frames are drawn uniformly, each needle's
// start is uniform among the D starts whose frames cover its sampled frame,
// and a draw is rejected unless consecutive needles leave a gap of at least
// D frames (bounded retries; an impossible layout is an error).
//
// Options: 4 distinct, one correct; orderings are 4 distinct permutations of
// the true order joined by ", "; counts from 1..6 (cnt_edit2: the truth and
// three of truth +-1..3, all >= 1). Each item carries 4 tries whose option
// orders are independent seeded shuffles (not rotations).
//
// Determinism (DESIGN §4): an item is a pure function of (kVideoNiahName,
// kVideoNiahVersion, params); item i of task t draws from
// Rng(seed, (t << 32) | i) with sub-streams per purpose. Pixels use integer
// arithmetic only (no libm), so frames are bit-identical across platforms
// given the same font files; ContentHash() covers the annotation rows and the
// RGB bytes of every frame. Changing output on purpose bumps kVideoNiahVersion.
#ifndef CB_GENERATORS_VIDEONIAH_H_
#define CB_GENERATORS_VIDEONIAH_H_

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace cb::gen::videoniah {

inline constexpr char kVideoNiahName[] = "videoniah";
inline constexpr int kVideoNiahVersion = 1;

// The nine subtasks, named by the release's file suffixes. The paper's I-1
// (fruit) is kRetInsert1 and I-2 (landmark) is kRetInsert2 here; the release
// labels them the other way round in its `type` field (brief §1.2).
enum class Task {
  kRetEdit1, kRetInsert1, kRetInsert2,
  kOrdEdit1, kOrdInsert1, kOrdInsert2,
  kCntEdit1, kCntEdit2, kCntInsert1,
};
inline constexpr int kNumTasks = 9;
std::string_view TaskKey(Task t);                 // "ret_edit1", ...
std::optional<Task> ParseTask(std::string_view key);
std::vector<Task> AllTasks();

// The release's options block that ends every prompt.
inline constexpr char kPromptSuffix[] = "Answer with the option's letter from the given choices directly.";

// Label pools (the pictures are emoji; landmark names are the landmark each
// emoji depicts).
const std::vector<std::string>& SecretNames();  // 26, A..Z
const std::vector<std::string>& Fruits();       // 12, the release's list
const std::vector<std::string>& Landmarks();
const std::vector<std::string>& VocClasses();   // 20 PASCAL-VOC classes
std::string VocPlural(const std::string& voc_class);  // "people", "flowers", "sheep", ...

struct Params {
  uint64_t seed = 20250101;
  int width = 640, height = 360;   // REQUIRES: even, 64..4096
  int fps = 8;
  int min_seconds = 10, max_seconds = 30;  // haystack length, uniform
  double needle_seconds = 1.5;
  int sample_frames = 16;          // K of the visibility rule
};
nlohmann::json CanonicalParams(const Params& p);

// One of the 4 tries of an item: the release's annotation row.
struct TryRow {
  std::array<std::string, 4> options;
  int gt_index = 0;  // 0..3
  char GtOption() const { return static_cast<char>('A' + gt_index); }
};

// An item: everything about one video except its pixels.
struct Item {
  Task task = Task::kRetEdit1;
  int index = 0;
  std::string video;                    // "cbniah_<task>_<index>"
  std::string question;
  std::string gt;                       // answer text
  std::array<TryRow, 4> tries;
  std::vector<double> needle_time;      // start times, seconds (final timeline)
  // Rendering plan (generator metadata; the oracle never reads it).
  int haystack_frames = 0, total_frames = 0, needle_frames = 0;
  std::vector<int> needle_start;        // first frame of each needle, final timeline
  std::vector<std::string> needle_label;  // name / fruit / landmark / VOC class
  std::vector<std::vector<std::array<int, 2>>> sprite_xy;  // cnt_edit2: top-left per sprite
  int sprite_size = 0;
  double LengthSeconds(int fps) const { return static_cast<double>(total_frames) / fps; }
  // The release's annotation row for try t (0..3).
  nlohmann::json Annotation(int t, int fps) const;
  // The full prompt for try t.
  std::string Prompt(int t) const;
};

// The K-frame rule's frame indices for an n-frame video:
// round(i * (n - 1) / (K - 1)), i = 0..K-1 (numpy linspace, rounded half up).
std::vector<int> SampledFrameIndices(int n, int k);

// The item's metadata (cheap; no pixels). Throws std::invalid_argument on bad
// params or a video too short for its needles. `haystack_frames` > 0: the
// haystack is a given video of that many frames (a user's clip, see
// HaystackSource) instead of a procedural one of drawn length; too short for
// the needles (fewer than MinHaystackFrames) is an error, not padded.
Item MakeItem(Task task, int index, const Params& p, int haystack_frames = 0);
// The fewest haystack frames the task's needles need (n needles, gaps of 2D).
int MinHaystackFrames(Task task, const Params& p);

// RGB frame, rows top to bottom.
struct Frame {
  int width = 0, height = 0;
  std::vector<uint8_t> rgb;  // [height][width][3]
  bool operator==(const Frame&) const = default;
};

// A haystack that is not procedural: e.g. a user's video, decoded and scaled
// to the params' frame size (suites/videoniah/media.h: DecodedHaystack).
class HaystackSource {
 public:
  virtual ~HaystackSource() = default;
  virtual int frames() const = 0;
  // Frame f (0 <= f < frames()), RGB at the renderer's width x height.
  virtual void Get(int f, Frame* out) const = 0;
};

// Renders frames; owns the fonts and a cache of glyph bitmaps. Not
// thread-safe (one per thread).
class Renderer {
 public:
  explicit Renderer(const Params& p);  // throws std::runtime_error if a font is missing
  ~Renderer();
  Renderer(const Renderer&) = delete;
  Renderer& operator=(const Renderer&) = delete;

  // Haystack frame f (0-based) of item `video_seed` (a per-item key), or of
  // the source set with SetHaystack (then `video_seed` is ignored).
  void Haystack(uint64_t video_seed, int f, Frame* out) const;
  // Use `src` (not owned; must outlive its use; nullptr: procedural again) as
  // the haystack of the items rendered next. The item must have been made
  // with MakeItem(..., src->frames()).
  void SetHaystack(const HaystackSource* src) { haystack_ = src; }
  const HaystackSource* haystack() const { return haystack_; }
  // Frame f of the item's final timeline.
  void ItemFrame(const Item& item, int f, Frame* out);
  // The haystack frame index shown at final frame f, or -1 for an inserted frame.
  static int HaystackIndex(const Item& item, int f);
  // Overlays: the subtitle for `name`; the full-frame picture of `label`;
  // sprites of `label` at top-left corners `xy`.
  void DrawSubtitle(const std::string& name, Frame* f);
  void InsertPicture(const std::string& label, Frame* f);
  void PasteSprites(const std::string& label, const std::vector<std::array<int, 2>>& xy, int size, Frame* f);
  static uint64_t VideoSeed(const Item& item, const Params& p);
  const Params& params() const { return p_; }

 private:
  struct Impl;
  Params p_;
  std::unique_ptr<Impl> impl_;
  const HaystackSource* haystack_ = nullptr;
};

// Calls `sink(f, frame)` for every frame of the item in order.
void RenderItem(Renderer& r, const Item& item, const std::function<void(int, const Frame&)>& sink);

// XXH3-128 over name, version, canonical params, the 4 annotation rows and
// every frame's RGB bytes (hex).
std::string ContentHash(Renderer& r, const Item& item);

// The oracle: answers try t of an item from the rendered frames alone, given
// the question and options (what a model sees) and the haystack it can
// regenerate: frames that are not the next haystack frame are inserts;
// frames that differ from theirs are edits; a subtitle or picture is
// identified by rendering each option's candidate and comparing exactly;
// sprites are counted as connected components of the difference. Returns the
// letter index 0..3, or -1 when no option fits (a broken key).
struct OracleInput {
  Task task;
  std::string question;
  std::array<std::string, 4> options;
};
class Oracle {
 public:
  Oracle(Renderer& r, const OracleInput& in, uint64_t video_seed);
  void Observe(int f, const Frame& frame);  // every frame, in order
  int Answer() const;

 private:
  struct Event {
    std::string label;  // recognised label, "" for an unidentified edit
    int count = 0;      // sprites
  };
  Renderer& r_;
  OracleInput in_;
  uint64_t video_seed_;
  int hay_next_ = 0;
  bool in_needle_ = false;
  std::vector<Event> events_;  // one per run of needle frames
  Frame hay_;
};

}  // namespace cb::gen::videoniah

#endif  // CB_GENERATORS_VIDEONIAH_H_
