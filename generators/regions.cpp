// File: generators/regions.cpp
// Synthetic region-grounding scans; see regions.h.
#include "generators/regions.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <span>
#include <stdexcept>

#include "harness/hash.h"
#include "harness/random.h"
#include "reference/medrega/boxes.h"

namespace cb::gen::regions {
namespace {

namespace h = cb::harness;

constexpr double kPi = 3.14159265358979323846;

struct Blob {
  double cx, cy, rx, ry, a, phase;
  int k;
  // r(θ) = 1 + a sin(kθ + φ) in the ellipse's normalised coordinates.
  bool Contains(double x, double y) const {
    const double u = (x - cx) / rx, v = (y - cy) / ry;
    const double r = std::sqrt(u * u + v * v);
    if (r == 0) return true;
    return r < 1 + a * std::sin(k * std::atan2(v, u) + phase);
  }
  double InnerRadius() const { return std::min(rx, ry) * (1 - a); }
  double OuterRadius() const { return std::max(rx, ry) * (1 + a); }
};

struct Spot {
  double cx, cy, rx, ry;
  int organ;
  bool Contains(double x, double y) const {
    const double u = (x - cx) / rx, v = (y - cy) / ry;
    return u * u + v * v < 1;
  }
};

double Uniform(h::Rng& rng, double lo, double hi) { return lo + (hi - lo) * rng.Uniform(); }
int UniformInt(h::Rng& rng, int lo, int hi) {
  return static_cast<int>(rng.UniformInt(static_cast<uint64_t>(lo), static_cast<uint64_t>(hi)));
}

std::string Join(const std::vector<std::string>& v, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
  return out;
}

std::string GridText(const std::array<int, 4>& b) { return cb::ref::medrega::GridBoxText({b}); }

}  // namespace

const char* ModalityName(Modality m) {
  switch (m) {
    case Modality::kCt: return "ct";
    case Modality::kMri: return "mri";
    case Modality::kXray: return "xray";
    case Modality::kUltrasound: return "ultrasound";
  }
  return "?";
}

std::vector<Modality> AllModalities() {
  return {Modality::kCt, Modality::kMri, Modality::kXray, Modality::kUltrasound};
}

const Legend& LegendFor(Modality m) {
  static const Legend kCt{0, 100, 55, {{"liver", 150}, {"spleen", 175}, {"kidney", 200}, {"stomach", 125}}, "lesion"};
  static const Legend kMri{
      0, 70, 225, {{"cerebrum", 120}, {"cerebellum", 150}, {"ventricle", 35}, {"brainstem", 175}}, "lesion"};
  static const Legend kXray{0, 160, 120, {{"lung", 40}, {"heart", 200}, {"spine", 235}}, "lesion"};
  static const Legend kUs{
      0, 90, 205, {{"liver", 130}, {"gallbladder", 30}, {"kidney", 165}, {"vessel", 60}}, "lesion"};
  switch (m) {
    case Modality::kCt: return kCt;
    case Modality::kMri: return kMri;
    case Modality::kXray: return kXray;
    case Modality::kUltrasound: return kUs;
  }
  return kCt;
}

const char* TaskKey(Task t) {
  switch (t) {
    case Task::kSs: return "ss";
    case Task::kSm: return "sm";
    case Task::kMs: return "ms";
    case Task::kMm: return "mm";
    case Task::kR2t: return "r2t";
    case Task::kRg: return "rg";
  }
  return "?";
}

std::vector<Task> AllTasks() { return {Task::kSs, Task::kSm, Task::kMs, Task::kMm, Task::kR2t, Task::kRg}; }

nlohmann::json CanonicalParams(const Params& p) {
  return {{"seed", p.seed}, {"count", p.count}, {"size", p.size}, {"version", kRegionsVersion}};
}

std::array<int, 4> ToGrid(const std::array<int, 4>& b, int width, int height) {
  auto g = [](int v, int extent) {
    return static_cast<int>(std::lround(static_cast<double>(v) * cb::ref::medrega::kBoxScale / extent));
  };
  return {g(b[0], width), g(b[1], height), g(b[2], width), g(b[3], height)};
}

std::string RefBox(const std::string& name, const std::vector<std::array<int, 4>>& boxes) {
  return "<ref>" + name + "</ref><box>" + cb::ref::medrega::GridBoxText(boxes) + "</box>";
}

std::string Report(const std::vector<Structure>& organs_in, const std::vector<Structure>& lesions_in) {
  // Canonical order: organs, then each organ's lesions, by grid (x1, y1).
  std::vector<size_t> order(organs_in.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  auto key = [](const Structure& s) { return std::make_pair(s.grid_box[0], s.grid_box[1]); };
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return key(organs_in[a]) < key(organs_in[b]); });
  std::vector<std::string> sentences;
  for (size_t oi : order) {
    std::vector<Structure> ls;
    for (const auto& l : lesions_in)
      if (l.organ == static_cast<int>(oi)) ls.push_back(l);
    std::sort(ls.begin(), ls.end(), [&](const Structure& a, const Structure& b) { return key(a) < key(b); });
    std::string s = organs_in[oi].name + " " + GridText(organs_in[oi].grid_box);
    if (ls.empty()) {
      s += " is normal.";
    } else {
      std::vector<std::array<int, 4>> boxes;
      for (const auto& l : ls) boxes.push_back(l.grid_box);
      s += " contains " + std::string(ls.size() == 1 ? "a lesion " : "lesions ") +
           cb::ref::medrega::GridBoxText(boxes) + ".";
    }
    sentences.push_back(s);
  }
  return Join(sentences, " ");
}

Scan MakeScan(const Params& p, int index) {
  if (p.size < 96 || p.size > 1024) throw std::invalid_argument("regions: size must be in [96, 1024]");
  if (index < 0) throw std::invalid_argument("regions: negative index");
  h::Rng rng(p.seed ^ 0x5245474941ull, static_cast<uint64_t>(index));
  Scan s;
  s.index = index;
  s.modality = AllModalities()[static_cast<size_t>(index) % 4];
  s.width = s.height = p.size;
  const Legend& lg = LegendFor(s.modality);
  const double W = p.size, H = p.size;
  const double bcx = W / 2 + Uniform(rng, -0.02, 0.02) * W, bcy = H / 2 + Uniform(rng, -0.02, 0.02) * H;
  const double brx = Uniform(rng, 0.42, 0.46) * W, bry = Uniform(rng, 0.36, 0.44) * H;
  auto in_body = [&](double x, double y, double margin) {
    const double u = (x - bcx) / (brx - margin), v = (y - bcy) / (bry - margin);
    return u * u + v * v < 1;
  };
  // Organs: which names, then placement without overlap.
  std::vector<int> names;  // index into lg.organs
  if (s.modality == Modality::kXray) {
    names = {0, 0, 1, 2};  // two lungs, heart, spine
  } else {
    names = {0, 1, 2, 3};
    rng.Shuffle(std::span<int>(names));
    names.resize(static_cast<size_t>(UniformInt(rng, 3, 4)));
  }
  std::vector<Blob> blobs;
  std::vector<int> blob_name;
  for (int ni : names) {
    for (int attempt = 0; attempt < 400; ++attempt) {
      const double scale = attempt < 200 ? 1.0 : 0.75;
      Blob b{0, 0, Uniform(rng, 0.09, 0.15) * W * scale, Uniform(rng, 0.09, 0.15) * H * scale,
             Uniform(rng, 0.04, 0.14), Uniform(rng, 0, 2 * kPi), UniformInt(rng, 2, 4)};
      b.cx = Uniform(rng, bcx - brx, bcx + brx);
      b.cy = Uniform(rng, bcy - bry, bcy + bry);
      const double R = b.OuterRadius();
      bool ok = in_body(b.cx - R, b.cy, 4) && in_body(b.cx + R, b.cy, 4) && in_body(b.cx, b.cy - R, 4) &&
                in_body(b.cx, b.cy + R, 4) && in_body(b.cx - R * 0.71, b.cy - R * 0.71, 4) &&
                in_body(b.cx + R * 0.71, b.cy - R * 0.71, 4) && in_body(b.cx - R * 0.71, b.cy + R * 0.71, 4) &&
                in_body(b.cx + R * 0.71, b.cy + R * 0.71, 4);
      for (const Blob& o : blobs)
        ok = ok && std::hypot(b.cx - o.cx, b.cy - o.cy) > R + o.OuterRadius() + 4;
      if (ok) {
        blobs.push_back(b);
        blob_name.push_back(ni);
        break;
      }
    }
  }
  if (blobs.size() < 2) throw std::logic_error("regions: could not place two organs");
  // Lesions: 2-3, inside organs, 3 px from the organ edge, 2 px apart.
  std::vector<Spot> spots;
  const int want = UniformInt(rng, 2, 3);
  for (int attempt = 0; attempt < 400 && static_cast<int>(spots.size()) < want; ++attempt) {
    const int oi = UniformInt(rng, 0, static_cast<int>(blobs.size()) - 1);
    const Blob& b = blobs[static_cast<size_t>(oi)];
    const double inner = b.InnerRadius();
    const double rl_max = std::min(0.35 * inner, 12.0);
    if (rl_max < 3) continue;
    const double rlx = Uniform(rng, 3, rl_max), rly = Uniform(rng, 3, rl_max), rl = std::max(rlx, rly);
    const double dmax = inner - rl - 3;
    if (dmax <= 0) continue;
    const double d = dmax * std::sqrt(rng.Uniform()), t = Uniform(rng, 0, 2 * kPi);
    Spot sp{b.cx + d * std::cos(t), b.cy + d * std::sin(t), rlx, rly, oi};
    bool ok = true;
    for (const Spot& o : spots)
      ok = ok && std::hypot(sp.cx - o.cx, sp.cy - o.cy) > rl + std::max(o.rx, o.ry) + 2;
    if (ok) spots.push_back(sp);
  }
  if (spots.empty()) throw std::logic_error("regions: could not place a lesion");
  // Render: labels, then grey levels with noise.
  const int w = p.size, hgt = p.size;
  std::vector<int> label(static_cast<size_t>(w) * hgt, -2);  // -2 background, -1 body, i organ, 100 + j lesion
  s.pixels.assign(static_cast<size_t>(w) * hgt, 0);
  for (int y = 0; y < hgt; ++y)
    for (int x = 0; x < w; ++x) {
      const double px = x + 0.5, py = y + 0.5;
      int l = in_body(px, py, 0) ? -1 : -2;
      for (size_t i = 0; i < blobs.size(); ++i) {
        const double R = blobs[i].OuterRadius();  // outside its square the blob cannot reach
        if (std::abs(px - blobs[i].cx) <= R && std::abs(py - blobs[i].cy) <= R && blobs[i].Contains(px, py))
          l = static_cast<int>(i);
      }
      for (size_t j = 0; j < spots.size(); ++j)
        if (spots[j].Contains(px, py)) l = 100 + static_cast<int>(j);
      const int level = l == -2   ? lg.background
                        : l == -1 ? lg.body
                        : l >= 100 ? lg.lesion
                                   : lg.organs[static_cast<size_t>(blob_name[static_cast<size_t>(l)])].second;
      const int v = level + UniformInt(rng, 0, 2 * kNoise) - kNoise;
      s.pixels[static_cast<size_t>(y) * w + x] = static_cast<uint8_t>(std::clamp(v, 0, 255));
      label[static_cast<size_t>(y) * w + x] = l;
    }
  // Boxes from the labels: an organ's box covers its lesions too (interior).
  auto box_of = [&](auto pred) {
    std::array<int, 4> b{w, hgt, 0, 0};
    for (int y = 0; y < hgt; ++y)
      for (int x = 0; x < w; ++x)
        if (pred(label[static_cast<size_t>(y) * w + x])) {
          b[0] = std::min(b[0], x);
          b[1] = std::min(b[1], y);
          b[2] = std::max(b[2], x + 1);
          b[3] = std::max(b[3], y + 1);
        }
    return b;
  };
  for (size_t i = 0; i < blobs.size(); ++i) {
    Structure st;
    st.name = lg.organs[static_cast<size_t>(blob_name[i])].first;
    st.pixel_box = box_of([&](int l) {
      return l == static_cast<int>(i) || (l >= 100 && spots[static_cast<size_t>(l - 100)].organ == static_cast<int>(i));
    });
    st.grid_box = ToGrid(st.pixel_box, w, hgt);
    s.organs.push_back(st);
  }
  for (size_t j = 0; j < spots.size(); ++j) {
    Structure st;
    st.name = lg.lesion_word;
    st.organ = spots[j].organ;
    st.pixel_box = box_of([&](int l) { return l == 100 + static_cast<int>(j); });
    st.grid_box = ToGrid(st.pixel_box, w, hgt);
    s.lesions.push_back(st);
  }
  // Questions.
  const std::string mod = ModalityName(s.modality);
  const std::string format = " Give boxes on a 0-999 grid (x1, y1, x2, y2; 0,0 top-left; 999 the right/bottom edge).";
  std::map<std::string, std::vector<std::array<int, 4>>> by_name;
  std::vector<std::string> name_order;
  for (const auto& o : s.organs) {
    if (!by_name.count(o.name)) name_order.push_back(o.name);
    by_name[o.name].push_back(o.grid_box);
  }
  std::vector<std::string> unique_names;
  for (const auto& n : name_order)
    if (by_name[n].size() == 1) unique_names.push_back(n);
  std::vector<std::array<int, 4>> lesion_boxes;
  for (const auto& l : s.lesions) lesion_boxes.push_back(l.grid_box);
  {
    Question q;
    q.task = Task::kSs;
    const std::string& n = unique_names[static_cast<size_t>(UniformInt(rng, 0, static_cast<int>(unique_names.size()) - 1))];
    q.names = {n};
    q.prompt = "This is a synthetic " + mod + " scan. Locate the " + n + "." + format + " Answer as: " + n +
               " [[x1, y1, x2, y2]]";
    q.gt = RefBox(n, by_name[n]);
    s.questions.push_back(q);
  }
  {
    Question q;
    q.task = Task::kSm;
    q.names = {lg.lesion_word};
    q.prompt = "This is a synthetic " + mod + " scan. Locate every lesion." + format +
               " Answer as: lesion [[x1, y1, x2, y2], [x1, y1, x2, y2], ...]";
    q.gt = RefBox(lg.lesion_word, lesion_boxes);
    s.questions.push_back(q);
  }
  {
    Question q;
    q.task = Task::kMs;
    q.names = unique_names;
    q.prompt = "This is a synthetic " + mod + " scan. Locate each of: " + Join(unique_names, ", ") + "." + format +
               " Answer as: name [[x1, y1, x2, y2]] for each, e.g. " + unique_names[0] + " [[x1, y1, x2, y2]] ...";
    for (const auto& n : unique_names) q.gt += RefBox(n, by_name[n]);
    s.questions.push_back(q);
  }
  {
    Question q;
    q.task = Task::kMm;
    q.names = name_order;
    q.names.push_back(lg.lesion_word);
    q.prompt = "This is a synthetic " + mod + " scan. Locate every instance of: " + Join(q.names, ", ") + "." + format +
               " Answer as: name [[x1, y1, x2, y2], ...] for each name.";
    for (const auto& n : name_order) q.gt += RefBox(n, by_name[n]);
    q.gt += RefBox(lg.lesion_word, lesion_boxes);
    s.questions.push_back(q);
  }
  {
    Question q;
    q.task = Task::kR2t;
    const int total = static_cast<int>(s.organs.size() + s.lesions.size());
    const int pick = UniformInt(rng, 0, total - 1);
    const Structure& st = pick < static_cast<int>(s.organs.size()) ? s.organs[static_cast<size_t>(pick)]
                                                                    : s.lesions[static_cast<size_t>(pick) - s.organs.size()];
    q.region = st.grid_box;
    std::vector<std::string> vocab;
    for (const auto& [n, level] : lg.organs) vocab.push_back(n);
    vocab.push_back(lg.lesion_word);
    q.prompt = "This is a synthetic " + mod + " scan. What is inside the region " + GridText(st.grid_box) +
               " (0-999 grid)? Answer with one word from: " + Join(vocab, ", ") + ".";
    q.gt = st.name;
    s.questions.push_back(q);
  }
  {
    Question q;
    q.task = Task::kRg;
    q.prompt = "This is a synthetic " + mod + " scan. Write a grounded report: one sentence per organ, left to "
               "right, its name and box, then the boxes of any lesions in it, as: name [[x1, y1, x2, y2]] contains "
               "a lesion [[x1, y1, x2, y2]]. name [[x1, y1, x2, y2]] is normal." + format;
    q.gt = Report(s.organs, s.lesions);
    s.questions.push_back(q);
  }
  return s;
}

std::vector<Scan> Generate(const Params& p) {
  if (p.count < 0 || p.count > 100000) throw std::invalid_argument("regions: count must be in [0, 100000]");
  std::vector<Scan> out;
  for (int i = 0; i < p.count; ++i) out.push_back(MakeScan(p, i));
  return out;
}

std::string ContentHash(const std::vector<Scan>& scans) {
  std::string blob = std::string(kRegionsName) + "/" + std::to_string(kRegionsVersion) + "\n";
  for (const Scan& s : scans) {
    nlohmann::json j = {{"index", s.index}, {"modality", ModalityName(s.modality)}, {"w", s.width}, {"h", s.height}};
    for (const auto* list : {&s.organs, &s.lesions})
      for (const auto& st : *list) j["structures"].push_back({st.name, st.organ, st.pixel_box, st.grid_box});
    for (const auto& q : s.questions) j["questions"].push_back({TaskKey(q.task), q.prompt, q.gt});
    blob += j.dump() + "\n";
    blob.append(reinterpret_cast<const char*>(s.pixels.data()), s.pixels.size());
  }
  return h::Xxh3_128(blob).Hex();
}

}  // namespace cb::gen::regions
