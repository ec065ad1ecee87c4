// File: reference/regenesis/vote.cpp
// De-duplication, the exact-match filter and the majority vote; see vote.h.
#include "reference/regenesis/vote.h"

#include <set>

namespace cb::ref::regenesis {

Vote MajorityVote(const std::vector<std::optional<std::string>>& answers) {
  std::vector<std::pair<std::string, int>> counts;  // first-occurrence order
  Vote v;
  for (const auto& a : answers) {
    if (!a) continue;
    ++v.voters;
    bool found = false;
    for (auto& c : counts)
      if (c.first == *a) {
        ++c.second;
        found = true;
        break;
      }
    if (!found) counts.emplace_back(*a, 1);
  }
  for (const auto& c : counts)
    if (c.second > v.count) {  // strict: the first of equal counts stays
      v.count = c.second;
      v.answer = c.first;
    }
  return v;
}

std::string PathKey(std::string_view path) {
  std::string k;
  bool space = false;
  for (char c : path) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      space = !k.empty();
      continue;
    }
    if (space) k += ' ';
    space = false;
    k += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  return k;
}

std::vector<size_t> Deduplicate(const std::vector<std::string>& paths) {
  std::set<std::string> seen;
  std::vector<size_t> kept;
  for (size_t i = 0; i < paths.size(); ++i)
    if (seen.insert(PathKey(paths[i])).second) kept.push_back(i);
  return kept;
}

FilterResult FilterPaths(const std::vector<std::string>& paths, const std::optional<std::string>& gold, Family f,
                         Rule rule) {
  FilterResult r;
  const std::vector<size_t> unique = Deduplicate(paths);
  r.duplicates = static_cast<int>(paths.size() - unique.size());
  std::vector<std::optional<std::string>> answers;
  for (size_t i : unique) answers.push_back(ExtractAnswer(paths[i], f, rule));
  if (gold) {
    r.target = Normalize(*gold, f);
  } else {
    r.by_majority = true;
    r.target = MajorityVote(answers).answer;
  }
  for (size_t k = 0; k < unique.size(); ++k) {
    if (!answers[k]) ++r.no_answer;
    else if (r.target && *answers[k] == *r.target) r.kept.push_back(unique[k]);
    else ++r.wrong;
  }
  return r;
}

}  // namespace cb::ref::regenesis
