// File: reference/sgp/sgp.cpp
// The SGP-Bench scorer; see sgp.h for the rules of each mode.
#include "reference/sgp/sgp.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "harness/jsonl.h"

namespace cb::ref::sgp {
namespace {

bool Space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// Python's re `\s*` over ASCII whitespace, then ':' etc. Returns the letter
// matched by (?i)Answer\s*:\s*([A-D]) at the first position it matches.
char FirstOfficialMatch(std::string_view s) {
  static constexpr std::string_view kWord = "answer";
  for (size_t i = 0; i + kWord.size() <= s.size(); ++i) {
    bool word = true;
    for (size_t k = 0; k < kWord.size() && word; ++k)
      word = std::tolower(static_cast<unsigned char>(s[i + k])) == kWord[k];
    if (!word) continue;
    size_t j = i + kWord.size();
    while (j < s.size() && Space(s[j])) ++j;
    if (j >= s.size() || s[j] != ':') continue;
    ++j;
    while (j < s.size() && Space(s[j])) ++j;
    if (j < s.size()) {
      const char c = s[j];
      if ((c >= 'A' && c <= 'D') || (c >= 'a' && c <= 'd')) return c;  // (?i) covers the class too
    }
  }
  return 0;
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
    for (const char* k : {"Answer", "Subject", "response"})
      if (!j.contains(k) || !j[k].is_string()) throw std::runtime_error(where + "missing string field '" + k + "'");
    Prediction p;
    const std::string ans = j["Answer"];
    if (ans.size() != 1 || ans[0] < 'A' || ans[0] > 'D')
      throw std::runtime_error(where + "Answer must be one of A, B, C, D, not '" + ans + "'");
    p.answer = ans[0];
    p.subject = j["Subject"];
    if (!KnownSubject(p.subject))
      throw std::runtime_error(where + "unknown Subject '" + p.subject +
                               "' (known: Semantics, Color, Shape, Count, Reasoning)");
    p.response = j["response"];
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
    const char got = Extract(p.response, mode);
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
    if (p.index >= 0) by_split[p.split][p.index] = Extract(p.response, mode);
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
