// File: generators/docvqa.cpp
// -----------------------------------------------------------------------------
// Documents, charts, questions and the pixel oracle (see docvqa.h for the
// rules). Pixels use integer arithmetic only.
#include "generators/docvqa.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <map>
#include <span>
#include <stdexcept>

#include <ft2build.h>
#include FT_FREETYPE_H

#include "harness/hash.h"
#include "harness/interrupt.h"
#include "harness/random.h"

#ifndef CB_DEJAVU_MONO_FONT
#define CB_DEJAVU_MONO_FONT ""
#endif

namespace cb::gen::docvqa {
namespace {

using cb::harness::Rng;
using Rgb = std::array<uint8_t, 3>;

constexpr Rgb kWhite = {255, 255, 255}, kInk = {0, 0, 0}, kAxis = {60, 60, 60}, kRule = {180, 180, 180},
              kMarker = {30, 60, 200}, kLine = {150, 170, 230};
// Bar fills: saturated, none grey, none the marker or line colour.
constexpr std::array<Rgb, 6> kBarColours = {
    Rgb{214, 39, 40}, Rgb{44, 160, 44}, Rgb{255, 127, 14}, Rgb{148, 103, 189}, Rgb{23, 190, 207}, Rgb{188, 189, 34}};
constexpr const char* kCharset =
    " ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789.,:-/$#?()";
constexpr int kFontPx = 16;

const std::vector<std::string>& Names() {
  static const std::vector<std::string> k = {"Ada Novak", "Ben Ortiz", "Cai Lund",  "Dana Pike", "Eli Brandt",
                                             "Fay Moreau", "Gus Tanaka", "Hana Ruiz", "Ivo Kerr",  "Jun Park"};
  return k;
}
const std::vector<std::string>& Cities() {
  static const std::vector<std::string> k = {"Oslo",  "Lima",  "Quito", "Perth", "Dakar", "Hanoi", "Turin",
                                             "Cusco", "Malmo", "Kobe",  "Leeds", "Accra", "Izmir", "Graz"};
  return k;
}
const std::vector<std::string>& Months() {
  static const std::vector<std::string> k = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                             "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  return k;
}

uint64_t Stream(Kind k, int index, uint64_t salt) {
  return (salt << 40) ^ (static_cast<uint64_t>(k) << 32) ^ static_cast<uint64_t>(index);
}

std::string Digits(Rng& rng, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s.push_back(static_cast<char>('0' + rng.UniformInt(i == 0 ? 1 : 0, 9)));
  return s;
}

std::string Money(Rng& rng) {
  const uint64_t cents = rng.UniformInt(1000, 999999);
  std::string whole = std::to_string(cents / 100);
  for (int i = static_cast<int>(whole.size()) - 3; i > 0; i -= 3) whole.insert(static_cast<size_t>(i), ",");
  const uint64_t c = cents % 100;
  return "$" + whole + "." + (c < 10 ? "0" : "") + std::to_string(c);
}

std::string Date(Rng& rng) {
  const int y = static_cast<int>(rng.UniformInt(2015, 2024)), m = static_cast<int>(rng.UniformInt(1, 12)),
            d = static_cast<int>(rng.UniformInt(1, 28));
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02d", y, m, d);
  return buf;
}

template <class T>
const T& Pick(Rng& rng, const std::vector<T>& v) {
  return v[rng.UniformInt(0, v.size() - 1)];
}

void Fill(Image* im, int x0, int y0, int x1, int y1, Rgb c) {  // [x0, x1) x [y0, y1); im null: nothing
  if (im == nullptr) return;
  for (int y = std::max(0, y0); y < std::min(im->height, y1); ++y)
    for (int x = std::max(0, x0); x < std::min(im->width, x1); ++x)
      std::copy(c.begin(), c.end(), &im->rgb[(static_cast<size_t>(y) * im->width + x) * 3]);
}

// Bresenham, 1 px.
void Line(Image* im, int x0, int y0, int x1, int y1, Rgb c) {
  if (im == nullptr) return;
  const int dx = std::abs(x1 - x0), dy = -std::abs(y1 - y0), sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
  int err = dx + dy;
  while (true) {
    Fill(im, x0, y0, x0 + 1, y0 + 1, c);
    if (x0 == x1 && y0 == y1) break;
    const int e2 = 2 * err;
    if (e2 >= dy) err += dy, x0 += sx;
    if (e2 <= dx) err += dx, y0 += sy;
  }
}

Image Blank() {
  Image im;
  im.width = kWidth;
  im.height = kHeight;
  im.rgb.assign(static_cast<size_t>(kWidth) * kHeight * 3, 255);
  return im;
}

// The four MC options: the answer and three other labels, the answer at
// letter `letter`; the rest in a seeded order.
void Options(Rng& rng, const std::string& answer, std::vector<std::string> others, int letter, Question* q) {
  rng.Shuffle(std::span<std::string>(others));
  others.resize(3);
  q->options = others;
  q->options.insert(q->options.begin() + letter, answer);
  q->answer = std::string(1, static_cast<char>('A' + letter));
  for (int k = 0; k < 4; ++k) q->text += std::string("\n") + static_cast<char>('A' + k) + ". " + q->options[k];
  q->text += "\nAnswer with the option's letter from the given choices directly.";
}

}  // namespace

const char* KindKey(Kind k) {
  switch (k) {
    case Kind::kDocument: return "document";
    case Kind::kBarChart: return "bar";
    case Kind::kLineChart: return "line";
  }
  return "?";
}

nlohmann::json CanonicalParams(const Params& p) {
  return {{"generator", kDocVqaName}, {"version", kDocVqaVersion}, {"seed", p.seed}, {"count", p.count},
          {"width", kWidth},          {"height", kHeight},          {"font_px", kFontPx}};
}

struct Generator::Impl {
  FT_Library lib = nullptr;
  FT_Face face = nullptr;
  int cell_w = 0, cell_h = 0, asc = 0;
  std::string charset = kCharset;
  std::map<char, std::vector<uint8_t>> alpha, grey;  // [cell_h][cell_w]
  ~Impl() {
    if (face) FT_Done_Face(face);
    if (lib) FT_Done_FreeType(lib);
  }
  void Text(Image* im, int x, int y, const std::string& s) const {  // im null: only the charset check
    for (size_t k = 0; k < s.size(); ++k) {
      const auto it = alpha.find(s[k]);
      if (it == alpha.end()) throw std::logic_error(std::string("docvqa: character outside the charset: ") + s[k]);
      const int cx = x + static_cast<int>(k) * cell_w;
      if (im == nullptr) continue;
      for (int r = 0; r < cell_h; ++r)
        for (int c = 0; c < cell_w; ++c) {
          const int a = it->second[static_cast<size_t>(r) * cell_w + c];
          if (a == 0 || cx + c < 0 || cx + c >= im->width || y + r < 0 || y + r >= im->height) continue;
          uint8_t* o = &im->rgb[(static_cast<size_t>(y + r) * im->width + cx + c) * 3];
          for (int ch = 0; ch < 3; ++ch) o[ch] = static_cast<uint8_t>((kInk[ch] * a + o[ch] * (255 - a) + 127) / 255);
        }
    }
  }
};

Generator::Generator(const Params& p) : p_(p), impl_(std::make_unique<Impl>()) {
  if (p.count < 1 || p.count > 100000) throw std::invalid_argument("docvqa: count must be in [1, 100000]");
  const char* env = std::getenv("CB_DEJAVU_MONO_FONT");
  const char* path = env && *env ? env : CB_DEJAVU_MONO_FONT;
  if (FT_Init_FreeType(&impl_->lib)) throw std::runtime_error("docvqa: FreeType initialisation failed");
  if (FT_New_Face(impl_->lib, path, 0, &impl_->face))
    throw std::runtime_error(std::string("docvqa: cannot open DejaVu Sans Mono '") + path +
                             "' (Debian: fonts-dejavu-core; or set CB_DEJAVU_MONO_FONT)");
  FT_Face f = impl_->face;
  FT_Set_Pixel_Sizes(f, 0, kFontPx);
  impl_->asc = static_cast<int>(f->size->metrics.ascender >> 6);
  impl_->cell_h = impl_->asc + static_cast<int>(-f->size->metrics.descender >> 6);
  if (FT_Load_Char(f, 'M', FT_LOAD_DEFAULT)) throw std::runtime_error("docvqa: glyph load failed");
  impl_->cell_w = static_cast<int>(f->glyph->advance.x >> 6);
  const int w = impl_->cell_w, h = impl_->cell_h;
  for (char ch : impl_->charset) {
    std::vector<uint8_t> a(static_cast<size_t>(w) * h, 0);
    if (FT_Load_Char(f, static_cast<unsigned char>(ch), FT_LOAD_RENDER))
      throw std::runtime_error("docvqa: glyph load failed");
    const FT_Bitmap& b = f->glyph->bitmap;
    const int left = f->glyph->bitmap_left, top = impl_->asc - f->glyph->bitmap_top;
    for (unsigned r = 0; r < b.rows; ++r)
      for (unsigned c = 0; c < b.width; ++c) {
        const uint8_t v = b.buffer[r * static_cast<unsigned>(b.pitch) + c];
        const int x = left + static_cast<int>(c), y = top + static_cast<int>(r);
        if (v == 0) continue;
        if (x < 0 || x >= w || y < 0 || y >= h)
          throw std::runtime_error(std::string("docvqa: glyph '") + ch + "' of " + path + " leaves its " +
                                   std::to_string(w) + "x" + std::to_string(h) + " cell");
        a[static_cast<size_t>(y) * w + x] = v;
      }
    std::vector<uint8_t> g(a.size());
    for (size_t i = 0; i < a.size(); ++i) g[i] = static_cast<uint8_t>((kInk[0] * a[i] + 255 * (255 - a[i]) + 127) / 255);
    for (const auto& [other, og] : impl_->grey)
      if (og == g) throw std::runtime_error(std::string("docvqa: glyphs '") + other + "' and '" + ch + "' look alike");
    impl_->alpha[ch] = std::move(a);
    impl_->grey[ch] = std::move(g);
  }
}

Generator::~Generator() = default;
int Generator::cell_w() const { return impl_->cell_w; }
int Generator::cell_h() const { return impl_->cell_h; }
const std::string& Generator::charset() const { return impl_->charset; }
const std::vector<uint8_t>& Generator::GlyphCell(char c) const { return impl_->grey.at(c); }

Item Generator::Make(Kind kind, int index, bool render) const {
  Rng rng(p_.seed, Stream(kind, index, 1));
  Item item;
  item.kind = kind;
  item.id = std::string("cbdoc_") + KindKey(kind) + "_" + std::to_string(index);
  // Drawing consumes no random numbers, so a questions-only item (im null:
  // every draw is a no-op) has the same questions.
  if (render) item.image = Blank();
  Image* im = render ? &item.image : nullptr;
  // The MC letter: shuffled blocks of four per kind.
  std::array<int, 4> block = {0, 1, 2, 3};
  Rng(p_.seed, Stream(kind, index / 4, 2)).Shuffle(std::span<int>(block));
  const int letter = block[static_cast<size_t>(index % 4)];
  auto question = [&](const std::string& task, const std::string& qkind) -> Question& {
    Question q;
    q.id = item.id + "_q" + std::to_string(item.questions.size());
    q.task = task;
    q.kind = qkind;
    item.questions.push_back(std::move(q));
    return item.questions.back();
  };

  if (kind == Kind::kDocument) {
    static const std::vector<std::string> titles = {"INVOICE", "RECEIPT", "ORDER FORM", "STATEMENT"};
    std::vector<std::string> labels = {"Invoice No", "Order ID", "Date",  "Due Date", "Customer",
                                       "City",       "Total",    "Tax",   "Phone",    "Account"};
    rng.Shuffle(std::span<std::string>(labels));
    labels.resize(6);
    impl_->Text(im, kDocLeft, kDocTop, Pick(rng, titles));
    // A rule in the gap above the first field row (no text cell overlaps it).
    Fill(im, kDocLeft, kDocTop + 2 * kDocPitch - 6, kWidth - kDocLeft, kDocTop + 2 * kDocPitch - 4, kRule);
    std::vector<std::string> values;
    for (size_t r = 0; r < labels.size(); ++r) {
      const std::string& l = labels[r];
      const std::string v = l == "Invoice No" ? Digits(rng, 5)
                            : l == "Order ID" ? "PO-" + Digits(rng, 4)
                            : l == "Date" || l == "Due Date" ? Date(rng)
                            : l == "Customer" ? Pick(rng, Names())
                            : l == "City"     ? Pick(rng, Cities())
                            : l == "Total" || l == "Tax" ? Money(rng)
                            : l == "Phone"    ? "555-" + Digits(rng, 4)
                                              : Digits(rng, 8);
      values.push_back(v);
      impl_->Text(im, kDocLeft, kDocTop + static_cast<int>(r + 2) * kDocPitch, l + ": " + v);
    }
    std::vector<size_t> ask = {0, 1, 2, 3, 4, 5};
    rng.Shuffle(std::span<size_t>(ask));
    for (int k = 0; k < 2; ++k) {
      Question& q = question("docvqa", "field");
      q.subject = labels[ask[static_cast<size_t>(k)]];
      q.text = "What is the " + q.subject + " on this document?\nAnswer the question using a single word or phrase.";
      q.answer = values[ask[static_cast<size_t>(k)]];
    }
    return item;
  }

  // Charts: labels, distinct values with a clear extreme.
  const bool bar = kind == Kind::kBarChart;
  const int n = static_cast<int>(bar ? rng.UniformInt(4, 6) : rng.UniformInt(5, 6));
  const int ppu = static_cast<int>(rng.UniformInt(2, 3));
  std::vector<std::string> labels;
  if (bar) {
    std::vector<std::string> pool = Cities();
    rng.Shuffle(std::span<std::string>(pool));
    labels.assign(pool.begin(), pool.begin() + n);
  } else {
    const int start = static_cast<int>(rng.UniformInt(0, 12 - static_cast<uint64_t>(n)));
    labels.assign(Months().begin() + start, Months().begin() + start + n);
  }
  std::vector<int> values;
  for (;;) {
    values.clear();
    std::vector<int> pool;
    for (int v = 5; v <= 95; ++v) pool.push_back(v);
    rng.Shuffle(std::span<int>(pool));
    values.assign(pool.begin(), pool.begin() + n);
    std::vector<int> s = values;
    std::sort(s.begin(), s.end());
    if (bar ? s[static_cast<size_t>(n - 1)] - s[static_cast<size_t>(n - 2)] >= 5 : s[1] - s[0] >= 5) break;
  }
  impl_->Text(im, kAxisX, 30, bar ? "Visitors by city (thousands)" : "Monthly sales (units)");
  // Axes, ticks every 20 units with right-aligned labels.
  const int top = kBaseY - 100 * ppu;
  Fill(im, kAxisX, top - 10, kAxisX + 1, kBaseY + 1, kAxis);
  Fill(im, kAxisX, kBaseY, kAxisX + 20 + 6 * kSlot, kBaseY + 1, kAxis);
  for (int t = 0; t <= 100; t += 20) {
    const int y = kBaseY - t * ppu;
    Fill(im, kAxisX - 5, y, kAxisX, y + 1, kAxis);
    const std::string s = std::to_string(t);
    impl_->Text(im, kAxisX - 8 - static_cast<int>(s.size()) * impl_->cell_w, y - impl_->cell_h / 2, s);
  }
  std::vector<std::pair<int, int>> points;  // line chart marker centres
  for (int i = 0; i < n; ++i) {
    const int slot = kAxisX + 20 + i * kSlot;
    const int v = values[static_cast<size_t>(i)];
    if (bar) {
      Fill(im, slot + kBarInset, kBaseY - v * ppu, slot + kBarInset + kBarWidth, kBaseY,
           kBarColours[static_cast<size_t>(i) % kBarColours.size()]);
    } else {
      points.emplace_back(slot + kBarInset + kBarWidth / 2, kBaseY - v * ppu);
    }
    impl_->Text(im, slot + kLabelInset, kBaseY + kLabelGap, labels[static_cast<size_t>(i)]);
  }
  for (size_t i = 1; i < points.size(); ++i)
    Line(im, points[i - 1].first, points[i - 1].second, points[i].first, points[i].second, kLine);
  for (const auto& [x, y] : points) Fill(im, x - 3, y - 3, x + 4, y + 4, kMarker);

  const int asked = static_cast<int>(rng.UniformInt(0, static_cast<uint64_t>(n) - 1));
  Question& qv = question("chartqa", bar ? "bar_value" : "line_value");
  qv.subject = labels[static_cast<size_t>(asked)];
  qv.text = (bar ? "What is the value of " + qv.subject + "?" : "What is the value in " + qv.subject + "?") +
            "\nAnswer the question with a single word.";
  qv.answer = std::to_string(values[static_cast<size_t>(asked)]);
  const auto ext = bar ? std::max_element(values.begin(), values.end()) : std::min_element(values.begin(), values.end());
  const std::string best = labels[static_cast<size_t>(ext - values.begin())];
  std::vector<std::string> others;
  for (const auto& l : labels)
    if (l != best) others.push_back(l);
  Question& qm = question("mcq", bar ? "bar_max" : "line_min");
  qm.text = bar ? "Which category has the highest value?" : "In which month is the value lowest?";
  Options(rng, best, others, letter, &qm);
  return item;
}

std::vector<Item> Generator::All() const {
  std::vector<Item> out;
  for (int k = 0; k < kNumKinds; ++k)
    for (int i = 0; i < p_.count; ++i) {
      cb::harness::ThrowIfInterrupted();  // one check point per rendered item
      out.push_back(Make(static_cast<Kind>(k), i));
    }
  return out;
}

std::string ContentHash(const std::vector<Item>& items) {
  std::string buf;
  for (const auto& it : items) {
    buf += it.id;
    buf.push_back('\0');
    buf.append(reinterpret_cast<const char*>(it.image.rgb.data()), it.image.rgb.size());
    for (const auto& q : it.questions) {
      nlohmann::json j = {{"id", q.id}, {"task", q.task}, {"text", q.text}, {"answer", q.answer},
                          {"subject", q.subject}, {"options", q.options}, {"kind", q.kind}};
      buf += j.dump();
    }
  }
  return cb::harness::Xxh3_128(buf).Hex();
}

// ---------------------------------------------------------------------------
// Oracle

std::string Oracle::ReadRow(const Image& im, int x0, int y, int max_cells, int* inexact) const {
  const int w = g_.cell_w(), h = g_.cell_h();
  std::string out;
  std::vector<uint8_t> cell(static_cast<size_t>(w) * h);
  for (int k = 0; k < max_cells; ++k) {
    const int cx = x0 + k * w;
    if (cx < 0 || cx + w > im.width || y < 0 || y + h > im.height) break;
    for (int r = 0; r < h; ++r)
      for (int c = 0; c < w; ++c) cell[static_cast<size_t>(r) * w + c] = im.rgb[(static_cast<size_t>(y + r) * im.width + cx + c) * 3];
    char best = '?';
    long best_d = -1;
    for (char ch : g_.charset()) {
      const auto& g = g_.GlyphCell(ch);
      long d = 0;
      for (size_t i = 0; i < g.size(); ++i) d += std::abs(static_cast<int>(g[i]) - static_cast<int>(cell[i]));
      if (best_d < 0 || d < best_d) best_d = d, best = ch;
      if (d == 0) break;
    }
    if (best_d != 0 && inexact) ++*inexact;
    out.push_back(best);
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

namespace {
bool Is(const Image& im, int x, int y, Rgb c) {
  if (x < 0 || y < 0 || x >= im.width || y >= im.height) return false;
  const uint8_t* p = &im.rgb[(static_cast<size_t>(y) * im.width + x) * 3];
  return p[0] == c[0] && p[1] == c[1] && p[2] == c[2];
}
bool IsWhite(const Image& im, int x, int y) { return Is(im, x, y, kWhite); }
}  // namespace

std::string Oracle::Answer(const Image& im, const Question& q) const {
  const int w = g_.cell_w(), h = g_.cell_h();
  const int max_cells = (im.width - kDocLeft) / w;
  if (q.kind == "field") {
    // Every text row; the one that starts "<Label>: " holds the answer.
    for (int y = kDocTop; y + h <= im.height; y += kDocPitch) {
      const std::string row = ReadRow(im, kDocLeft, y, max_cells);
      const std::string key = q.subject + ": ";
      if (row.rfind(key, 0) == 0) return row.substr(key.size());
    }
    return "";
  }
  // The scale: tick marks left of the axis, the label of the one above 0.
  std::vector<int> ticks;
  for (int y = 0; y < im.height; ++y)
    if (Is(im, kAxisX - 3, y, kAxis)) ticks.push_back(y);
  if (ticks.size() < 2) return "";
  std::sort(ticks.rbegin(), ticks.rend());
  auto label_at = [&](int y) {
    std::string s;
    for (int k = 1; k <= 4; ++k) {
      const std::string c = ReadRow(im, kAxisX - 8 - k * w, y - h / 2, 1);
      if (c.empty()) break;
      s = c + s;
    }
    return s;
  };
  const int v0 = std::atoi(label_at(ticks[0]).c_str()), v1 = std::atoi(label_at(ticks[1]).c_str());
  if (v1 <= v0 || (ticks[0] - ticks[1]) % (v1 - v0) != 0) return "";
  const int ppu = (ticks[0] - ticks[1]) / (v1 - v0), base = ticks[0];
  // Each slot: its label and its value (bar height or marker centre).
  std::vector<std::pair<std::string, int>> read;
  for (int s = 0; s < 6; ++s) {
    const int slot = kAxisX + 20 + s * kSlot;
    const std::string label = ReadRow(im, slot + kLabelInset, base + kLabelGap, 8);
    if (label.empty()) continue;
    int value = -1;
    const int mid = slot + kBarInset + kBarWidth / 2;
    if (q.kind == "bar_value" || q.kind == "bar_max") {
      int y = base - 1;
      while (y >= 0 && !IsWhite(im, mid, y) && !Is(im, mid, y, kAxis)) --y;
      if ((base - 1 - y) % ppu == 0) value = (base - 1 - y) / ppu;
    } else {
      for (int y = 0; y < base; ++y)
        if (Is(im, mid, y, kMarker)) {
          int y1 = y;
          while (Is(im, mid, y1 + 1, kMarker)) ++y1;
          if ((base - (y + y1) / 2) % ppu == 0) value = (base - (y + y1) / 2) / ppu;
          break;
        }
    }
    read.emplace_back(label, value);
  }
  if (q.kind == "bar_value" || q.kind == "line_value") {
    for (const auto& [l, v] : read)
      if (l == q.subject && v >= 0) return std::to_string(v);
    return "";
  }
  if (read.empty()) return "";
  const bool want_max = q.kind == "bar_max";
  auto best = read.begin();
  for (auto it = read.begin(); it != read.end(); ++it)
    if (want_max ? it->second > best->second : it->second < best->second) best = it;
  for (size_t k = 0; k < q.options.size(); ++k)
    if (q.options[k] == best->first) return std::string(1, static_cast<char>('A' + k));
  return "";
}

}  // namespace cb::gen::docvqa
