// File: suites/medrega/medrega_eval.cpp
// Prediction files, scoring in both modes, ledger rows, the endpoint; see
// medrega_eval.h.
#include "suites/medrega/medrega_eval.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "harness/hash.h"
#include "harness/jsonl.h"
#include "suites/medrega/png.h"

namespace cb::medrega {
namespace {

namespace gr = cb::gen::regions;
namespace h = cb::harness;

std::string Kind(const nlohmann::json& v) {
  if (v.is_null()) return "null";
  if (v.is_string()) return "a string";
  if (v.is_number()) return "a number";
  if (v.is_boolean()) return "a boolean";
  if (v.is_array()) return "an array";
  return "an object";
}

void AddRow(Predictions* out, const nlohmann::json& j, const std::string& where, std::optional<mr::Task> def) {
  std::optional<mr::Task> task = def;
  if (j.contains("task")) {
    if (!j["task"].is_string()) throw std::runtime_error(where + "'task' must be a string, not " + Kind(j["task"]));
    task = mr::ParseTask(j["task"].get<std::string>());
    if (!task)
      throw std::runtime_error(where + "unknown task '" + j["task"].get<std::string>() +
                               "' (ss, sm, ms, mm, r2t, rg, rg_zh)");
  }
  if (!task) throw std::runtime_error(where + "missing field 'task' (or give --task)");
  auto str = [&](const char* k) {
    if (!j.contains(k)) throw std::runtime_error(where + "missing field '" + k + "'");
    if (!j[k].is_string()) throw std::runtime_error(where + "'" + k + "' must be a string, not " + Kind(j[k]));
    return j[k].get<std::string>();
  };
  if (mr::IsGroundingTask(*task)) {
    mr::GroundingItem it;
    if (!j.contains("answer")) throw std::runtime_error(where + "missing field 'answer'");
    if (j["answer"].is_string()) {
      it.answer = j["answer"].get<std::string>();
    } else if (!j["answer"].is_null()) {
      throw std::runtime_error(where + "'answer' must be a string or null, not " + Kind(j["answer"]));
    }
    it.gt = str("gt");
    if (!j.contains("hw") || !j["hw"].is_array() || j["hw"].size() != 2 || !j["hw"][0].is_number_integer() ||
        !j["hw"][1].is_number_integer() || j["hw"][0].get<int64_t>() < 1 || j["hw"][1].get<int64_t>() < 1 ||
        j["hw"][0].get<int64_t>() > 100000 || j["hw"][1].get<int64_t>() > 100000)
      throw std::runtime_error(where + "'hw' must be [H, W], two positive integers");
    it.height = j["hw"][0].get<int>();
    it.width = j["hw"][1].get<int>();
    try {  // a ground truth the code could not read is bad input
      mr::ParseGroundTruth(it.gt, it.height, it.width, mr::Mode::kPaperCompatible);
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(where + e.what());
    }
    out->grounding[*task].push_back(std::move(it));
  } else {
    out->text[*task].push_back({str("pred_answer"), str("gt_answer")});
  }
  ++out->rows;
}

}  // namespace

Predictions ParsePredictions(const std::string& text, const std::string& source, std::optional<mr::Task> def) {
  Predictions out;
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '[') {
    nlohmann::json arr;
    try {
      arr = nlohmann::json::parse(text);
    } catch (const nlohmann::json::exception& e) {  // parse_error, and out_of_range for 1e999
      throw std::runtime_error(source + ": not a JSON array: " + e.what());
    }
    for (size_t k = 0; k < arr.size(); ++k) {
      const std::string where = source + ": element " + std::to_string(k) + ": ";
      if (!arr[k].is_object()) throw std::runtime_error(where + "not a JSON object");
      AddRow(&out, arr[k], where, def);
    }
    return out;
  }
  h::ForEachJsonlObject(text, source,
                        [&](const nlohmann::json& j, const std::string& where) { AddRow(&out, j, where, def); });
  return out;
}

AllScores ScoreAll(const Predictions& p, mr::Mode mode) {
  AllScores s;
  auto run = [&](mr::Task t, const auto& fn) {
    TaskResult r;
    try {
      r.scores = fn();
    } catch (const mr::PaperError& e) {
      r.error = e.what();
      r.scores.task = t;
    }
    s.tasks[t] = r;
  };
  // Pairs, not structured bindings: clang 14 (the fuzz preset) cannot capture those.
  for (const auto& g : p.grounding) run(g.first, [&] { return mr::ScoreGrounding(g.first, g.second, mode); });
  for (const auto& x : p.text) run(x.first, [&] { return mr::ScoreText(x.first, x.second, mode); });
  return s;
}

std::vector<h::Result> ScoreRows(const AllScores& s, mr::Mode mode, const nlohmann::json& params,
                                 const std::string& input_hash) {
  std::vector<h::Result> rows;
  for (const auto& [t, r] : s.tasks) {
    if (!r.error.empty()) continue;
    for (const auto& [metric, value] : r.scores.metrics) {
      h::Result row;
      row.suite = "medrega";
      row.case_name = "medrega_task";
      row.params = params;
      row.params["scorer_mode"] = mr::ModeName(mode);
      row.params["task"] = mr::TaskKey(t);
      row.metric = metric;
      row.unit = "fraction";
      row.direction = "higher";
      row.value = value;
      row.n = r.scores.items;
      row.input_hash = input_hash;
      row.output_hash = h::Xxh3_128(nlohmann::json(value).dump()).Hex();
      rows.push_back(row);
    }
  }
  return rows;
}

nlohmann::json ScoresJson(const AllScores& s) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [t, r] : s.tasks) {
    nlohmann::json m = {{"items", r.scores.items},
                        {"parse_failures", r.scores.parse_failures},
                        {"items_without_gt", r.scores.items_without_gt}};
    if (!r.error.empty()) m["error"] = r.error;
    for (const auto& [k, v] : r.scores.metrics) m["metrics"][k] = v;
    j[mr::TaskKey(t)] = m;
  }
  return j;
}

void PrintScores(const AllScores& strict, const AllScores& paper) {
  for (const auto& [t, r] : strict.tasks) {
    std::printf("%s  (%d items", mr::TaskKey(t), r.scores.items);
    if (r.scores.items_without_gt) std::printf(", %d without ground truth", r.scores.items_without_gt);
    const auto p = paper.tasks.find(t);
    if (p != paper.tasks.end() && p->second.scores.parse_failures)
      std::printf(", %d answers the code fails to parse", p->second.scores.parse_failures);
    std::printf(")\n");
    std::printf("  strict:           ");
    for (const auto& [k, v] : r.scores.metrics) std::printf(" %s %.4f", k.c_str(), v);
    std::printf("\n  paper-compatible: ");
    if (p == paper.tasks.end()) {
      std::printf(" -\n");
    } else if (!p->second.error.empty()) {
      std::printf(" error: %s\n", p->second.error.c_str());
    } else {
      for (const auto& [k, v] : p->second.scores.metrics) std::printf(" %s %.4f", k.c_str(), v);
      std::printf("\n");
    }
  }
}

mr::Task ToRefTask(gr::Task t) {
  switch (t) {
    case gr::Task::kSs: return mr::Task::kSs;
    case gr::Task::kSm: return mr::Task::kSm;
    case gr::Task::kMs: return mr::Task::kMs;
    case gr::Task::kMm: return mr::Task::kMm;
    case gr::Task::kR2t: return mr::Task::kR2t;
    case gr::Task::kRg: return mr::Task::kRg;
  }
  return mr::Task::kSs;
}

Predictions AnswerScans(const std::vector<gr::Scan>& scans, const std::vector<gr::Task>& tasks,
                        const std::function<std::optional<std::string>(const gr::Scan&, const gr::Question&)>& answer) {
  Predictions p;
  for (const gr::Scan& s : scans)
    for (const gr::Question& q : s.questions) {
      if (!tasks.empty() && std::find(tasks.begin(), tasks.end(), q.task) == tasks.end()) continue;
      const mr::Task t = ToRefTask(q.task);
      const std::optional<std::string> a = answer(s, q);
      if (mr::IsGroundingTask(t)) {
        p.grounding[t].push_back({a, q.gt, s.height, s.width});
      } else {
        p.text[t].push_back({a.value_or(""), q.gt});
      }
      ++p.rows;
    }
  return p;
}

EndpointEvalOutput EvaluateEndpoint(const EndpointEvalConfig& c, h::ResponseCache* cache,
                                    const std::function<void(int, int)>& progress) {
  h::ModelClient client(c.client, cache);
  const std::vector<gr::Scan> scans = gr::Generate(c.gen);
  std::vector<h::ChatRequest> requests;
  for (const gr::Scan& s : scans) {
    const std::string url = "data:image/png;base64," + h::Base64(EncodeGreyPng(s.pixels, s.width, s.height));
    for (const gr::Question& q : s.questions) {
      if (!c.tasks.empty() && std::find(c.tasks.begin(), c.tasks.end(), q.task) == c.tasks.end()) continue;
      h::ChatRequest r;
      r.model = c.model;
      r.max_tokens = c.max_tokens;
      r.temperature = 0;
      r.seed = c.request_seed;
      r.messages.push_back(h::ChatMessage::User({h::ChatPart::Image(url), h::ChatPart::Text(q.prompt)}));
      requests.push_back(std::move(r));
    }
  }
  int done = 0;
  const auto outcomes = client.CompleteAll(requests, [&](size_t, const h::ChatOutcome&) {
    if (progress) progress(++done, static_cast<int>(requests.size()));
  });
  EndpointEvalOutput out;
  out.requests_sent = client.requests_sent();
  size_t k = 0;
  std::vector<bool> ok(outcomes.size());
  for (size_t i = 0; i < outcomes.size(); ++i) {
    ok[i] = outcomes[i].ok;
    out.cache_hits += outcomes[i].from_cache;
    ++out.items;
    if (!outcomes[i].ok) {
      ++out.items_failed;
      if (out.errors.size() < 5) out.errors.push_back("request " + std::to_string(i) + ": " + outcomes[i].error);
    }
  }
  // Failed requests are left out (the run is then sealed "failed").
  Predictions all;
  for (const gr::Scan& s : scans)
    for (const gr::Question& q : s.questions) {
      if (!c.tasks.empty() && std::find(c.tasks.begin(), c.tasks.end(), q.task) == c.tasks.end()) continue;
      const size_t i = k++;
      if (!ok[i]) continue;
      const mr::Task t = ToRefTask(q.task);
      if (mr::IsGroundingTask(t)) {
        all.grounding[t].push_back({outcomes[i].text, q.gt, s.height, s.width});
      } else {
        all.text[t].push_back({outcomes[i].text, q.gt});
      }
      ++all.rows;
    }
  out.predictions = all;
  out.strict = ScoreAll(all, mr::Mode::kStrict);
  out.paper = ScoreAll(all, mr::Mode::kPaperCompatible);
  return out;
}

}  // namespace cb::medrega
