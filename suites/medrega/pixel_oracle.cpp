// File: suites/medrega/pixel_oracle.cpp
// Answers from pixels; see pixel_oracle.h.
#include "suites/medrega/pixel_oracle.h"

#include <algorithm>
#include <cstdlib>
#include <map>

#include "reference/medrega/boxes.h"

namespace cb::medrega {
namespace {

namespace gr = cb::gen::regions;

constexpr int kBackground = -3, kBody = -2, kLesion = -1, kUnknown = -4;

double GridIou(const std::array<int, 4>& a, const std::array<int, 4>& b) {
  const double w = std::max(0, std::min(a[2], b[2]) - std::max(a[0], b[0]));
  const double h = std::max(0, std::min(a[3], b[3]) - std::max(a[1], b[1]));
  const double ua = double(a[2] - a[0]) * (a[3] - a[1]) + double(b[2] - b[0]) * (b[3] - b[1]) - w * h;
  return ua > 0 ? w * h / ua : 0;
}

}  // namespace

SeenStructures SeeStructures(const gr::Scan& s) {
  const gr::Legend& lg = gr::LegendFor(s.modality);
  const int w = s.width, h = s.height;
  std::vector<int> cls(s.pixels.size(), kUnknown);  // organ legend index, or a k* class
  SeenStructures out;
  for (size_t i = 0; i < s.pixels.size(); ++i) {
    const int v = s.pixels[i];
    auto near = [&](int level) { return std::abs(v - level) <= gr::kNoise; };
    if (near(lg.background)) cls[i] = kBackground;
    else if (near(lg.body)) cls[i] = kBody;
    else if (near(lg.lesion)) cls[i] = kLesion;
    else
      for (size_t k = 0; k < lg.organs.size(); ++k)
        if (near(lg.organs[k].second)) cls[i] = static_cast<int>(k);
    if (cls[i] == kUnknown) ++out.unclassified_pixels;
  }
  // 4-connected components of organ and lesion pixels.
  std::vector<char> seen(s.pixels.size(), 0);
  std::vector<size_t> stack;
  struct Comp {
    int cls;
    std::array<int, 4> box;
  };
  std::vector<Comp> comps;
  for (size_t start = 0; start < cls.size(); ++start) {
    if (seen[start] || cls[start] < kLesion) continue;
    const int c = cls[start];
    std::array<int, 4> b{w, h, 0, 0};
    stack = {start};
    seen[start] = 1;
    while (!stack.empty()) {
      const size_t i = stack.back();
      stack.pop_back();
      const int x = static_cast<int>(i % w), y = static_cast<int>(i / w);
      b = {std::min(b[0], x), std::min(b[1], y), std::max(b[2], x + 1), std::max(b[3], y + 1)};
      const int nx[4] = {x - 1, x + 1, x, x}, ny[4] = {y, y, y - 1, y + 1};
      for (int k = 0; k < 4; ++k) {
        if (nx[k] < 0 || ny[k] < 0 || nx[k] >= w || ny[k] >= h) continue;
        const size_t j = static_cast<size_t>(ny[k]) * w + nx[k];
        if (!seen[j] && cls[j] == c) {
          seen[j] = 1;
          stack.push_back(j);
        }
      }
    }
    comps.push_back({c, b});
  }
  std::map<std::pair<int, int>, int> organ_at;  // (x1, y1) of an organ comp -> organ index in out.organs
  for (const Comp& c : comps) {
    if (c.cls < 0) continue;
    gr::Structure st;
    st.name = lg.organs[static_cast<size_t>(c.cls)].first;
    st.pixel_box = c.box;
    st.grid_box = gr::ToGrid(c.box, w, h);
    out.organs.push_back(st);
  }
  for (const Comp& c : comps) {
    if (c.cls != kLesion) continue;
    gr::Structure st;
    st.name = lg.lesion_word;
    st.pixel_box = c.box;
    st.grid_box = gr::ToGrid(c.box, w, h);
    // The organ just left of the lesion, at its middle row: the organ component containing that pixel.
    const int x = c.box[0] - 1, y = (c.box[1] + c.box[3]) / 2;
    if (x >= 0) {
      const int oc = cls[static_cast<size_t>(y) * w + x];
      for (size_t k = 0; k < out.organs.size(); ++k) {
        const auto& b = out.organs[k].pixel_box;
        if (oc >= 0 && out.organs[k].name == lg.organs[static_cast<size_t>(oc)].first && x >= b[0] && x < b[2] &&
            y >= b[1] && y < b[3])
          st.organ = static_cast<int>(k);
      }
    }
    out.lesions.push_back(st);
  }
  return out;
}

std::string OracleAnswer(const gr::Scan& s, const SeenStructures& seen, const gr::Question& q) {
  namespace mr = cb::ref::medrega;
  auto boxes_named = [&](const std::string& name) {
    std::vector<std::array<int, 4>> out;
    for (const auto* list : {&seen.organs, &seen.lesions})
      for (const auto& st : *list)
        if (st.name == name) out.push_back(st.grid_box);
    return out;
  };
  switch (q.task) {
    case gr::Task::kSs:
    case gr::Task::kSm:
    case gr::Task::kMs:
    case gr::Task::kMm: {
      std::string out;
      for (const auto& n : q.names) out += (out.empty() ? "" : " ") + n + " " + mr::GridBoxText(boxes_named(n));
      return out;
    }
    case gr::Task::kR2t: {
      double best = -1;
      std::string name;
      for (const auto* list : {&seen.organs, &seen.lesions})
        for (const auto& st : *list) {
          const double iou = GridIou(st.grid_box, q.region);
          if (iou > best) {
            best = iou;
            name = st.name;
          }
        }
      return name;
    }
    case gr::Task::kRg: return gr::Report(seen.organs, seen.lesions);
  }
  (void)s;
  return "";
}

}  // namespace cb::medrega
