// File: suites/eagle/eagle_eval.cpp
// Eagle on a model endpoint; see eagle_eval.h.
#include "suites/eagle/eagle_eval.h"

#include "harness/hash.h"
#include "suites/eagle/png.h"

namespace cb::eagle {

namespace gd = cb::gen::docvqa;
namespace re = cb::ref::eagle;
namespace h = cb::harness;

std::vector<re::Prediction> AsPredictions(const std::vector<gd::Item>& items, const std::vector<std::string>& replies) {
  std::vector<re::Prediction> out;
  for (const auto& item : items)
    for (const auto& q : item.questions) {
      const std::string pred = replies.empty() ? q.answer : replies.at(out.size());
      out.push_back({q.id, q.task, pred, {q.answer}, q.task == "chartqa" ? "augmented_test" : "", ""});
    }
  return out;
}

EndpointEvalOutput EvaluateEndpoint(const EndpointEvalConfig& c, h::ResponseCache* cache,
                                    const std::function<void(int, int)>& progress) {
  h::ModelClient client(c.client, cache);
  const gd::Generator gen(c.gen);
  const std::vector<gd::Item> items = gen.All();
  std::vector<h::ChatRequest> requests;
  std::vector<const gd::Question*> qs;
  for (const auto& item : items) {
    const std::string url = "data:image/png;base64," + h::Base64(EncodePng(item.image));
    for (const auto& q : item.questions) {
      h::ChatRequest r;
      r.model = c.model;
      r.max_tokens = c.max_tokens;
      r.temperature = 0;
      r.seed = c.request_seed;
      r.messages.push_back(h::ChatMessage::User({h::ChatPart::Image(url), h::ChatPart::Text(q.text)}));
      requests.push_back(std::move(r));
      qs.push_back(&q);
    }
  }
  EndpointEvalOutput out;
  int done = 0;
  const auto outcomes = client.CompleteAll(requests, [&](size_t, const h::ChatOutcome&) {
    if (progress) progress(++done, static_cast<int>(requests.size()));
  });
  out.requests_sent = client.requests_sent();
  for (size_t i = 0; i < outcomes.size(); ++i) {
    ++out.questions;
    out.cache_hits += outcomes[i].from_cache;
    if (!outcomes[i].ok) {
      ++out.questions_failed;
      if (out.errors.size() < 5) out.errors.push_back(qs[i]->id + ": " + outcomes[i].error);
      continue;
    }
    const gd::Question& q = *qs[i];
    out.predictions.push_back(
        {q.id, q.task, outcomes[i].text, {q.answer}, q.task == "chartqa" ? "augmented_test" : "", ""});
  }
  out.strict = re::Score(out.predictions, re::Mode::kStrict);
  out.paper = re::Score(out.predictions, re::Mode::kPaperCompatible);
  return out;
}

std::vector<h::Result> ScoreRows(const re::Scores& s, re::Mode mode, const nlohmann::json& params,
                                 const std::string& input_hash) {
  std::vector<h::Result> rows;
  auto row = [&](const std::string& task, const std::string& metric, const std::string& unit, double value, int64_t n,
                 const std::string& part) {
    h::Result r;
    r.suite = "eagle";
    r.case_name = "eagle_" + task;
    r.params = params;
    r.params["scorer_mode"] = re::ModeName(mode);
    r.params["task"] = task;
    if (!part.empty()) r.params["part"] = part;
    r.metric = metric;
    r.unit = unit;
    r.direction = "higher";
    r.value = value;
    r.n = n;
    r.input_hash = input_hash;
    r.output_hash = h::Xxh3_128(nlohmann::json(value).dump()).Hex();
    rows.push_back(std::move(r));
  };
  for (const auto& [task, t] : s.tasks) {
    row(task, t.metric, t.unit, t.value, t.n, "");
    for (const auto& [part, v] : t.parts)
      row(task, part == "per_1000" ? "score_per_1000" : part == "cognition_score" ? "cognition_score" : t.metric,
          part == "per_1000" || part == "cognition_score" ? "points" : t.unit, v, t.n,
          part == "per_1000" || part == "cognition_score" ? "" : part);
  }
  return rows;
}

}  // namespace cb::eagle
