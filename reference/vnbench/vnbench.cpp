// File: reference/vnbench/vnbench.cpp
// The VNBench scorer; see vnbench.h for the rules of each mode.
#include "reference/vnbench/vnbench.h"

#include <cctype>
#include <charconv>
#include <set>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "harness/jsonl.h"

namespace cb::ref::vnbench {
namespace {

bool IsLetter(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }

// A letter A-D at position i that stands alone: not inside a word.
int AloneAt(std::string_view s, size_t i) {
  if (i >= s.size() || s[i] < 'A' || s[i] > 'D') return -1;
  if (i > 0 && IsLetter(s[i - 1])) return -1;
  if (i + 1 < s.size() && IsLetter(s[i + 1])) return -1;
  return s[i] - 'A';
}

// How an error names a JSON value's kind: "null", "a number", "an empty list".
std::string JsonKind(const nlohmann::json& v) {
  if (v.is_null()) return "null";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number()) return "a number";
  if (v.is_string()) return v.get_ref<const std::string&>().empty() ? "an empty string" : "a string";
  if (v.is_array()) return v.empty() ? "an empty list" : "a list";
  return "an object";
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

const char* ModeName(Mode m) { return m == Mode::kStrict ? "strict" : "paper-compatible"; }

int ExtractLetter(std::string_view pred, Mode mode) {
  if (mode == Mode::kPaperCompatible) {
    const std::string_view head = pred.substr(0, pred.find('.'));  // pred.split('.')[0]
    for (int k = 0; k < 4; ++k)
      if (head.find(static_cast<char>('A' + k)) != std::string_view::npos) return k;
    return -1;
  }
  size_t i = 0;
  while (i < pred.size() && (std::isspace(static_cast<unsigned char>(pred[i])) || pred[i] == '(')) ++i;
  if (int k = AloneAt(pred, i); k >= 0) return k;
  const std::string low = Lower(pred);
  for (const char* cue : {"answer is", "answer:"}) {
    const size_t at = low.find(cue);
    if (at == std::string::npos) continue;
    size_t j = at + std::string_view(cue).size();
    while (j < pred.size() && (pred[j] == ' ' || pred[j] == ':' || pred[j] == '(')) ++j;
    if (int k = AloneAt(pred, j); k >= 0) return k;
  }
  return -1;
}

std::vector<Prediction> ParsePredictions(std::string_view text, const std::string& source) {
  std::vector<Prediction> out;
  cb::harness::ForEachJsonlObject(text, source, [&](const nlohmann::json& j, const std::string& where) {
    Prediction p;
    auto field = [&](const char* k) -> const nlohmann::json& {
      if (!j.contains(k)) throw std::runtime_error(where + "missing field '" + k + "'");
      return j[k];
    };
    for (const char* k : {"question_id", "type"}) {
      const auto& v = field(k);
      if (!v.is_string()) throw std::runtime_error(where + "'" + k + "' must be a string, not " + JsonKind(v));
    }
    p.question_id = j["question_id"];
    p.type = j["type"];
    const size_t us = p.question_id.rfind('_');
    if (us == std::string::npos || us + 1 >= p.question_id.size() ||
        p.question_id.find_first_not_of("0123456789", us + 1) != std::string::npos)
      throw std::runtime_error(where + "question_id '" + p.question_id + "' does not end in _<try>");
    if (p.question_id.size() - us - 1 > 9)
      throw std::runtime_error(where + "question_id '" + p.question_id + "': the try number is out of range");
    p.where = where;
    const auto& pred = field("pred");
    if (pred.is_null()) {
      // eval.py lines 12-13 skip the row here, before gt or gpt_judge is read.
      p.pred_null = true;
      out.push_back(std::move(p));
      return;
    }
    if (!pred.is_string())
      throw std::runtime_error(where + "'pred' must be a string or null, not " + JsonKind(pred));
    p.pred = pred;
    const auto& gt = field("gt");
    if (gt.is_number_integer() && gt.get<int64_t>() >= 0 && gt.get<int64_t>() <= 3) {
      p.gt = gt.get<int>();
    } else if (gt.is_string() && gt.get<std::string>().size() == 1 && gt.get<std::string>()[0] >= 'A' &&
               gt.get<std::string>()[0] <= 'D') {
      p.gt = gt.get<std::string>()[0] - 'A';
    } else {
      throw std::runtime_error(where + "'gt' must be a letter A-D or an integer 0-3");
    }
    if (j.contains("gpt_judge")) {
      // eval.py: anno['gpt_judge'][0] == '1'. A string's [0] is its first
      // character (a code point; '1' is one byte in UTF-8, so the first byte
      // decides), a list's [0] its first element, which must be the string
      // "1" itself. Anything eval.py cannot index with [0] is an error.
      const auto& g = j["gpt_judge"];
      const bool empty = (g.is_string() && g.get_ref<const std::string&>().empty()) || (g.is_array() && g.empty());
      if (!(g.is_string() || g.is_array()) || empty)
        throw std::runtime_error(where + "'gpt_judge' must be a non-empty string or list, not " + JsonKind(g));
      p.judge = g.is_string() ? g.get_ref<const std::string&>()[0] == '1' : (g[0].is_string() && g[0] == "1");
    }
    out.push_back(std::move(p));
  });
  return out;
}

Scores Score(const std::vector<Prediction>& preds, Mode mode) {
  struct ItemState {
    std::string type;
    std::string where;    // its first row's "SOURCE:LINE: "
    std::set<int> tries;  // every row's try, null preds included
    int scored = 0;       // rows scored (paper mode skips null preds)
    bool all_correct = true;
  };
  std::map<std::string, ItemState> items;
  std::set<std::string> seen;
  Scores s;
  for (const auto& p : preds) {
    if (!seen.insert(p.question_id).second)
      throw std::runtime_error(p.where + "question_id '" + p.question_id + "' repeats");
    const size_t us = p.question_id.rfind('_');
    const std::string item = p.question_id.substr(0, us);
    int t = -1;
    const char* first = p.question_id.data() + (us == std::string::npos ? 0 : us + 1);
    const char* last = p.question_id.data() + p.question_id.size();
    if (us == std::string::npos || std::from_chars(first, last, t).ptr != last || t < 0)
      throw std::runtime_error(p.where + "question_id '" + p.question_id + "' does not end in _<try>");
    ItemState& st = items[item];
    if (st.where.empty()) st.where = p.where;
    if (!st.type.empty() && st.type != p.type)
      throw std::runtime_error(p.where + "item '" + item + "' has tries of two types");
    st.type = p.type;
    st.tries.insert(t);
    s.null_tries += p.pred_null;
    // eval.py skips a null row outright: no try, no subtask entry. The item
    // then has fewer than 4 scored tries, so it cannot be right (ac == 4).
    if (p.pred_null && mode == Mode::kPaperCompatible) {
      st.all_correct = false;
      continue;
    }
    ++st.scored;
    const int got = p.pred_null ? -1 : ExtractLetter(p.pred, mode);
    const bool ok = mode == Mode::kPaperCompatible && p.judge ? *p.judge : got == p.gt;
    st.all_correct = st.all_correct && ok;
    TaskScore& ts = s.tasks[p.type];
    ++ts.tries;
    ts.tries_correct += ok;
    ts.unanswered += got < 0;
  }
  for (const auto& [name, st] : items) {
    if (st.tries != std::set<int>{0, 1, 2, 3})
      throw std::runtime_error(st.where + "item '" + name + "' (first row here) has " +
                               std::to_string(st.tries.size()) + " tries, expected exactly 0, 1, 2, 3");
    if (st.scored == 0) {  // paper mode, every try null: eval.py never sees the item
      ++s.items_left_out;
      continue;
    }
    TaskScore& ts = s.tasks[st.type];
    ++ts.items;
    ts.items_correct += st.all_correct;
  }
  if (s.tasks.empty()) return s;
  std::map<std::string, std::pair<double, int>> groups;  // ret / ord / cnt
  for (const auto& [name, ts] : s.tasks) {
    s.overall_task_mean += ts.FourTry();
    s.overall_single_try += ts.SingleTry();
    auto& g = groups[name.substr(0, 3)];
    g.first += ts.FourTry();
    ++g.second;
  }
  s.overall_task_mean /= static_cast<double>(s.tasks.size());
  s.overall_single_try /= static_cast<double>(s.tasks.size());
  for (const auto& [g, v] : groups) s.overall_group_mean += v.first / v.second;
  s.overall_group_mean /= static_cast<double>(groups.size());
  return s;
}

}  // namespace cb::ref::vnbench
