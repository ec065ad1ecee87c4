// File: reference/medrega/boxes.cpp
// Box text, ground truth and IoU; see boxes.h.
#include "reference/medrega/boxes.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "reference/medrega/pytext.h"

namespace cb::ref::medrega {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The code points of Unicode's decimal digit zeros (category Nd comes in runs
// of ten): what Python's `\d` matches in a str pattern, ASCII first.
constexpr char32_t kDigitZeros[] = {
    0x0030,  0x0660,  0x06F0,  0x07C0,  0x0966,  0x09E6,  0x0A66,  0x0AE6,  0x0B66,  0x0BE6,  0x0C66,  0x0CE6,
    0x0D66,  0x0DE6,  0x0E50,  0x0ED0,  0x0F20,  0x1040,  0x1090,  0x17E0,  0x1810,  0x1946,  0x19D0,  0x1A80,
    0x1A90,  0x1B50,  0x1BB0,  0x1C40,  0x1C50,  0xA620,  0xA8D0,  0xA900,  0xA9D0,  0xA9F0,  0xAA50,  0xABF0,
    0xFF10,  0x104A0, 0x10D30, 0x11066, 0x110F0, 0x11136, 0x111D0, 0x112F0, 0x11450, 0x114D0, 0x11650, 0x116C0,
    0x11730, 0x118E0, 0x11950, 0x11C50, 0x11D50, 0x11DA0, 0x11F50, 0x16A60, 0x16AC0, 0x16B50, 0x1D7CE, 0x1D7D8,
    0x1D7E2, 0x1D7EC, 0x1D7F6, 0x1E140, 0x1E2F0, 0x1E4F0, 0x1E950, 0x1FBF0};

// The value 0-9 of a decimal digit code point, or -1.
int DigitValue(char32_t c) {
  for (char32_t z : kDigitZeros)
    if (c >= z && c < z + 10) return static_cast<int>(c - z);
  return -1;
}

// Whitespace Python's tokenizer accepts inside brackets (space, tab, form
// feed, newlines); \v and \x1c-\x1f make ast.literal_eval raise.
bool IsTokenizerSpace(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\n' || c == '\r'; }

// A decimal integer literal Python refuses: a leading 0 followed by a
// non-zero digit ("05", "007"); "0" and "00" are fine.
bool LeadingZeroLiteral(std::string_view digits) {
  if (digits.size() < 2 || digits[0] != '0') return false;
  return digits.find_first_not_of('0') != std::string_view::npos;
}

// One PATTERN_REGCAP list at text[q]: its numbers (strings), whether
// literal_eval would raise on it, and the end.
struct ListMatch {
  std::vector<std::string> numbers;
  bool eval_fails = false;
  size_t end = 0;
};

class ListMatcher {
 public:
  explicit ListMatcher(std::string_view s) : s_(s) {}

  bool Match(size_t q, ListMatch* out) {
    pos_ = q;
    out_ = out;
    *out = ListMatch{};
    if (!Char('[') || !Char('[') || !BoxBody()) return false;
    while (true) {  // (?:,\s*\[ box \])*  greedy; a partial repeat is undone
      const size_t save = pos_;
      const size_t saved_numbers = out->numbers.size();
      const bool saved_fail = out->eval_fails;
      if (Char(',') && Spaces() && Char('[') && BoxBody()) continue;
      pos_ = save;
      out->numbers.resize(saved_numbers);
      out->eval_fails = saved_fail;
      break;
    }
    if (!Char(']')) return false;
    out->end = pos_;
    return true;
  }

 private:
  bool Char(char c) {
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  // \s*: Python's Unicode whitespace; only space, tab, form feed and
  // newlines get through literal_eval (\v, \x1c-\x1f, U+00A0, U+3000 ... raise).
  bool Spaces() {
    while (pos_ < s_.size()) {
      size_t next = pos_;
      const char32_t c = NextCodePoint(s_, &next);
      if (!IsPySpace(c)) break;
      if (c >= 0x80 || !IsTokenizerSpace(static_cast<char>(c))) out_->eval_fails = true;
      pos_ = next;
    }
    return true;
  }
  // \d+: Unicode decimal digits; literal_eval accepts ASCII ones only.
  bool Digits() {
    std::string ascii;
    while (pos_ < s_.size()) {
      size_t next = pos_;
      const int v = DigitValue(NextCodePoint(s_, &next));
      if (v < 0) break;
      if (next - pos_ > 1) out_->eval_fails = true;  // e.g. fullwidth '１': a SyntaxError in Python
      ascii.push_back(static_cast<char>('0' + v));
      pos_ = next;
    }
    if (ascii.empty()) return false;
    if (LeadingZeroLiteral(ascii)) out_->eval_fails = true;
    out_->numbers.push_back(std::move(ascii));
    return true;
  }
  // \d+,\s*\d+,\s*\d+,\s*\d+\]
  bool BoxBody() {
    return Digits() && Char(',') && Spaces() && Digits() && Char(',') && Spaces() && Digits() && Char(',') &&
           Spaces() && Digits() && Char(']');
  }

  std::string_view s_;
  size_t pos_ = 0;
  ListMatch* out_ = nullptr;
};

// A small Python-literal reader for ground-truth box lists: nested lists of
// int/float numbers (signs allowed, trailing commas allowed).
class LiteralReader {
 public:
  LiteralReader(std::string_view s, Mode mode) : s_(s), mode_(mode) {}

  // The list of boxes: a list of lists of numbers.
  std::vector<std::vector<double>> BoxLists() {
    std::vector<std::vector<double>> out;
    Skip();
    Expect('[');
    Skip();
    while (!Peek(']')) {
      Expect('[');
      std::vector<double> inner;
      Skip();
      while (!Peek(']')) {
        inner.push_back(Number());
        Skip();
        if (Peek(',')) {
          ++pos_;
          Skip();
        } else if (!Peek(']')) {
          Fail("expected ',' or ']'");
        }
      }
      ++pos_;
      out.push_back(std::move(inner));
      Skip();
      if (Peek(',')) {
        ++pos_;
        Skip();
      } else if (!Peek(']')) {
        Fail("expected ',' or ']'");
      }
    }
    ++pos_;
    Skip();
    if (pos_ != s_.size()) Fail("trailing text");
    return out;
  }

 private:
  [[noreturn]] void Fail(const std::string& what) const {
    throw std::invalid_argument("ground-truth box list '" + std::string(s_) + "': " + what + " (the code's "
                                "ast.literal_eval / process_box would raise)");
  }
  void Skip() {
    while (pos_ < s_.size() && IsTokenizerSpace(s_[pos_])) ++pos_;
  }
  bool Peek(char c) const {
    if (pos_ >= s_.size()) Fail("unexpected end");
    return s_[pos_] == c;
  }
  void Expect(char c) {
    if (!Peek(c)) Fail(std::string("expected '") + c + "'");
    ++pos_;
  }
  double Number() {
    const size_t start = pos_;
    if (pos_ < s_.size() && (s_[pos_] == '-' || s_[pos_] == '+')) ++pos_;
    const size_t digits = pos_;
    while (pos_ < s_.size() && (IsDigit(s_[pos_]) || s_[pos_] == '.' || s_[pos_] == 'e' || s_[pos_] == 'E' ||
                                ((s_[pos_] == '-' || s_[pos_] == '+') && (s_[pos_ - 1] == 'e' || s_[pos_ - 1] == 'E'))))
      ++pos_;
    const std::string text(s_.substr(start, pos_ - start));
    const std::string_view body = s_.substr(digits, pos_ - digits);
    if (body.empty()) Fail("expected a number");
    const bool integer = body.find_first_not_of("0123456789") == std::string_view::npos;
    if (integer && mode_ == Mode::kPaperCompatible && LeadingZeroLiteral(body)) Fail("leading zero in '" + text + "'");
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size()) Fail("bad number '" + text + "'");
    return v;
  }

  std::string_view s_;
  Mode mode_;
  size_t pos_ = 0;
};

}  // namespace

const char* ModeName(Mode m) { return m == Mode::kStrict ? "strict" : "paper-compatible"; }

std::vector<Box> ParsedAnswer::AllBoxes() const {
  std::vector<Box> out;
  for (const auto& g : groups) out.insert(out.end(), g.boxes.begin(), g.boxes.end());
  if (failed) out.push_back(Box{});
  return out;
}

Box ScaleGridBox(double x1, double y1, double x2, double y2, int height, int width, Mode mode) {
  if (mode == Mode::kPaperCompatible) {
    // torch float32: (v / 999) first, then * width or * height.
    const float s = static_cast<float>(kBoxScale), fw = static_cast<float>(width), fh = static_cast<float>(height);
    auto sx = [&](double v) { return static_cast<double>((static_cast<float>(v) / s) * fw); };
    auto sy = [&](double v) { return static_cast<double>((static_cast<float>(v) / s) * fh); };
    return {sx(x1), sy(y1), sx(x2), sy(y2)};
  }
  // Strict: multiply first, so integer grid values on a 999-wide image are exact.
  return {x1 * width / kBoxScale, y1 * height / kBoxScale, x2 * width / kBoxScale, y2 * height / kBoxScale};
}

ParsedAnswer ParseAnswer(const std::optional<std::string>& answer, int height, int width, Mode mode) {
  ParsedAnswer out;
  if (!answer) {
    out.failed = mode == Mode::kPaperCompatible;  // re.findall on a non-string raises
    return out;
  }
  const std::string_view s = *answer;
  ListMatcher matcher(s);
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t q = pos;
    while (q < s.size() && s[q] != '[' && s[q] != ']') ++q;  // ([^\[\]]*) is maximal
    ListMatch m;
    if (q < s.size() && matcher.Match(q, &m)) {
      if (mode == Mode::kPaperCompatible && m.eval_fails) {
        out.failed = true;  // this group and everything after it are lost
        return out;
      }
      BoxGroup g;
      const std::string name = AsciiLower(s.substr(pos, q - pos));
      g.name = mode == Mode::kStrict ? PyStrip(name) : name;
      for (size_t k = 0; k + 3 < m.numbers.size(); k += 4) {
        const double v[4] = {std::strtod(m.numbers[k].c_str(), nullptr), std::strtod(m.numbers[k + 1].c_str(), nullptr),
                             std::strtod(m.numbers[k + 2].c_str(), nullptr),
                             std::strtod(m.numbers[k + 3].c_str(), nullptr)};
        g.boxes.push_back(ScaleGridBox(v[0], v[1], v[2], v[3], height, width, mode));
      }
      out.groups.push_back(std::move(g));
      pos = m.end;
    } else {
      pos = q + 1;  // every start in [pos, q] fails the same way
    }
  }
  return out;
}

std::vector<BoxGroup> ParseGroundTruth(std::string_view s, int height, int width, Mode mode) {
  static constexpr std::string_view kRef = "<ref>", kMid = "</ref><box>", kEnd = "</box>";
  std::vector<BoxGroup> out;
  size_t pos = 0;
  while (true) {
    const size_t r = s.find(kRef, pos);
    if (r == std::string_view::npos) break;
    // Non-greedy (.*?)</ref><box>(.*?)</box> with '.' excluding '\n': the first
    // </ref><box> on the line whose box part closes on the same line.
    const size_t name_begin = r + kRef.size();
    const size_t line_end = std::min(s.find('\n', name_begin), s.size());
    bool matched = false;
    for (size_t mid = s.find(kMid, name_begin); mid != std::string_view::npos && mid + kMid.size() <= line_end;
         mid = s.find(kMid, mid + 1)) {
      const size_t box_begin = mid + kMid.size();
      const size_t end = s.find(kEnd, box_begin);
      if (end == std::string_view::npos || end > line_end) continue;
      BoxGroup g;
      g.name = AsciiLower(s.substr(name_begin, mid - name_begin));
      if (mode == Mode::kStrict) g.name = PyStrip(g.name);
      LiteralReader reader(s.substr(box_begin, end - box_begin), mode);
      for (const auto& inner : reader.BoxLists()) {
        if (inner.size() < 4 || inner.size() % 4 != 0)
          throw std::invalid_argument("ground-truth box with " + std::to_string(inner.size()) +
                                      " numbers (process_box needs a multiple of 4)");
        g.boxes.push_back(ScaleGridBox(inner[0], inner[1], inner[2], inner[3], height, width, mode));
      }
      out.push_back(std::move(g));
      pos = end + kEnd.size();
      matched = true;
      break;
    }
    if (!matched) pos = r + 1;
  }
  return out;
}

double Iou(const Box& a, const Box& b, Mode mode) {
  if (mode == Mode::kPaperCompatible) {
    using F = float;
    const F ax1 = F(a.x1), ay1 = F(a.y1), ax2 = F(a.x2), ay2 = F(a.y2);
    const F bx1 = F(b.x1), by1 = F(b.y1), bx2 = F(b.x2), by2 = F(b.y2);
    const F area1 = (ax2 - ax1) * (ay2 - ay1), area2 = (bx2 - bx1) * (by2 - by1);
    const F w = std::max(std::min(ax2, bx2) - std::max(ax1, bx1), F(0));
    const F h = std::max(std::min(ay2, by2) - std::max(ay1, by1), F(0));
    const F inter = w * h;
    const F uni = area1 + area2 - inter;
    return static_cast<double>(inter / uni);  // 0/0 -> NaN, as torch
  }
  const double area1 = std::max(a.x2 - a.x1, 0.0) * std::max(a.y2 - a.y1, 0.0);
  const double area2 = std::max(b.x2 - b.x1, 0.0) * std::max(b.y2 - b.y1, 0.0);
  const double w = std::max(std::min(a.x2, b.x2) - std::max(a.x1, b.x1), 0.0);
  const double h = std::max(std::min(a.y2, b.y2) - std::max(a.y1, b.y1), 0.0);
  const double inter = w * h, uni = area1 + area2 - inter;
  return uni > 0 ? inter / uni : 0.0;
}

std::string GridBoxText(const std::vector<std::array<int, 4>>& boxes) {
  std::string out = "[";
  for (size_t i = 0; i < boxes.size(); ++i) {
    if (i) out += ", ";
    out += "[" + std::to_string(boxes[i][0]) + ", " + std::to_string(boxes[i][1]) + ", " +
           std::to_string(boxes[i][2]) + ", " + std::to_string(boxes[i][3]) + "]";
  }
  return out + "]";
}

}  // namespace cb::ref::medrega
