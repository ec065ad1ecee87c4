// File: suites/regenesis/regenesis_eval.cpp
// Prediction files, deltas and their report; see regenesis_eval.h.
#include "suites/regenesis/regenesis_eval.h"

#include <cmath>
#include <cstdio>
#include <set>
#include <stdexcept>

#include "harness/hash.h"
#include "harness/jsonl.h"

namespace cb::regenesis {

namespace h = cb::harness;
using nlohmann::json;

namespace {

std::string Scalar(const json& v, const std::string& where, const char* key) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_number()) {
    char b[64];
    std::snprintf(b, sizeof b, "%.17g", v.get<double>());
    return b;
  }
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  throw std::runtime_error(where + "'" + key + "' must be a string or a number");
}

}  // namespace

std::vector<rr::Prediction> ParsePredictions(std::string_view text, const std::string& source) {
  std::vector<rr::Prediction> out;
  std::set<std::pair<std::string, std::string>> ids;
  h::ForEachJsonlObject(text, source, [&](const json& o, const std::string& where) {
    rr::Prediction p;
    if (!o.contains("task") || !o["task"].is_string()) throw std::runtime_error(where + "missing field 'task' (a string)");
    p.task = rr::CanonicalTask(o["task"].get<std::string>());
    if (p.task.empty()) throw std::runtime_error(where + "'task' is empty");
    p.family = rr::TaskFamily(p.task);
    if (o.contains("family")) {
      const auto f = o["family"].is_string() ? rr::ParseFamily(o["family"].get<std::string>()) : std::nullopt;
      if (!f) throw std::runtime_error(where + "'family' must be number, letter, yesno or label");
      p.family = *f;
    }
    if (!o.contains("gold")) throw std::runtime_error(where + "missing field 'gold'");
    p.gold = Scalar(o["gold"], where, "gold");
    if (!rr::Normalize(p.gold, p.family))
      throw std::runtime_error(where + "gold '" + p.gold + "' is not a " + rr::FamilyName(p.family) + " answer");
    const int given = o.contains("prediction") + o.contains("samples") + o.contains("answer");
    if (given != 1) throw std::runtime_error(where + "give exactly one of 'prediction', 'samples', 'answer'");
    if (o.contains("prediction")) {
      if (!o["prediction"].is_string()) throw std::runtime_error(where + "'prediction' must be a string");
      p.text = o["prediction"].get<std::string>();
    } else if (o.contains("samples")) {
      if (!o["samples"].is_array() || o["samples"].empty())
        throw std::runtime_error(where + "'samples' must be a non-empty list of strings");
      for (const auto& s : o["samples"]) {
        if (!s.is_string()) throw std::runtime_error(where + "'samples' must be a non-empty list of strings");
        p.samples.push_back(s.get<std::string>());
      }
    } else {
      p.answer = o["answer"].is_null() ? std::string() : Scalar(o["answer"], where, "answer");
    }
    if (o.contains("id")) {
      const std::string id = Scalar(o["id"], where, "id");
      if (!ids.emplace(p.task, id).second) throw std::runtime_error(where + "repeats (task, id) = (" + p.task + ", " + id + ")");
    }
    out.push_back(std::move(p));
  });
  return out;
}

DeltaReport Compare(const std::vector<rr::Prediction>& before, const std::vector<rr::Prediction>& after,
                    const std::vector<std::string>& in_domain, const std::vector<std::string>& ood) {
  DeltaReport r;
  r.in_domain = in_domain;
  r.ood = ood;
  r.rows_before = before.size();
  r.rows_after = after.size();
  for (const auto& p : before) r.family[p.task] = rr::FamilyName(p.family);
  for (const auto& p : after) r.family[p.task] = rr::FamilyName(p.family);
  for (rr::Rule rule : rr::kAllRules) {
    RuleReport rep{rule, rr::Accuracies(before, rule), rr::Accuracies(after, rule), {}};
    rep.deltas = rr::ComputeDeltas(rep.before, rep.after, in_domain, ood);
    r.rules.push_back(std::move(rep));
  }
  if (r.rules[0].deltas.per_task.empty()) throw std::runtime_error("the two prediction files share no task");
  return r;
}

std::vector<h::Result> ReportRows(const DeltaReport& rep, const json& params, const std::string& input_hash) {
  std::vector<h::Result> out;
  auto row = [&](const std::string& case_name, const json& extra, const std::string& metric, const std::string& unit,
                 double value, int64_t n, const std::string& direction) {
    h::Result r;
    r.suite = "regenesis";
    r.case_name = case_name;
    r.backend = "cpu";
    r.params = params;
    for (auto it = extra.begin(); it != extra.end(); ++it) r.params[it.key()] = it.value();
    r.metric = metric;
    r.unit = unit;
    r.value = value;
    r.n = n;
    r.direction = direction;
    r.kind = h::ResultKind::kExact;
    r.input_hash = input_hash;
    r.output_hash = h::HashDoubles({value}).Hex();
    out.push_back(r);
  };
  for (const auto& rr_ : rep.rules) {
    const std::string rule = rr::RuleName(rr_.rule);
    for (const auto& [task, d] : rr_.deltas.per_task) {
      const json k = {{"task", task}, {"rule", rule}};
      row("task", k, "accuracy_before", "%", rr_.before.at(task).Accuracy(), rr_.before.at(task).items, "higher");
      row("task", k, "accuracy_after", "%", rr_.after.at(task).Accuracy(), rr_.after.at(task).items, "higher");
      row("task", k, "delta", "pp", d, rr_.after.at(task).items, "higher");
    }
    if (rr_.deltas.in_domain)
      row("average", {{"rule", rule}, {"tasks", "in_domain"}}, "mean_delta", "pp", *rr_.deltas.in_domain,
          rr_.deltas.in_domain_tasks, "higher");
    if (rr_.deltas.ood)
      row("average", {{"rule", rule}, {"tasks", "ood"}}, "mean_delta", "pp", *rr_.deltas.ood, rr_.deltas.ood_tasks,
          "higher");
  }
  return out;
}

json ReportJson(const DeltaReport& rep) {
  json j = {{"rows_before", rep.rows_before}, {"rows_after", rep.rows_after}, {"in_domain_tasks", rep.in_domain},
            {"ood_tasks", rep.ood}, {"rules", json::object()}};
  for (const auto& r : rep.rules) {
    json t = json::object();
    for (const auto& [task, d] : r.deltas.per_task)
      t[task] = {{"family", rep.family.at(task)},
                 {"items_before", r.before.at(task).items},
                 {"items_after", r.after.at(task).items},
                 {"accuracy_before", r.before.at(task).Accuracy()},
                 {"accuracy_after", r.after.at(task).Accuracy()},
                 {"unanswered_before", r.before.at(task).unanswered},
                 {"unanswered_after", r.after.at(task).unanswered},
                 {"delta", d}};
    j["rules"][rr::RuleName(r.rule)] = {
        {"tasks", t},
        {"in_domain_delta", r.deltas.in_domain ? json(*r.deltas.in_domain) : json(nullptr)},
        {"ood_delta", r.deltas.ood ? json(*r.deltas.ood) : json(nullptr)},
        {"in_domain_tasks_present", r.deltas.in_domain_tasks},
        {"ood_tasks_present", r.deltas.ood_tasks}};
  }
  return j;
}

void PrintReport(const DeltaReport& rep) {
  const RuleReport& s = rep.rules[0];
  auto kind = [&](const std::string& t) {
    for (const auto& x : rep.in_domain)
      if (x == t) return "in-domain";
    for (const auto& x : rep.ood)
      if (x == t) return "OOD";
    return "other";
  };
  std::printf("%-12s %-7s %-9s %6s %9s %9s %8s  (standard extraction rule)\n", "task", "family", "kind", "items",
              "before %", "after %", "delta");
  for (const auto& [task, d] : s.deltas.per_task)
    std::printf("%-12s %-7s %-9s %6d %9.2f %9.2f %+8.2f\n", task.c_str(), rep.family.at(task).c_str(), kind(task),
                s.after.at(task).items, s.before.at(task).Accuracy(), s.after.at(task).Accuracy(), d);
  std::printf("\n%-9s %22s %22s\n", "rule", "in-domain mean delta", "OOD mean delta");
  for (const auto& r : rep.rules) {
    auto f = [](const std::optional<double>& v, int n) {
      char b[64];
      if (v) std::snprintf(b, sizeof b, "%+.2f pp (%d tasks)", *v, n);
      else std::snprintf(b, sizeof b, "- (no task)");
      return std::string(b);
    };
    std::printf("%-9s %22s %22s\n", rr::RuleName(r.rule), f(r.deltas.in_domain, r.deltas.in_domain_tasks).c_str(),
                f(r.deltas.ood, r.deltas.ood_tasks).c_str());
  }
}

}  // namespace cb::regenesis
