// File: reference/regenesis/extract.cpp
// Answer extraction and normalisation; the rules are stated in extract.h.
#include "reference/regenesis/extract.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <vector>

namespace cb::ref::regenesis {

namespace {

bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

std::string LowerAscii(std::string_view s) {
  std::string o(s);
  for (char& c : o) c = Lower(c);
  return o;
}

std::string Trim(std::string_view s) {
  size_t a = 0, b = s.size();
  while (a < b && (s[a] == ' ' || s[a] == '\t' || s[a] == '\n' || s[a] == '\r')) ++a;
  while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t' || s[b - 1] == '\n' || s[b - 1] == '\r')) --b;
  return std::string(s.substr(a, b - a));
}

std::string FormatNumber(double v) {
  if (v == 0) v = 0;  // no "-0"
  char buf[64];
  if (std::fabs(v - std::round(v)) < 1e-9 && std::fabs(v) < 1e15) {
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(std::llround(v)));
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%.6f", v);
  std::string s = buf;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s == "-0" ? "0" : s;
}

// Numbers in `t` as [begin, end) spans, in order (see extract.h: a digit run
// with thousands commas, a decimal part, a "/d" fraction, a '-' sign that
// does not follow a letter or digit, a '$' before it).
std::vector<std::pair<size_t, size_t>> NumberSpans(std::string_view t) {
  std::vector<std::pair<size_t, size_t>> out;
  size_t i = 0;
  while (i < t.size()) {
    if (!IsDigit(t[i]) || (i > 0 && (IsDigit(t[i - 1]) || t[i - 1] == '.'))) {
      ++i;
      continue;
    }
    size_t b = i;
    if (b > 0 && t[b - 1] == '$') --b;
    if (b > 0 && t[b - 1] == '-' && (b < 2 || !(IsAlpha(t[b - 2]) || IsDigit(t[b - 2])))) --b;
    size_t e = i;
    while (e < t.size() && IsDigit(t[e])) ++e;
    while (e + 3 < t.size() + 0 && t[e] == ',' && IsDigit(t[e + 1]) && IsDigit(t[e + 2]) && IsDigit(t[e + 3]) &&
           (e + 4 >= t.size() || !IsDigit(t[e + 4])))
      e += 4;
    if (e + 1 < t.size() && t[e] == '.' && IsDigit(t[e + 1])) {
      ++e;
      while (e < t.size() && IsDigit(t[e])) ++e;
    }
    if (e + 1 < t.size() && t[e] == '/' && IsDigit(t[e + 1])) {
      ++e;
      while (e < t.size() && IsDigit(t[e])) ++e;
    }
    out.emplace_back(b, e);
    i = e;
  }
  return out;
}

std::vector<std::pair<size_t, size_t>> LetterSpans(std::string_view t) {
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] < 'A' || t[i] > 'E') continue;
    if (i > 0 && IsAlpha(t[i - 1])) continue;
    if (i + 1 < t.size() && IsAlpha(t[i + 1])) continue;
    // The article "A" before a lower-case word is not an answer.
    if (t[i] == 'A' && i + 2 < t.size() && t[i + 1] == ' ' && t[i + 2] >= 'a' && t[i + 2] <= 'z') continue;
    out.emplace_back(i, i + 1);
  }
  return out;
}

std::vector<std::pair<size_t, size_t>> YesNoSpans(std::string_view t) {
  std::vector<std::pair<size_t, size_t>> out;
  size_t i = 0;
  while (i < t.size()) {
    if (!IsAlpha(t[i])) {
      ++i;
      continue;
    }
    size_t e = i;
    while (e < t.size() && IsAlpha(t[e])) ++e;
    const std::string w = LowerAscii(t.substr(i, e - i));
    if (w == "yes" || w == "no" || w == "true" || w == "false") out.emplace_back(i, e);
    i = e;
  }
  return out;
}

// Non-empty lines as spans.
std::vector<std::pair<size_t, size_t>> LineSpans(std::string_view t) {
  std::vector<std::pair<size_t, size_t>> out;
  size_t b = 0;
  while (b <= t.size()) {
    size_t e = t.find('\n', b);
    if (e == std::string_view::npos) e = t.size();
    if (!Trim(t.substr(b, e - b)).empty()) out.emplace_back(b, e);
    b = e + 1;
  }
  return out;
}

std::vector<std::pair<size_t, size_t>> Spans(std::string_view t, Family f) {
  switch (f) {
    case Family::kNumber: return NumberSpans(t);
    case Family::kLetter: return LetterSpans(t);
    case Family::kYesNo: return YesNoSpans(t);
    case Family::kLabel: return LineSpans(t);
  }
  return {};
}

// Where the marked span starts (after the last "####", else after the last
// "answer is" / "answer:"), or npos.
size_t MarkedStart(std::string_view t) {
  const size_t hash = t.rfind("####");
  if (hash != std::string_view::npos) return hash + 4;
  const std::string low = LowerAscii(t);
  size_t best = std::string::npos;
  for (const char* m : {"answer is", "answer:"}) {
    const size_t p = low.rfind(m);
    if (p != std::string::npos && (best == std::string::npos || p + std::char_traits<char>::length(m) > best))
      best = p + std::char_traits<char>::length(m);
  }
  return best;
}

}  // namespace

const char* FamilyName(Family f) {
  switch (f) {
    case Family::kNumber: return "number";
    case Family::kLetter: return "letter";
    case Family::kYesNo: return "yesno";
    case Family::kLabel: return "label";
  }
  return "?";
}

std::optional<Family> ParseFamily(std::string_view name) {
  for (Family f : {Family::kNumber, Family::kLetter, Family::kYesNo, Family::kLabel})
    if (name == FamilyName(f)) return f;
  return std::nullopt;
}

const char* RuleName(Rule r) {
  switch (r) {
    case Rule::kStandard: return "standard";
    case Rule::kStrict: return "strict";
    case Rule::kFirst: return "first";
  }
  return "?";
}

std::string CanonicalTask(std::string_view task) {
  std::string t = LowerAscii(Trim(task));
  for (char& c : t)
    if (c == '-' || c == ' ') c = '_';
  static const std::map<std::string, std::string> aliases = {
      {"arc", "arc_c"}, {"arc_challenge", "arc_c"}, {"arcc", "arc_c"}, {"obqa", "openbookqa"},
      {"openbook_qa", "openbookqa"}, {"strategy_qa", "strategyqa"}, {"gsm_8k", "gsm8k"}, {"num_glue", "numglue"}};
  const auto it = aliases.find(t);
  return it == aliases.end() ? t : it->second;
}

Family TaskFamily(std::string_view task) {
  static const std::map<std::string, Family, std::less<>> k = {
      {"gsm8k", Family::kNumber},  {"numglue", Family::kNumber},   {"asdiv", Family::kNumber},
      {"svamp", Family::kNumber},  {"arc_c", Family::kLetter},     {"reclor", Family::kLetter},
      {"aqua", Family::kLetter},   {"openbookqa", Family::kLetter}, {"strategyqa", Family::kYesNo},
      {"anli", Family::kLabel},    {"bbh", Family::kLabel}};
  const auto it = k.find(task);
  return it == k.end() ? Family::kLabel : it->second;
}

std::optional<std::string> Normalize(std::string_view value, Family f) {
  std::string v = Trim(value);
  switch (f) {
    case Family::kNumber: {
      std::string s;
      for (char c : v)
        if (c != '$' && c != ',' && c != ' ') s += c;
      while (!s.empty() && (s.back() == '%' || s.back() == '.')) s.pop_back();
      if (!s.empty() && s[0] == '+') s.erase(0, 1);
      if (s.empty()) return std::nullopt;
      const size_t slash = s.find('/');
      char* end = nullptr;
      if (slash != std::string::npos) {
        const std::string a = s.substr(0, slash), b = s.substr(slash + 1);
        const double x = std::strtod(a.c_str(), &end);
        if (a.empty() || *end != '\0') return std::nullopt;
        const double y = std::strtod(b.c_str(), &end);
        if (b.empty() || *end != '\0' || y == 0) return std::nullopt;
        return FormatNumber(x / y);
      }
      const double x = std::strtod(s.c_str(), &end);
      if (*end != '\0' || !std::isfinite(x) || !(IsDigit(s[0]) || s[0] == '-' || s[0] == '.')) return std::nullopt;
      return FormatNumber(x);
    }
    case Family::kLetter: {
      std::string s;
      for (char c : v)
        if (c != '(' && c != ')' && c != '.' && c != ' ' && c != ':') s += c;
      if (s.size() != 1) return std::nullopt;
      char c = s[0];
      if (c >= '1' && c <= '5') return std::string(1, static_cast<char>('A' + (c - '1')));
      if (c >= 'a' && c <= 'e') c = static_cast<char>(c - 'a' + 'A');
      if (c >= 'A' && c <= 'E') return std::string(1, c);
      return std::nullopt;
    }
    case Family::kYesNo: {
      std::string s = LowerAscii(v);
      while (!s.empty() && (s.back() == '.' || s.back() == '!')) s.pop_back();
      if (s == "yes" || s == "true") return std::string("yes");
      if (s == "no" || s == "false") return std::string("no");
      return std::nullopt;
    }
    case Family::kLabel: {
      std::string s, low = LowerAscii(v);
      bool space = false;
      for (char c : low) {
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
          space = !s.empty();
          continue;
        }
        if (space) s += ' ';
        space = false;
        s += c;
      }
      auto strip = [&](char c) { return c == '"' || c == '\'' || c == '(' || c == ')' || c == '[' || c == ']' || c == '*'; };
      while (!s.empty() && (strip(s.back()) || s.back() == '.')) s.pop_back();
      size_t a = 0;
      while (a < s.size() && strip(s[a])) ++a;
      s.erase(0, a);
      if (s.empty()) return std::nullopt;
      return s;
    }
  }
  return std::nullopt;
}

std::optional<std::string> ExtractAnswer(std::string_view text, Family f, Rule rule) {
  if (rule == Rule::kFirst) {
    const auto spans = Spans(text, f);
    if (spans.empty()) return std::nullopt;
    return Normalize(text.substr(spans.front().first, spans.front().second - spans.front().first), f);
  }
  const size_t start = MarkedStart(text);
  if (start != std::string_view::npos) {
    std::string_view span = text.substr(start);
    if (f == Family::kLabel) span = span.substr(0, span.find('\n'));
    const auto spans = Spans(span, f);
    if (spans.empty()) return std::nullopt;
    return Normalize(span.substr(spans.front().first, spans.front().second - spans.front().first), f);
  }
  if (rule == Rule::kStrict) return std::nullopt;
  const auto spans = Spans(text, f);
  if (spans.empty()) return std::nullopt;
  return Normalize(text.substr(spans.back().first, spans.back().second - spans.back().first), f);
}

}  // namespace cb::ref::regenesis
