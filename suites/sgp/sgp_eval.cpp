// File: suites/sgp/sgp_eval.cpp
// SGP-Bench on a model endpoint; see sgp_eval.h.
#include "suites/sgp/sgp_eval.h"

#include "harness/hash.h"

namespace cb::sgp {

namespace gs = cb::gen::sgp;
namespace rs = cb::ref::sgp;
namespace h = cb::harness;

ModeScores ScoreAll(const std::vector<rs::Prediction>& preds, rs::Mode mode) {
  ModeScores m;
  m.scores = rs::Score(preds, mode);
  std::vector<std::string> t, r;
  for (const auto& [split, tally] : m.scores.splits) {
    if (split.rfind("inv_t", 0) == 0) t.push_back(split);
    if (split.rfind("inv_r", 0) == 0) r.push_back(split);
  }
  if (!t.empty()) m.consistency_t = rs::ScoreConsistency(preds, "inv", t, mode);
  if (!r.empty()) m.consistency_r = rs::ScoreConsistency(preds, "inv", r, mode);
  return m;
}

EndpointEvalOutput EvaluateEndpoint(const EndpointEvalConfig& c, h::ResponseCache* cache,
                                    const std::function<void(int, int)>& progress) {
  h::ModelClient client(c.client, cache);
  gs::Params gp = c.gen;
  if (!c.invariance) gp.variants = 0;
  const gs::Dataset d = gs::Generate(gp);
  std::vector<h::ChatRequest> requests;
  std::vector<rs::Prediction> refs;
  std::vector<std::pair<std::string, std::vector<nlohmann::json>>> splits;
  for (auto& [split, rows] : gs::Splits(d))
    if ((split == "svg" && c.svg) || (split != "svg" && c.invariance)) splits.push_back({split, std::move(rows)});
  if (c.cad_count > 0) {
    std::vector<nlohmann::json> rows;
    for (const gs::CadItem& it : gs::GenerateCad(gp.seed, c.cad_count))
      for (const gs::Question& q : it.questions) rows.push_back(gs::CadRow(it, q));
    splits.push_back({"cad", std::move(rows)});
  }
  for (const auto& [split, rows] : splits) {
    for (size_t i = 0; i < rows.size(); ++i) {
      const auto& row = rows[i];
      h::ChatRequest r;
      r.model = c.model;
      r.max_tokens = c.max_tokens;
      r.temperature = 0;
      r.seed = c.request_seed;
      if (!c.system_prompt.empty()) r.messages.push_back(h::ChatMessage::System(c.system_prompt));
      r.messages.push_back(h::ChatMessage::User({h::ChatPart::Text(
          rs::Prompt(row["Question"], row["A"], row["B"], row["C"], row["D"]))}));
      requests.push_back(std::move(r));
      refs.push_back({row["Subject"], row["Answer"].get<std::string>()[0], "", split, static_cast<int>(i)});
    }
  }
  EndpointEvalOutput out;
  int done = 0;
  const auto outcomes = client.CompleteAll(requests, [&](size_t, const h::ChatOutcome&) {
    if (progress) progress(++done, static_cast<int>(requests.size()));
  });
  out.requests_sent = client.requests_sent();
  for (size_t i = 0; i < outcomes.size(); ++i) {
    ++out.rows;
    out.cache_hits += outcomes[i].from_cache;
    if (!outcomes[i].ok) {
      ++out.rows_failed;
      if (out.errors.size() < 5) out.errors.push_back(refs[i].split + "[" + std::to_string(refs[i].index) + "]: " + outcomes[i].error);
      continue;
    }
    rs::Prediction p = refs[i];
    p.response = outcomes[i].text;
    out.predictions.push_back(std::move(p));
  }
  out.strict = ScoreAll(out.predictions, rs::Mode::kStrict);
  out.paper = ScoreAll(out.predictions, rs::Mode::kPaperCompatible);
  return out;
}

std::vector<h::Result> ScoreRows(const ModeScores& s, rs::Mode mode, const nlohmann::json& params,
                                 const std::string& input_hash) {
  std::vector<h::Result> rows;
  auto row = [&](const std::string& case_name, const std::string& metric, const std::string& unit, double value,
                 int64_t n, const nlohmann::json& extra) {
    h::Result r;
    r.suite = "sgp";
    r.case_name = case_name;
    r.params = params;
    r.params["scorer_mode"] = rs::ModeName(mode);
    for (auto it = extra.begin(); it != extra.end(); ++it) r.params[it.key()] = it.value();
    r.metric = metric;
    r.unit = unit;
    r.direction = "higher";
    r.value = value;
    r.n = n;
    r.input_hash = input_hash;
    r.output_hash = h::Xxh3_128(nlohmann::json(value).dump()).Hex();
    rows.push_back(r);
  };
  const auto none = nlohmann::json::object();
  row("sgp_overall", "accuracy", "%", s.scores.overall.Accuracy(), s.scores.overall.n, none);
  for (const auto& [subject, t] : s.scores.subjects)
    row("sgp_subject", "accuracy", "%", t.Accuracy(), t.n, {{"subject", subject}});
  if (s.scores.splits.size() > 1)
    for (const auto& [split, t] : s.scores.splits)
      row("sgp_split", "accuracy", "%", t.Accuracy(), t.n, {{"split", split.empty() ? "(none)" : split}});
  if (s.consistency_t)
    row("sgp_consistency", "consistency_translation", "fraction", s.consistency_t->value, s.consistency_t->questions, none);
  if (s.consistency_r)
    row("sgp_consistency", "consistency_se2", "fraction", s.consistency_r->value, s.consistency_r->questions, none);
  return rows;
}

}  // namespace cb::sgp
