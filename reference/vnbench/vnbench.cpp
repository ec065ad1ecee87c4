// File: reference/vnbench/vnbench.cpp
// The VNBench scorer; see vnbench.h for the rules of each mode.
#include "reference/vnbench/vnbench.h"

#include <cctype>
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
    for (const char* k : {"question_id", "pred", "type"}) {
      if (!j.contains(k) || !j[k].is_string()) throw std::runtime_error(where + "missing string field '" + k + "'");
    }
    p.question_id = j["question_id"];
    p.pred = j["pred"];
    p.type = j["type"];
    if (!j.contains("gt")) throw std::runtime_error(where + "missing field 'gt'");
    const auto& gt = j["gt"];
    if (gt.is_number_integer() && gt.get<int>() >= 0 && gt.get<int>() <= 3) {
      p.gt = gt.get<int>();
    } else if (gt.is_string() && gt.get<std::string>().size() == 1 && gt.get<std::string>()[0] >= 'A' &&
               gt.get<std::string>()[0] <= 'D') {
      p.gt = gt.get<std::string>()[0] - 'A';
    } else {
      throw std::runtime_error(where + "'gt' must be a letter A-D or an integer 0-3");
    }
    const size_t us = p.question_id.rfind('_');
    if (us == std::string::npos || us + 1 >= p.question_id.size() ||
        p.question_id.find_first_not_of("0123456789", us + 1) != std::string::npos)
      throw std::runtime_error(where + "question_id '" + p.question_id + "' does not end in _<try>");
    out.push_back(std::move(p));
  });
  return out;
}

Scores Score(const std::vector<Prediction>& preds, Mode mode) {
  struct ItemState {
    std::string type;
    std::set<int> tries;
    bool all_correct = true;
  };
  std::map<std::string, ItemState> items;
  std::set<std::string> seen;
  Scores s;
  for (const auto& p : preds) {
    if (!seen.insert(p.question_id).second) throw std::runtime_error("question_id '" + p.question_id + "' repeats");
    const size_t us = p.question_id.rfind('_');
    const std::string item = p.question_id.substr(0, us);
    const int t = std::stoi(p.question_id.substr(us + 1));
    ItemState& st = items[item];
    if (!st.type.empty() && st.type != p.type)
      throw std::runtime_error("item '" + item + "' has tries of two types");
    st.type = p.type;
    st.tries.insert(t);
    const int got = ExtractLetter(p.pred, mode);
    const bool ok = got == p.gt;
    st.all_correct = st.all_correct && ok;
    TaskScore& ts = s.tasks[p.type];
    ++ts.tries;
    ts.tries_correct += ok;
    ts.unanswered += got < 0;
  }
  for (const auto& [name, st] : items) {
    if (st.tries != std::set<int>{0, 1, 2, 3})
      throw std::runtime_error("item '" + name + "' has " + std::to_string(st.tries.size()) +
                               " tries, expected exactly 0, 1, 2, 3");
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
