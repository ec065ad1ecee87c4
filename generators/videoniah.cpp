// File: generators/videoniah.cpp
// -----------------------------------------------------------------------------
// VideoNIAH items, frames and the oracle (see videoniah.h for the rules).
// Pixels use integer arithmetic only, so frames are bit-identical across
// platforms and compilers given the same font files.
#include "generators/videoniah.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include <ft2build.h>
#include FT_FREETYPE_H

#include "harness/hash.h"
#include "harness/random.h"

#ifndef CB_DEJAVU_FONT
#define CB_DEJAVU_FONT ""
#endif
#ifndef CB_EMOJI_FONT
#define CB_EMOJI_FONT ""
#endif

namespace cb::gen::videoniah {
namespace {

using cb::harness::Rng;

constexpr const char* kTaskKeys[kNumTasks] = {"ret_edit1", "ret_insert1", "ret_insert2",
                                              "ord_edit1", "ord_insert1", "ord_insert2",
                                              "cnt_edit1", "cnt_edit2",   "cnt_insert1"};

// Emoji for every picture label. Landmarks are named by what the emoji shows.
const std::map<std::string, uint32_t>& EmojiCodepoints() {
  static const std::map<std::string, uint32_t> m = {
      // Fruits (the release's 12).
      {"apple", 0x1F34E}, {"banana", 0x1F34C}, {"blueberry", 0x1FAD0}, {"coconut", 0x1F965},
      {"grapes", 0x1F347}, {"kiwifruit", 0x1F95D}, {"lemon", 0x1F34B}, {"mango", 0x1F96D},
      {"orange", 0x1F34A}, {"peach", 0x1F351}, {"pear", 0x1F350}, {"strawberry", 0x1F353},
      // Landmarks.
      {"Statue of Liberty", 0x1F5FD}, {"Tokyo Tower", 0x1F5FC}, {"Mount Fuji", 0x1F5FB},
      {"Moai", 0x1F5FF}, {"Kaaba", 0x1F54B},
      // PASCAL-VOC classes ("dining table": no table emoji exists; the place
      // setting stands in for it).
      {"aeroplane", 0x2708}, {"bicycle", 0x1F6B2}, {"bird", 0x1F426}, {"boat", 0x26F5},
      {"bottle", 0x1F37E}, {"bus", 0x1F68C}, {"car", 0x1F697}, {"cat", 0x1F408},
      {"chair", 0x1FA91}, {"cow", 0x1F404}, {"dining table", 0x1F37D}, {"dog", 0x1F415},
      {"horse", 0x1F40E}, {"motorbike", 0x1F3CD}, {"person", 0x1F9CD}, {"potted plant", 0x1FAB4},
      {"sheep", 0x1F411}, {"sofa", 0x1F6CB}, {"train", 0x1F686}, {"tv monitor", 0x1F4FA}};
  return m;
}

bool IsInsert(Task t) {
  return t == Task::kRetInsert1 || t == Task::kRetInsert2 || t == Task::kOrdInsert1 ||
         t == Task::kOrdInsert2 || t == Task::kCntInsert1;
}
bool IsSubtitle(Task t) { return t == Task::kRetEdit1 || t == Task::kOrdEdit1 || t == Task::kCntEdit1; }

int NeedleFrames(const Params& p) { return std::max(1, static_cast<int>(p.needle_seconds * p.fps + 0.5)); }

// Sampled frame indices of the K-frame rule: round(i * (N - 1) / (K - 1)).
std::vector<int> SampledFrames(int n, int k) {
  std::vector<int> s(k);
  for (int i = 0; i < k; ++i) s[i] = static_cast<int>((2LL * i * (n - 1) + (k - 1)) / (2LL * (k - 1)));
  return s;
}

template <class T>
std::vector<T> Pick(Rng& rng, const std::vector<T>& pool, size_t n) {
  std::vector<T> v = pool;
  rng.Shuffle(std::span<T>(v));
  v.resize(n);
  return v;
}

std::string JoinOrder(const std::vector<std::string>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
  return s;
}

// Four distinct options with the truth first: `others` are candidates drawn in order.
std::array<std::string, 4> OptionSet(const std::string& truth, const std::vector<std::string>& candidates) {
  std::array<std::string, 4> o{truth, "", "", ""};
  int k = 1;
  for (const auto& c : candidates) {
    if (k == 4) break;
    if (std::find(o.begin(), o.begin() + k, c) == o.begin() + k) o[k++] = c;
  }
  if (k < 4) throw std::logic_error("videoniah: fewer than 4 distinct options");
  return o;
}

uint32_t Mix(uint32_t h) {
  h ^= h >> 16;
  h *= 0x7FEB352Du;
  h ^= h >> 15;
  h *= 0x846CA68Bu;
  h ^= h >> 16;
  return h;
}

int Tri(int64_t t, int len) {  // triangle wave in [0, len]
  if (len <= 0) return 0;
  int64_t m = t % (2LL * len);
  if (m < 0) m += 2LL * len;
  return static_cast<int>(m <= len ? m : 2LL * len - m);
}

uint8_t Clamp8(int v) { return static_cast<uint8_t>(v < 0 ? 0 : v > 255 ? 255 : v); }

}  // namespace

std::vector<int> SampledFrameIndices(int n, int k) { return SampledFrames(n, k); }

std::string_view TaskKey(Task t) { return kTaskKeys[static_cast<int>(t)]; }

std::optional<Task> ParseTask(std::string_view key) {
  for (int i = 0; i < kNumTasks; ++i)
    if (key == kTaskKeys[i]) return static_cast<Task>(i);
  return std::nullopt;
}

std::vector<Task> AllTasks() {
  std::vector<Task> v;
  for (int i = 0; i < kNumTasks; ++i) v.push_back(static_cast<Task>(i));
  return v;
}

const std::vector<std::string>& SecretNames() {
  static const std::vector<std::string> v = {
      "Alice", "Bob",    "Charlie", "David",  "Emma",  "Frank", "Grace", "Henry",  "Ivy",
      "Jack",  "Kate",   "Leo",     "Mia",    "Noah",  "Olivia", "Peter", "Quinn", "Ryan",
      "Sophia", "Tom",   "Uma",     "Victor", "Wendy", "Xavier", "Yara",  "Zach"};
  return v;
}
const std::vector<std::string>& Fruits() {
  static const std::vector<std::string> v = {"apple", "banana", "blueberry", "coconut", "grapes", "kiwifruit",
                                             "lemon", "mango",  "orange",    "peach",   "pear",   "strawberry"};
  return v;
}
const std::vector<std::string>& Landmarks() {
  static const std::vector<std::string> v = {"Statue of Liberty", "Tokyo Tower", "Mount Fuji", "Moai", "Kaaba"};
  return v;
}
const std::vector<std::string>& VocClasses() {
  static const std::vector<std::string> v = {
      "aeroplane", "bicycle", "bird",  "boat",      "bottle", "bus",          "car",
      "cat",       "chair",   "cow",   "dining table", "dog", "horse",        "motorbike",
      "person",    "potted plant", "sheep", "sofa",  "train", "tv monitor"};
  return v;
}
std::string VocPlural(const std::string& c) {
  if (c == "person") return "people";
  if (c == "potted plant") return "flowers";
  if (c == "sheep") return "sheep";
  if (c == "bus") return "buses";
  return c + "s";
}

nlohmann::json CanonicalParams(const Params& p) {
  return {{"seed", p.seed},
          {"width", p.width},
          {"height", p.height},
          {"fps", p.fps},
          {"min_seconds", p.min_seconds},
          {"max_seconds", p.max_seconds},
          {"needle_seconds", p.needle_seconds},
          {"sample_frames", p.sample_frames}};
}

nlohmann::json Item::Annotation(int t, int fps) const {
  const TryRow& r = tries.at(t);
  return {{"video", video},
          {"question", question},
          {"options", r.options},
          {"gt", gt},
          {"gt_option", std::string(1, r.GtOption())},
          {"needle_time", needle_time},
          {"length", LengthSeconds(fps)},
          {"type", std::string(TaskKey(task))},
          {"try", t}};
}

std::string Item::Prompt(int t) const {
  const TryRow& r = tries.at(t);
  std::string s = question;
  for (int i = 0; i < 4; ++i) s += "\n" + std::string(1, static_cast<char>('A' + i)) + ". " + r.options[i];
  return s + "\n" + kPromptSuffix;
}

namespace {
int NeedleCount(Task t) {
  switch (t) {
    case Task::kRetEdit1: case Task::kRetInsert1: case Task::kRetInsert2: return 1;
    case Task::kCntEdit1: case Task::kCntInsert1: return 6;  // the most a count item draws
    default: return 4;
  }
}
int NeededFrames(int n, int d) { return 4 * n * d + 2 * d; }  // room for n needles with gaps
}  // namespace

int MinHaystackFrames(Task task, const Params& p) { return NeededFrames(NeedleCount(task), NeedleFrames(p)); }

Item MakeItem(Task task, int index, const Params& p, int haystack_frames) {
  if (p.width < 64 || p.height < 64 || p.width > 4096 || p.height > 4096 || p.width % 2 || p.height % 2)
    throw std::invalid_argument("videoniah: width and height must be even and in [64, 4096]");
  if (p.fps < 1 || p.fps > 120) throw std::invalid_argument("videoniah: fps must be in [1, 120]");
  if (p.min_seconds < 1 || p.max_seconds < p.min_seconds || p.max_seconds > 3600)
    throw std::invalid_argument("videoniah: need 1 <= min_seconds <= max_seconds <= 3600");
  if (!(p.needle_seconds > 0 && p.needle_seconds <= 10))
    throw std::invalid_argument("videoniah: needle_seconds must be in (0, 10]");
  if (p.sample_frames < 2 || p.sample_frames > 1024)
    throw std::invalid_argument("videoniah: sample_frames (K) must be in [2, 1024]");
  if (index < 0) throw std::invalid_argument("videoniah: negative item index");
  if (haystack_frames < 0) throw std::invalid_argument("videoniah: negative haystack length");

  const uint64_t stream = (static_cast<uint64_t>(task) << 32) | static_cast<uint32_t>(index);
  Rng rng(p.seed, stream);  // labels and options
  Item it;
  it.task = task;
  it.index = index;
  it.video = "cbniah_" + std::string(TaskKey(task)) + "_" + std::to_string(index);
  const int d = NeedleFrames(p);
  it.needle_frames = d;

  auto others_from = [&](const std::vector<std::string>& pool) { return Pick(rng, pool, pool.size()); };
  std::array<std::string, 4> options;
  switch (task) {
    case Task::kRetEdit1:
    case Task::kRetInsert1:
    case Task::kRetInsert2: {
      const auto& pool = task == Task::kRetEdit1 ? SecretNames() : task == Task::kRetInsert1 ? Fruits() : Landmarks();
      it.needle_label = Pick(rng, pool, 1);
      it.gt = it.needle_label[0];
      it.question = task == Task::kRetEdit1      ? "What is the secret word?"
                    : task == Task::kRetInsert1 ? "What kind of fruit appears in this video?"
                                                : "What is the name of the landmark in the picture?";
      options = OptionSet(it.gt, others_from(pool));
      break;
    }
    case Task::kOrdEdit1:
    case Task::kOrdInsert1:
    case Task::kOrdInsert2: {
      const auto& pool = task == Task::kOrdEdit1 ? SecretNames() : task == Task::kOrdInsert1 ? Fruits() : VocClasses();
      it.needle_label = Pick(rng, pool, 4);
      it.gt = JoinOrder(it.needle_label);
      it.question = task == Task::kOrdEdit1     ? "What is the order of the secret words that appeared in the video?"
                    : task == Task::kOrdInsert1 ? "What is the order of fruits appearing in the video?"
                                                : "What is the order of images appearing in the video?";
      std::vector<std::string> perms;
      for (int k = 0; k < 64; ++k) perms.push_back(JoinOrder(Pick(rng, it.needle_label, 4)));
      options = OptionSet(it.gt, perms);
      break;
    }
    case Task::kCntEdit1:
    case Task::kCntInsert1: {
      const int k = static_cast<int>(rng.UniformInt(1, 6));
      std::string plural;
      if (task == Task::kCntEdit1) {
        it.needle_label = Pick(rng, SecretNames(), k);
        it.question = "How many secret words appeared in the video?";
      } else {
        const std::string c = Pick(rng, VocClasses(), 1)[0];
        it.needle_label.assign(k, c);
        it.question = "How many " + VocPlural(c) + " appeared in the video?";
      }
      it.gt = std::to_string(k);
      options = OptionSet(it.gt, others_from({"1", "2", "3", "4", "5", "6"}));
      break;
    }
    case Task::kCntEdit2: {
      const std::string c = Pick(rng, VocClasses(), 1)[0];
      it.needle_label.assign(4, c);
      int total = 0;
      std::vector<int> per_section(4);
      for (int& m : per_section) total += (m = static_cast<int>(rng.UniformInt(1, 4)));
      it.gt = std::to_string(total);
      const std::string pl = VocPlural(c);
      it.question = "Some " + pl + " were inserted into 4 small sections of the video. How many " + pl +
                    " appeared in the video in total?";
      std::vector<std::string> cands;
      for (int off : Pick(rng, std::vector<int>{-3, -2, -1, 1, 2, 3}, 6))
        if (total + off >= 1) cands.push_back(std::to_string(total + off));
      options = OptionSet(it.gt, cands);
      // Sprites on a grid of 2s cells, jittered by up to s/2: at least s/2
      // between any two sprites, so the oracle can count components.
      const int s = std::max(8, p.height / 6 / 2 * 2);
      const int cell = 2 * s, cols = p.width / cell, rows = p.height / cell;
      if (cols * rows < 4) throw std::invalid_argument("videoniah: frame too small for cnt_edit2 sprites");
      std::vector<int> cells(cols * rows);
      for (int i = 0; i < cols * rows; ++i) cells[i] = i;
      it.sprite_size = s;
      for (int m : per_section) {
        rng.Shuffle(std::span<int>(cells));
        std::vector<std::array<int, 2>> xy;
        for (int j = 0; j < m; ++j) {
          const int cx = cells[j] % cols, cy = cells[j] / cols;
          xy.push_back({cx * cell + static_cast<int>(rng.UniformInt(0, s / 2)),
                        cy * cell + static_cast<int>(rng.UniformInt(0, s / 2))});
        }
        it.sprite_xy.push_back(xy);
      }
      break;
    }
  }

  // Length and placement (own stream, so label changes do not move needles).
  Rng place(p.seed, stream | (1ULL << 63));
  const int n = static_cast<int>(it.needle_label.size());
  const int drawn = p.fps * static_cast<int>(place.UniformInt(p.min_seconds, p.max_seconds));
  if (haystack_frames > 0) {
    // A given video: its length, and an error (not padding) when the needles
    // do not fit. The bound is the task's worst case, so whether a clip fits
    // does not depend on the item's draw.
    const int need = MinHaystackFrames(task, p);
    if (haystack_frames < need)
      throw std::invalid_argument("videoniah: haystack of " + std::to_string(haystack_frames) + " frames is too short for " +
                                  std::string(TaskKey(task)) + " (needs at least " + std::to_string(need) + " frames, " +
                                  std::to_string((need + p.fps - 1) / p.fps) + " s at " + std::to_string(p.fps) + " fps)");
    it.haystack_frames = haystack_frames;
  } else {
    it.haystack_frames = std::max(drawn, NeededFrames(n, d));
  }
  it.total_frames = it.haystack_frames + (IsInsert(task) ? n * d : 0);
  const std::vector<int> samples = SampledFrames(it.total_frames, p.sample_frames);
  bool ok = false;
  for (int attempt = 0; attempt < 10000 && !ok; ++attempt) {
    // n distinct sampled frames, then each start uniform among the starts
    // whose D frames cover its sampled frame.
    std::vector<int> pick(samples.size());
    for (size_t i = 0; i < pick.size(); ++i) pick[i] = static_cast<int>(i);
    place.Shuffle(std::span<int>(pick));
    pick.resize(std::min<size_t>(n, pick.size()));
    std::sort(pick.begin(), pick.end());
    std::vector<int> s;
    for (int k : pick) {
      const int at = samples[k];
      const int lo = std::max(0, at - d + 1), hi = std::min(at, it.total_frames - d);
      s.push_back(static_cast<int>(place.UniformInt(lo, hi)));
    }
    ok = static_cast<int>(s.size()) == n;
    for (int i = 0; i + 1 < n && ok; ++i) ok = s[i + 1] - s[i] >= 2 * d;
    if (ok) it.needle_start = s;
  }
  if (!ok) throw std::invalid_argument("videoniah: cannot place needles (increase sample_frames or length)");
  for (int s : it.needle_start) it.needle_time.push_back(static_cast<double>(s) / p.fps);

  // Four independent shuffles of the option set.
  for (int t = 0; t < 4; ++t) {
    Rng sh(p.seed, stream | (static_cast<uint64_t>(t + 2) << 56));
    std::array<int, 4> perm{0, 1, 2, 3};
    sh.Shuffle(std::span<int>(perm));
    for (int i = 0; i < 4; ++i) {
      it.tries[t].options[i] = options[perm[i]];
      if (perm[i] == 0) it.tries[t].gt_index = i;
    }
  }
  return it;
}

// ---------------------------------------------------------------------------
// Renderer

struct Renderer::Impl {
  FT_Library lib = nullptr;
  FT_Face text = nullptr, emoji = nullptr;
  struct Mask {
    int w = 0, h = 0;
    std::vector<uint8_t> a;
  };
  std::map<std::string, Mask> subtitles;
  std::map<std::pair<std::string, int>, std::vector<uint8_t>> sprites;  // [s][s][4] premultiplied RGBA
  std::map<std::string, Frame> pictures;
  // Scene of the last video seed.
  uint64_t scene_seed = ~0ULL;
  struct Shape {
    int r, x0, y0, vx, vy;
    uint8_t ca[3], cb[3];
  };
  struct Scene {
    int c1[3], c2[3], grad[3];
    int pan_x, pan_y, zoom_period, cell_shift;
    uint32_t noise_key;
    std::vector<Shape> shapes;
  } scene;
  ~Impl() {
    if (text) FT_Done_Face(text);
    if (emoji) FT_Done_Face(emoji);
    if (lib) FT_Done_FreeType(lib);
  }
};

Renderer::Renderer(const Params& p) : p_(p), impl_(std::make_unique<Impl>()) {
  if (FT_Init_FreeType(&impl_->lib)) throw std::runtime_error("videoniah: FreeType initialisation failed");
  const char* text_path = std::getenv("CB_DEJAVU_FONT") ? std::getenv("CB_DEJAVU_FONT") : CB_DEJAVU_FONT;
  const char* emoji_path = std::getenv("CB_EMOJI_FONT") ? std::getenv("CB_EMOJI_FONT") : CB_EMOJI_FONT;
  if (FT_New_Face(impl_->lib, text_path, 0, &impl_->text))
    throw std::runtime_error(std::string("videoniah: cannot open DejaVu Sans '") + text_path +
                             "' (Debian: fonts-dejavu-core; or set CB_DEJAVU_FONT)");
  if (FT_New_Face(impl_->lib, emoji_path, 0, &impl_->emoji) || impl_->emoji->num_fixed_sizes < 1)
    throw std::runtime_error(std::string("videoniah: cannot open Noto Color Emoji '") + emoji_path +
                             "' (Debian: fonts-noto-color-emoji; or set CB_EMOJI_FONT)");
  FT_Set_Pixel_Sizes(impl_->text, 0, std::max(10, p.height / 18));
  FT_Select_Size(impl_->emoji, 0);
}

Renderer::~Renderer() = default;

uint64_t Renderer::VideoSeed(const Item& item, const Params& p) {
  Rng rng(p.seed, (static_cast<uint64_t>(item.task) << 32) | static_cast<uint32_t>(item.index) | (1ULL << 62));
  return rng.NextU64();
}

void Renderer::Haystack(uint64_t video_seed, int f, Frame* out) const {
  if (haystack_) {
    if (f < 0 || f >= haystack_->frames()) throw std::out_of_range("videoniah: haystack frame out of range");
    haystack_->Get(f, out);
    if (out->width != p_.width || out->height != p_.height)
      throw std::invalid_argument("videoniah: haystack source frame size differs from params");
    return;
  }
  const int w = p_.width, h = p_.height;
  auto& sc = impl_->scene;
  if (impl_->scene_seed != video_seed) {
    Rng rng(video_seed, 7);
    auto u8 = [&] { return static_cast<int>(rng.UniformInt(0, 255)); };
    for (int c = 0; c < 3; ++c) sc.c1[c] = u8() / 2, sc.c2[c] = 64 + u8() / 2, sc.grad[c] = u8() / 3;
    sc.pan_x = static_cast<int>(rng.UniformInt(0, 8)) - 4;
    sc.pan_y = static_cast<int>(rng.UniformInt(0, 4)) - 2;
    sc.zoom_period = static_cast<int>(rng.UniformInt(24, 96));
    sc.cell_shift = static_cast<int>(rng.UniformInt(4, 6));
    sc.noise_key = rng.NextU32();
    sc.shapes.clear();
    const int count = static_cast<int>(rng.UniformInt(3, 6));
    for (int i = 0; i < count; ++i) {
      Impl::Shape s;
      s.r = static_cast<int>(rng.UniformInt(h / 20 + 2, h / 7 + 3));
      s.x0 = static_cast<int>(rng.UniformInt(0, w));
      s.y0 = static_cast<int>(rng.UniformInt(0, h));
      s.vx = static_cast<int>(rng.UniformInt(1, 9)) - 5;
      s.vy = static_cast<int>(rng.UniformInt(1, 7)) - 4;
      for (int c = 0; c < 3; ++c) s.ca[c] = static_cast<uint8_t>(u8()), s.cb[c] = static_cast<uint8_t>(u8());
      sc.shapes.push_back(s);
    }
    impl_->scene_seed = video_seed;
  }
  out->width = w;
  out->height = h;
  out->rgb.resize(static_cast<size_t>(w) * h * 3);
  // Camera: pan by (pan_x, pan_y) px per frame, zoom 1..1.5 (Q8) as a triangle wave.
  const int zoom = 256 + Tri(f, sc.zoom_period) * 128 / sc.zoom_period;
  const int cx = sc.pan_x * f, cy = sc.pan_y * f;
  const uint32_t fkey = Mix(sc.noise_key ^ static_cast<uint32_t>(f) * 0x9E3779B9u);
  for (int y = 0; y < h; ++y) {
    uint8_t* row = &out->rgb[static_cast<size_t>(y) * w * 3];
    const int v = (((y - h / 2) * zoom) >> 8) + cy;
    const int gy = y * 255 / h;
    for (int x = 0; x < w; ++x) {
      const int u = (((x - w / 2) * zoom) >> 8) + cx;
      const bool tile = (((u >> sc.cell_shift) ^ (v >> sc.cell_shift)) & 1) != 0;
      const int* base = tile ? sc.c1 : sc.c2;
      const int gx = (x * 255 / w + f) & 255;
      const int noise = static_cast<int>(Mix(fkey ^ static_cast<uint32_t>(y * w + x)) & 15) - 8;
      for (int c = 0; c < 3; ++c) row[3 * x + c] = Clamp8(base[c] + ((gx + gy) * sc.grad[c] >> 9) + noise);
    }
  }
  for (const auto& s : sc.shapes) {
    const int px = Tri(s.x0 + static_cast<int64_t>(s.vx) * f, w), py = Tri(s.y0 + static_cast<int64_t>(s.vy) * f, h);
    for (int y = std::max(0, py - s.r); y < std::min(h, py + s.r + 1); ++y) {
      for (int x = std::max(0, px - s.r); x < std::min(w, px + s.r + 1); ++x) {
        const int dx = x - px, dy = y - py;
        if (dx * dx + dy * dy > s.r * s.r) continue;
        const uint8_t* c = (((dx + dy + 2 * f) >> 3) & 1) ? s.ca : s.cb;
        uint8_t* o = &out->rgb[(static_cast<size_t>(y) * w + x) * 3];
        o[0] = c[0], o[1] = c[1], o[2] = c[2];
      }
    }
  }
}

int Renderer::HaystackIndex(const Item& item, int f) {
  if (!IsInsert(item.task)) return f;
  int before = 0;
  for (int s : item.needle_start) {
    if (f >= s && f < s + item.needle_frames) return -1;
    if (f >= s + item.needle_frames) before += item.needle_frames;
  }
  return f - before;
}

void Renderer::DrawSubtitle(const std::string& name, Frame* fr) {
  auto it = impl_->subtitles.find(name);
  if (it == impl_->subtitles.end()) {
    // Render "The secret word is <Name>." into an alpha mask once.
    const std::string text = "The secret word is " + name + ".";
    FT_Face face = impl_->text;
    const int asc = static_cast<int>(face->size->metrics.ascender >> 6);
    const int desc = static_cast<int>(-face->size->metrics.descender >> 6);
    int width = 0;
    for (unsigned char ch : text) {
      if (FT_Load_Char(face, ch, FT_LOAD_DEFAULT)) throw std::runtime_error("videoniah: glyph load failed");
      width += static_cast<int>(face->glyph->advance.x >> 6);
    }
    Impl::Mask m;
    m.w = width + 2;
    m.h = asc + desc;
    m.a.assign(static_cast<size_t>(m.w) * m.h, 0);
    int pen = 1;
    for (unsigned char ch : text) {
      FT_Load_Char(face, ch, FT_LOAD_RENDER);
      const FT_Bitmap& b = face->glyph->bitmap;
      for (unsigned r = 0; r < b.rows; ++r) {
        for (unsigned c = 0; c < b.width; ++c) {
          const int x = pen + face->glyph->bitmap_left + static_cast<int>(c);
          const int y = asc - face->glyph->bitmap_top + static_cast<int>(r);
          if (x < 0 || y < 0 || x >= m.w || y >= m.h) continue;
          uint8_t& a = m.a[static_cast<size_t>(y) * m.w + x];
          a = std::max(a, b.buffer[r * b.pitch + c]);
        }
      }
      pen += static_cast<int>(face->glyph->advance.x >> 6);
    }
    it = impl_->subtitles.emplace(name, std::move(m)).first;
  }
  const Impl::Mask& m = it->second;
  const int w = fr->width, h = fr->height;
  const int pad = m.h / 2;
  const int bw = std::min(w, m.w + 2 * pad), bh = m.h + pad;
  const int bx = (w - bw) / 2, by = std::min(h - bh, h * 85 / 100 - bh / 2);
  for (int y = by; y < by + bh; ++y)
    for (int x = bx; x < bx + bw; ++x) {
      uint8_t* o = &fr->rgb[(static_cast<size_t>(y) * w + x) * 3];
      o[0] = o[1] = o[2] = 80;
    }
  const int tx = (w - m.w) / 2, ty = by + pad / 2;
  for (int y = 0; y < m.h; ++y)
    for (int x = 0; x < m.w; ++x) {
      const int X = tx + x, Y = ty + y;
      if (X < 0 || X >= w || Y >= h) continue;
      const int a = m.a[static_cast<size_t>(y) * m.w + x];
      uint8_t* o = &fr->rgb[(static_cast<size_t>(Y) * w + X) * 3];
      for (int c = 0; c < 3; ++c) o[c] = static_cast<uint8_t>((255 * a + o[c] * (255 - a) + 127) / 255);
    }
}

namespace {
// Loads `label`'s emoji and box-filters it into an s x s premultiplied RGBA
// square (aspect kept, centred).
std::vector<uint8_t> EmojiSprite(FT_Face face, const std::string& label, int s) {
  const auto& cps = EmojiCodepoints();
  auto cp = cps.find(label);
  if (cp == cps.end()) throw std::invalid_argument("videoniah: no picture for label '" + label + "'");
  const FT_UInt gi = FT_Get_Char_Index(face, cp->second);
  if (gi == 0 || FT_Load_Glyph(face, gi, FT_LOAD_COLOR) || face->glyph->bitmap.pixel_mode != FT_PIXEL_MODE_BGRA)
    throw std::runtime_error("videoniah: emoji font has no colour glyph for '" + label + "'");
  const FT_Bitmap& b = face->glyph->bitmap;
  const int bw = static_cast<int>(b.width), bh = static_cast<int>(b.rows), big = std::max(bw, bh);
  const int tw = std::max(1, s * bw / big), th = std::max(1, s * bh / big);
  const int ox = (s - tw) / 2, oy = (s - th) / 2;
  std::vector<uint8_t> out(static_cast<size_t>(s) * s * 4, 0);
  for (int y = 0; y < th; ++y) {
    const int y0 = y * bh / th, y1 = std::max(y0 + 1, (y + 1) * bh / th);
    for (int x = 0; x < tw; ++x) {
      const int x0 = x * bw / tw, x1 = std::max(x0 + 1, (x + 1) * bw / tw);
      int acc[4] = {0, 0, 0, 0}, n = 0;
      for (int yy = y0; yy < y1; ++yy)
        for (int xx = x0; xx < x1; ++xx, ++n) {
          const uint8_t* px = b.buffer + yy * b.pitch + 4 * xx;  // BGRA, premultiplied
          acc[0] += px[2], acc[1] += px[1], acc[2] += px[0], acc[3] += px[3];
        }
      uint8_t* o = &out[(static_cast<size_t>(oy + y) * s + ox + x) * 4];
      for (int c = 0; c < 4; ++c) o[c] = static_cast<uint8_t>((acc[c] + n / 2) / n);
    }
  }
  return out;
}

void Composite(const std::vector<uint8_t>& sprite, int s, int x0, int y0, Frame* fr) {
  for (int y = 0; y < s; ++y) {
    const int Y = y0 + y;
    if (Y < 0 || Y >= fr->height) continue;
    for (int x = 0; x < s; ++x) {
      const int X = x0 + x;
      if (X < 0 || X >= fr->width) continue;
      const uint8_t* sp = &sprite[(static_cast<size_t>(y) * s + x) * 4];
      const int a = sp[3];
      if (a == 0) continue;
      uint8_t* o = &fr->rgb[(static_cast<size_t>(Y) * fr->width + X) * 3];
      for (int c = 0; c < 3; ++c) o[c] = Clamp8(sp[c] + (o[c] * (255 - a) + 127) / 255);
    }
  }
}
}  // namespace

void Renderer::PasteSprites(const std::string& label, const std::vector<std::array<int, 2>>& xy, int size,
                            Frame* fr) {
  auto key = std::make_pair(label, size);
  auto it = impl_->sprites.find(key);
  if (it == impl_->sprites.end()) it = impl_->sprites.emplace(key, EmojiSprite(impl_->emoji, label, size)).first;
  for (const auto& p : xy) Composite(it->second, size, p[0], p[1], fr);
}

void Renderer::InsertPicture(const std::string& label, Frame* fr) {
  auto it = impl_->pictures.find(label);
  if (it == impl_->pictures.end()) {
    // A full-frame card: light background, the picture at 2/3 of the height.
    Frame card;
    card.width = p_.width;
    card.height = p_.height;
    card.rgb.assign(static_cast<size_t>(p_.width) * p_.height * 3, 236);
    const int s = p_.height * 2 / 3;
    const auto sprite = EmojiSprite(impl_->emoji, label, s);
    Composite(sprite, s, (p_.width - s) / 2, (p_.height - s) / 2, &card);
    it = impl_->pictures.emplace(label, std::move(card)).first;
  }
  *fr = it->second;
}

void Renderer::ItemFrame(const Item& item, int f, Frame* out) {
  const uint64_t vs = VideoSeed(item, p_);
  const int hi = HaystackIndex(item, f);
  int needle = -1;
  for (size_t i = 0; i < item.needle_start.size(); ++i)
    if (f >= item.needle_start[i] && f < item.needle_start[i] + item.needle_frames) needle = static_cast<int>(i);
  if (hi < 0) {
    InsertPicture(item.needle_label.at(needle), out);
    return;
  }
  Haystack(vs, hi, out);
  if (needle < 0) return;
  if (IsSubtitle(item.task)) {
    DrawSubtitle(item.needle_label[needle], out);
  } else if (item.task == Task::kCntEdit2) {
    PasteSprites(item.needle_label[needle], item.sprite_xy.at(needle), item.sprite_size, out);
  }
}

void RenderItem(Renderer& r, const Item& item, const std::function<void(int, const Frame&)>& sink) {
  Frame fr;
  for (int f = 0; f < item.total_frames; ++f) {
    r.ItemFrame(item, f, &fr);
    sink(f, fr);
  }
}

std::string ContentHash(Renderer& r, const Item& item) {
  cb::harness::Hasher h;
  nlohmann::json head = {{"generator", kVideoNiahName},
                         {"version", kVideoNiahVersion},
                         {"params", CanonicalParams(r.params())},
                         {"rows", nlohmann::json::array()}};
  for (int t = 0; t < 4; ++t) head["rows"].push_back(item.Annotation(t, r.params().fps));
  h.Update(head.dump());
  RenderItem(r, item, [&](int, const Frame& fr) {
    h.Update(std::string_view(reinterpret_cast<const char*>(fr.rgb.data()), fr.rgb.size()));
  });
  return h.Digest().Hex();
}

// ---------------------------------------------------------------------------
// Oracle

Oracle::Oracle(Renderer& r, const OracleInput& in, uint64_t video_seed) : r_(r), in_(in), video_seed_(video_seed) {}

namespace {
std::vector<std::string> SplitOrder(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t k = s.find(", ", start);
    out.push_back(s.substr(start, k == std::string::npos ? std::string::npos : k - start));
    if (k == std::string::npos) break;
    start = k + 2;
  }
  return out;
}

// Connected components of the changed pixels after a (2r+1)^2 dilation.
int CountBlobs(const Frame& a, const Frame& b, int r) {
  const int w = a.width, h = a.height;
  std::vector<uint8_t> m(static_cast<size_t>(w) * h, 0), d(m.size(), 0);
  for (size_t i = 0; i < m.size(); ++i)
    m[i] = a.rgb[3 * i] != b.rgb[3 * i] || a.rgb[3 * i + 1] != b.rgb[3 * i + 1] || a.rgb[3 * i + 2] != b.rgb[3 * i + 2];
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      if (!m[static_cast<size_t>(y) * w + x]) continue;
      for (int yy = std::max(0, y - r); yy <= std::min(h - 1, y + r); ++yy)
        for (int xx = std::max(0, x - r); xx <= std::min(w - 1, x + r); ++xx) d[static_cast<size_t>(yy) * w + xx] = 1;
    }
  int blobs = 0;
  std::vector<int> stack;
  for (size_t i = 0; i < d.size(); ++i) {
    if (d[i] != 1) continue;
    ++blobs;
    d[i] = 2;
    stack.push_back(static_cast<int>(i));
    while (!stack.empty()) {
      const int j = stack.back();
      stack.pop_back();
      const int x = j % w, y = j / w;
      const int nb[4][2] = {{x - 1, y}, {x + 1, y}, {x, y - 1}, {x, y + 1}};
      for (const auto& q : nb) {
        if (q[0] < 0 || q[1] < 0 || q[0] >= w || q[1] >= h) continue;
        const size_t k = static_cast<size_t>(q[1]) * w + q[0];
        if (d[k] == 1) d[k] = 2, stack.push_back(static_cast<int>(k));
      }
    }
  }
  return blobs;
}
}  // namespace

void Oracle::Observe(int f, const Frame& frame) {
  const Task t = in_.task;
  // Candidates: what the options name.
  std::vector<std::string> cands;
  if (t == Task::kRetEdit1 || t == Task::kRetInsert1 || t == Task::kRetInsert2) {
    cands.assign(in_.options.begin(), in_.options.end());
  } else if (t == Task::kOrdEdit1 || t == Task::kOrdInsert1 || t == Task::kOrdInsert2) {
    for (const auto& o : in_.options)
      for (const auto& l : SplitOrder(o))
        if (std::find(cands.begin(), cands.end(), l) == cands.end()) cands.push_back(l);
  } else if (t == Task::kCntInsert1 || t == Task::kCntEdit2) {
    for (const auto& c : VocClasses())  // the class named in the question
      if (in_.question.find(" " + VocPlural(c) + " ") != std::string::npos) cands.push_back(c);
  }
  bool needle = false;
  Event ev;
  if (IsInsert(t)) {
    r_.Haystack(video_seed_, hay_next_, &hay_);
    if (frame == hay_) {
      ++hay_next_;
    } else {
      needle = true;
      Frame probe;
      for (const auto& c : cands) {
        r_.InsertPicture(c, &probe);
        if (probe == frame) ev.label = c;
      }
    }
  } else {
    r_.Haystack(video_seed_, f, &hay_);
    if (!(frame == hay_)) {
      needle = true;
      if (IsSubtitle(t)) {
        Frame probe;
        for (const auto& c : cands) {
          probe = hay_;
          r_.DrawSubtitle(c, &probe);
          if (probe == frame) ev.label = c;
        }
      } else {
        ev.count = CountBlobs(frame, hay_, std::max(1, frame.height / 48));
      }
    }
  }
  if (needle && !in_needle_) events_.push_back(ev);
  in_needle_ = needle;
}

int Oracle::Answer() const {
  std::string answer;
  const Task t = in_.task;
  if (t == Task::kRetEdit1 || t == Task::kRetInsert1 || t == Task::kRetInsert2) {
    if (events_.empty()) return -1;
    answer = events_[0].label;
  } else if (t == Task::kOrdEdit1 || t == Task::kOrdInsert1 || t == Task::kOrdInsert2) {
    std::vector<std::string> order;
    for (const auto& e : events_) order.push_back(e.label);
    answer = JoinOrder(order);
  } else if (t == Task::kCntEdit2) {
    int total = 0;
    for (const auto& e : events_) total += e.count;
    answer = std::to_string(total);
  } else {
    int n = 0;
    for (const auto& e : events_) n += t == Task::kCntEdit1 || !e.label.empty();
    answer = std::to_string(n);
  }
  for (int i = 0; i < 4; ++i)
    if (in_.options[i] == answer) return i;
  return -1;
}

}  // namespace cb::gen::videoniah
