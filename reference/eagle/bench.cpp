// File: reference/eagle/bench.cpp
// Prediction files and aggregate scores; see bench.h.
#include "reference/eagle/bench.h"

#include <algorithm>
#include <set>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "harness/jsonl.h"
#include "reference/eagle/scorers.h"

namespace cb::ref::eagle {
namespace {

// lmms_eval/tasks/mme/utils.py eval_type_dict["Perception"].
const std::set<std::string>& Perception() {
  static const std::set<std::string> k = {"existence", "count",     "position", "color",    "posters",
                                          "celebrity", "scene",     "landmark", "artwork",  "OCR"};
  return k;
}

std::string Kind(const nlohmann::json& v) {
  return v.is_null() ? "null" : v.is_boolean() ? "a boolean" : v.is_number() ? "a number" : v.is_string() ? "a string"
         : v.is_array() ? "a list" : "an object";
}

std::string MmeLabel(std::string_view s) {
  std::string t = PyStrip(AsciiLower(s));
  t.erase(std::remove(t.begin(), t.end(), '.'), t.end());
  return t;
}

}  // namespace

const std::vector<std::string>& Tasks() {
  static const std::vector<std::string> k = {"textvqa", "vqav2", "docvqa", "chartqa", "ocrbench", "mme", "mcq"};
  return k;
}

std::vector<Prediction> ParsePredictions(std::string_view text, const std::string& source) {
  std::vector<Prediction> out;
  cb::harness::ForEachJsonlObject(text, source, [&](const nlohmann::json& j, const std::string& where) {
    auto field = [&](const char* k) -> const nlohmann::json& {
      if (!j.contains(k)) throw std::runtime_error(where + "missing field '" + k + "'");
      return j[k];
    };
    auto str = [&](const char* k) {
      const auto& v = field(k);
      if (!v.is_string()) throw std::runtime_error(where + "'" + k + "' must be a string, not " + Kind(v));
      return v.get<std::string>();
    };
    Prediction p;
    const auto& qid = field("question_id");
    if (qid.is_string()) {
      p.question_id = qid.get<std::string>();
    } else if (qid.is_number_integer()) {
      p.question_id = std::to_string(qid.get<int64_t>());
    } else {
      throw std::runtime_error(where + "'question_id' must be a string or an integer, not " + Kind(qid));
    }
    p.task = str("task");
    if (std::find(Tasks().begin(), Tasks().end(), p.task) == Tasks().end())
      throw std::runtime_error(where + "unknown task '" + p.task +
                               "' (textvqa, vqav2, docvqa, chartqa, ocrbench, mme, mcq)");
    p.pred = str("pred");
    if (p.task == "textvqa" || p.task == "vqav2" || p.task == "docvqa") {
      const auto& a = field("answers");
      if (!a.is_array() || a.empty())
        throw std::runtime_error(where + "'answers' must be a non-empty list of strings");
      for (const auto& x : a) {
        if (!x.is_string()) throw std::runtime_error(where + "'answers' must be a non-empty list of strings");
        p.answers.push_back(x.get<std::string>());
      }
      return out.push_back(std::move(p));
    }
    if (p.task == "ocrbench") {
      const auto& a = field("answer");
      if (a.is_string()) {
        p.answers.push_back(a.get<std::string>());
      } else if (a.is_array() && !a.empty() && std::all_of(a.begin(), a.end(), [](auto& x) { return x.is_string(); })) {
        for (const auto& x : a) p.answers.push_back(x.get<std::string>());
      } else {
        throw std::runtime_error(where + "'answer' must be a string or a non-empty list of strings");
      }
      p.dataset = str("dataset");
      p.split = str("question_type");
      return out.push_back(std::move(p));
    }
    p.answers.push_back(str("answer"));
    if (p.task == "chartqa") {
      if (j.contains("type")) p.split = str("type");
    } else if (p.task == "mme") {
      const std::string gt = MmeLabel(p.answers[0]);
      if (gt != "yes" && gt != "no")  // mme_process_results asserts it
        throw std::runtime_error(where + "MME 'answer' must be yes or no, not '" + p.answers[0] + "'");
      p.answers[0] = gt;
      p.split = str("category");
    } else if (p.task == "mcq") {
      const std::string& a = p.answers[0];
      if (a.size() != 1 || a[0] < 'A' || a[0] > 'D')
        throw std::runtime_error(where + "mcq 'answer' must be a letter A-D, not '" + a + "'");
    }
    out.push_back(std::move(p));
  });
  return out;
}

int ExtractLetter(std::string_view pred) {
  const std::string s = PyStrip(pred);
  size_t i = 0;
  if (i < s.size() && s[i] == '(') ++i;
  if (i >= s.size() || s[i] < 'A' || s[i] > 'D') return -1;
  const char next = i + 1 < s.size() ? s[i + 1] : ' ';
  if ((next >= 'a' && next <= 'z') || (next >= 'A' && next <= 'Z')) return -1;
  return s[i] - 'A';
}

double ScoreOne(const Prediction& p, Mode mode) {
  if (p.task == "textvqa") return TextVqaAccuracy(p.pred, p.answers, mode);
  if (p.task == "vqav2") return Vqav2Accuracy(p.pred, p.answers, mode);
  if (p.task == "docvqa") return Anls(p.pred, p.answers, mode);
  if (p.task == "chartqa") return RelaxedCorrect(p.pred, p.answers[0], mode) ? 1 : 0;
  if (p.task == "ocrbench") return OcrBenchCorrect(p.pred, p.answers, p.dataset == "HME100k", mode) ? 1 : 0;
  if (p.task == "mme") return MmeParse(p.pred) == p.answers[0] ? 1 : 0;
  if (p.task == "mcq") return ExtractLetter(p.pred) == p.answers[0][0] - 'A' ? 1 : 0;
  throw std::invalid_argument("eagle: unknown task " + p.task);
}

Scores Score(const std::vector<Prediction>& preds, Mode mode, const std::string& source) {
  Scores s;
  std::map<std::string, std::pair<double, int>> sums, split_sums;             // task -> (sum, n)
  std::map<std::string, std::map<std::string, std::vector<double>>> mme;      // category -> image -> scores
  for (const auto& p : preds) {
    const double v = ScoreOne(p, mode);
    auto& t = sums[p.task];
    t.first += v;
    ++t.second;
    if (p.task == "chartqa") {
      auto& h = split_sums[p.split == "human_test" ? "human" : "augmented"];
      h.first += v;
      ++h.second;
    } else if (p.task == "ocrbench") {
      s.tasks["ocrbench"].parts[p.split] += v;
    } else if (p.task == "mme") {
      mme[p.split][p.question_id].push_back(v);
    }
  }
  for (const auto& [task, sn] : sums) {
    TaskScore& t = s.tasks[task];
    t.n = sn.second;
    if (task == "ocrbench") {
      t.metric = "score_correct";
      t.unit = "count";
      t.value = sn.first;
      t.parts["per_1000"] = 1000.0 * sn.first / sn.second;
    } else if (task == "mme") {
      t.metric = "perception_score";
      t.unit = "points";
      double perception = 0, cognition = 0;
      for (const auto& [cat, images] : mme) {
        double total = 0;
        for (const auto& [image, sc] : images) {
          if (mode == Mode::kPaperCompatible && sc.size() != 2)
            throw std::runtime_error(source + ": MME image '" + image + "' in category '" + cat + "' has " +
                                     std::to_string(sc.size()) +
                                     " questions; mme_aggregate_results asserts 2 (strict mode takes any number)");
          double sum = 0;
          for (double x : sc) sum += x;
          total += 100.0 * sum / sc.size() + (sum == sc.size() ? 100.0 : 0.0);
        }
        const double avg = total / images.size();
        t.parts[cat] = avg;
        (Perception().count(cat) ? perception : cognition) += avg;
      }
      t.value = perception;
      t.parts["cognition_score"] = cognition;
    } else {
      t.metric = task == "docvqa" ? "anls" : task == "chartqa" ? "relaxed_accuracy" : "accuracy";
      t.unit = "%";
      t.value = 100.0 * sn.first / sn.second;
      if (task == "chartqa")
        for (const auto& [split, hs] : split_sums) t.parts[split] = 100.0 * hs.first / hs.second;
    }
  }
  return s;
}

}  // namespace cb::ref::eagle
