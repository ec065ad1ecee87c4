// File: reference/sgp/sgp.cpp
// The SGP-Bench scorer; see sgp.h for the rules of each mode.
#include "reference/sgp/sgp.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <set>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "harness/jsonl.h"

namespace cb::ref::sgp {
namespace {

// The code point of the UTF-8 sequence at s[i], its length in *len; a byte
// that starts no well-formed sequence is returned as -1 with length 1 (a
// Python str never holds one; it then matches nothing here).
int32_t DecodeAt(std::string_view s, size_t i, size_t* len) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  *len = 1;
  if (c < 0x80) return c;
  const size_t n = c >= 0xF5 ? 0 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
  if (n == 0 || i + n > s.size()) return -1;
  int32_t cp = c & (0x7F >> n);
  for (size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xC0) != 0x80) return -1;
    cp = (cp << 6) | (b(k) & 0x3F);
  }
  // Overlong three- and four-byte forms, surrogates and > U+10FFFF.
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF))
    return -1;
  *len = n;
  return cp;
}

// Python's re `\s` on str: str.isspace(), i.e. general category Zs or
// bidirectional class WS, B or S (Python 3.11.7, Unicode 14.0: these 29 code
// points; U+180E left the set with Unicode 6.3).
bool PySpace(int32_t cp) {
  return (cp >= 0x09 && cp <= 0x0D) || (cp >= 0x1C && cp <= 0x20) || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F ||
         cp == 0x3000;
}

// Skips Python `\s*` from s[j]; returns the first position after it.
size_t SkipPySpace(std::string_view s, size_t j) {
  size_t len = 1;
  while (j < s.size() && PySpace(DecodeAt(s, j, &len))) j += len;
  return j;
}

// The letter matched by (?i)Answer\s*:\s*([A-D]) at the leftmost position it
// matches, or 0. Under (?i) Python matches a code point against a literal
// letter when their simple lower cases are equal, plus the fix-ups for letters
// with several case forms: of "answer" only 's' has one (U+017F, which upper-
// cases to 'S'); and [A-D] matches exactly A-D, a-d (checked over every code
// point with Python 3.11's re). A match cannot start inside a multi-byte
// sequence ('A'/'a' are ASCII), so trying every byte offset is Python's scan.
char FirstOfficialMatch(std::string_view s) {
  static constexpr std::string_view kWord = "answer";
  for (size_t i = 0; i < s.size(); ++i) {
    size_t j = i;
    bool word = true;
    for (size_t k = 0; k < kWord.size() && word; ++k) {
      size_t len = 1;
      const int32_t cp = j < s.size() ? DecodeAt(s, j, &len) : -1;
      word = (cp >= 0 && cp < 0x80 && std::tolower(cp) == kWord[k]) || (kWord[k] == 's' && cp == 0x17F);
      j += len;
    }
    if (!word) continue;
    j = SkipPySpace(s, j);
    if (j >= s.size() || s[j] != ':') continue;
    j = SkipPySpace(s, j + 1);
    if (j < s.size()) {
      const char c = s[j];
      if ((c >= 'A' && c <= 'D') || (c >= 'a' && c <= 'd')) return c;  // (?i) covers the class too
    }
  }
  return 0;
}

// ASCII whitespace: the strict mode's trimming (sgp.h).
bool Space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// How an error names a JSON value's kind: "null", "a number", ...
std::string JsonKind(const nlohmann::json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  return v.is_array() ? "a list" : "an object";
}

std::string Trim(std::string_view s) {
  size_t a = 0, b = s.size();
  while (a < b && Space(s[a])) ++a;
  while (b > a && Space(s[b - 1])) --b;
  return std::string(s.substr(a, b - a));
}

// A line "Answer: X" (decorations allowed, see sgp.h); the letter upper-cased.
char StrictLine(std::string_view line) {
  std::string t = Trim(line);
  auto strip = [&t](const std::string& chars) {
    while (!t.empty() && chars.find(t.front()) != std::string::npos) t.erase(t.begin());
    while (!t.empty() && chars.find(t.back()) != std::string::npos) t.pop_back();
    t = Trim(t);
  };
  strip("*_` ");
  std::string low = t;
  for (char& c : low) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (low.rfind("answer", 0) != 0) return 0;
  t = Trim(std::string_view(t).substr(6));
  strip("*_ ");
  if (t.empty() || t.front() != ':') return 0;
  t = Trim(std::string_view(t).substr(1));
  strip("*_`() ");
  if (!t.empty() && t.back() == '.') t.pop_back();
  strip("*_`() ");
  if (t.size() != 1) return 0;
  const char c = static_cast<char>(std::toupper(static_cast<unsigned char>(t[0])));
  return c >= 'A' && c <= 'D' ? c : 0;
}

}  // namespace

const char* ModeName(Mode m) { return m == Mode::kStrict ? "strict" : "paper-compatible"; }

bool KnownSubject(std::string_view s) {
  return std::any_of(std::begin(kSubjects), std::end(kSubjects), [&](const char* k) { return s == k; });
}

char Extract(std::string_view response, Mode mode) {
  if (mode == Mode::kPaperCompatible) return FirstOfficialMatch(response);
  char last = 0;
  size_t pos = 0;
  while (pos <= response.size()) {
    size_t end = response.find('\n', pos);
    if (end == std::string_view::npos) end = response.size();
    if (char c = StrictLine(response.substr(pos, end - pos)); c != 0) last = c;
    pos = end + 1;
  }
  return last;
}

char ExtractRow(const Prediction& p, Mode mode) {
  if (mode == Mode::kStrict) return Extract(p.response, mode);
  // sgp_eval.py: while retry_count < max_retries and extracted_answer is None.
  char got = Extract(p.response, mode);
  for (size_t k = 0; got == 0 && k < p.requeries.size() && k + 1 < static_cast<size_t>(kMaxAttempts); ++k)
    got = Extract(p.requeries[k], mode);
  return got;
}

bool Correct(std::string_view response, char key, Mode mode) {
  const char got = Extract(response, mode);
  return got != 0 && got == key;  // case-sensitive, as simple-evals compares
}

std::string Prompt(const std::string& question, const std::string& a, const std::string& b, const std::string& c,
                   const std::string& d) {
  return "Answer the following multiple choice question. The last line of your response should be of the following "
         "format: 'Answer: $LETTER' (without quotes) where LETTER is one of ABCD. Think step by step before "
         "answering.\n\n" +
         question + "\n\nA) " + a + "\nB) " + b + "\nC) " + c + "\nD) " + d;
}

std::vector<Prediction> ParsePredictions(std::string_view text, const std::string& source) {
  std::vector<Prediction> out;
  cb::harness::ForEachJsonlObject(text, source, [&](const nlohmann::json& j, const std::string& where) {
    for (const char* k : {"Answer", "Subject"}) {
      if (!j.contains(k)) throw std::runtime_error(where + "missing field '" + k + "'");
      if (!j[k].is_string()) throw std::runtime_error(where + "'" + k + "' must be a string, not " + JsonKind(j[k]));
    }
    Prediction p;
    const std::string ans = j["Answer"];
    if (ans.size() != 1 || ans[0] < 'A' || ans[0] > 'D')
      throw std::runtime_error(where + "Answer must be one of A, B, C, D, not '" + ans + "'");
    p.answer = ans[0];
    p.subject = j["Subject"];
    if (!KnownSubject(p.subject))
      throw std::runtime_error(where + "unknown Subject '" + p.subject +
                               "' (known: Semantics, Color, Shape, Count, Reasoning)");
    const bool one = j.contains("response"), many = j.contains("responses");
    if (one && many) throw std::runtime_error(where + "give 'response' or 'responses', not both");
    if (!one && !many)
      throw std::runtime_error(where + "missing field 'response' (or 'responses', the re-query attempts)");
    if (one) {
      if (!j["response"].is_string())
        throw std::runtime_error(where + "'response' must be a string, not " + JsonKind(j["response"]));
      p.response = j["response"];
    } else {
      const auto& r = j["responses"];
      if (!r.is_array() || r.empty() ||
          !std::all_of(r.begin(), r.end(), [](const nlohmann::json& e) { return e.is_string(); }))
        throw std::runtime_error(where + "'responses' must be a non-empty list of strings");
      p.response = r[0];
      for (size_t k = 1; k < r.size(); ++k) p.requeries.push_back(r[k]);
    }
    if (j.contains("split")) {
      if (!j["split"].is_string()) throw std::runtime_error(where + "'split' must be a string");
      p.split = j["split"];
    }
    if (j.contains("index")) {
      if (!j["index"].is_number_integer() || j["index"].get<int64_t>() < 0)
        throw std::runtime_error(where + "'index' must be a non-negative integer");
      p.index = j["index"].get<int>();
    }
    out.push_back(std::move(p));
  });
  return out;
}

Scores Score(const std::vector<Prediction>& preds, Mode mode) {
  Scores s;
  for (const Prediction& p : preds) {
    const char got = ExtractRow(p, mode);
    const bool ok = got != 0 && got == p.answer;
    for (Tally* t : {&s.overall, &s.subjects[p.subject], &s.splits[p.split]}) {
      ++t->n;
      t->correct += ok;
      t->unanswered += got == 0;
    }
  }
  return s;
}

std::optional<Consistency> ScoreConsistency(const std::vector<Prediction>& preds, const std::string& original,
                                            const std::vector<std::string>& variants, Mode mode) {
  std::map<std::string, std::map<int, char>> by_split;
  for (const Prediction& p : preds)
    if (p.index >= 0) by_split[p.split][p.index] = ExtractRow(p, mode);
  const auto orig = by_split.find(original);
  if (orig == by_split.end()) return std::nullopt;
  Consistency c;
  double sum = 0;
  for (const auto& [index, answer] : orig->second) {
    std::map<char, int> votes{{answer, 1}};
    bool complete = true;
    for (const auto& v : variants) {
      const auto sv = by_split.find(v);
      if (sv == by_split.end() || !sv->second.count(index)) {
        complete = false;
        break;
      }
      ++votes[sv->second.at(index)];
    }
    if (!complete) continue;
    int best = 0;
    for (const auto& [letter, n] : votes) best = std::max(best, n);
    sum += static_cast<double>(best) / (1.0 + variants.size());
    ++c.questions;
  }
  if (c.questions == 0) return std::nullopt;
  c.value = sum / c.questions;
  return c;
}

}  // namespace cb::ref::sgp
