// File: suites/mia/stats_file.cpp
// Reading and evaluating per-token statistics dumps; see stats_file.h.
#include "suites/mia/stats_file.h"

#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "harness/hash.h"
#include "reference/common/roc.h"

namespace cb::mia {
namespace {

using nlohmann::json;

struct LineError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::vector<double> Numbers(const json& obj, const char* field, bool log_prob, bool non_negative) {
  const json& a = obj.at(field);
  if (!a.is_array()) throw LineError(std::string("field '") + field + "' is not an array");
  std::vector<double> out;
  out.reserve(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    if (!a[i].is_number()) {
      throw LineError(std::string("field '") + field + "'[" + std::to_string(i) + "] is not a number");
    }
    const double x = a[i].get<double>();
    if (!std::isfinite(x)) {
      throw LineError(std::string("field '") + field + "'[" + std::to_string(i) + "] is not finite");
    }
    if (log_prob && x > 1e-4) {
      throw LineError(std::string("field '") + field + "'[" + std::to_string(i) +
                      "] = " + std::to_string(x) + " is not a log-probability (> 0)");
    }
    if (non_negative && x < 0) {
      throw LineError(std::string("field '") + field + "'[" + std::to_string(i) + "] is negative");
    }
    out.push_back(x);
  }
  return out;
}

constexpr const char* kOptional[] = {"mu", "sigma", "text", "ll_lower", "ll_ref", "ll_ft", "ll_lower_ft"};

}  // namespace

StatsFile ReadStatsFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string bytes = ss.str();
  StatsFile file;
  file.path = path;
  file.content_hash = cb::harness::Xxh3_128(bytes).Hex();

  std::vector<int> first_line_with(std::size(kOptional), 0), first_line_without(std::size(kOptional), 0);
  std::istringstream lines(bytes);
  std::string line;
  int number = 0, members = 0;
  while (std::getline(lines, line)) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      json obj;
      try {
        obj = json::parse(line);
      } catch (const json::exception& e) {  // parse_error, and out_of_range for 1e999
        throw LineError(std::string("not valid JSON (NaN, Infinity and numbers beyond double are not): ") +
                        e.what());
      }
      if (!obj.is_object()) throw LineError("not a JSON object");
      if (!obj.contains("label") || !obj["label"].is_number_integer() ||
          (obj["label"].get<int64_t>() != 0 && obj["label"].get<int64_t>() != 1)) {
        throw LineError("'label' must be 0 (non-member) or 1 (member)");
      }
      if (!obj.contains("ll")) throw LineError("missing 'll'");
      cb::ref::mia::TextStats s;
      s.label = obj["label"].get<int>();
      s.ll = Numbers(obj, "ll", true, false);
      if (s.ll.empty()) throw LineError("empty text: 'll' has no scored token");
      for (size_t f = 0; f < std::size(kOptional); ++f) {
        int& slot = obj.contains(kOptional[f]) ? first_line_with[f] : first_line_without[f];
        if (slot == 0) slot = number;
      }
      auto same_length = [&](const std::vector<double>& v, const char* field, size_t n, const char* as) {
        if (v.size() != n) {
          throw LineError(std::string("mismatched lengths: '") + field + "' has " + std::to_string(v.size()) +
                          " entries, '" + as + "' has " + std::to_string(n));
        }
      };
      if (obj.contains("mu")) {
        s.mu = Numbers(obj, "mu", false, false);
        same_length(s.mu, "mu", s.ll.size(), "ll");
        for (double m : s.mu) if (m > 1e-4) throw LineError("'mu' (sum p log p) must be <= 0");
      }
      if (obj.contains("sigma")) {
        const auto sigma = Numbers(obj, "sigma", false, true);
        same_length(sigma, "sigma", s.ll.size(), "ll");
        for (double x : sigma) s.sigma2.push_back(x * x);
      }
      if (obj.contains("mu") != obj.contains("sigma")) throw LineError("'mu' and 'sigma' come together");
      if (obj.contains("text")) {
        if (!obj["text"].is_string()) throw LineError("'text' is not a string");
        s.text = obj["text"].get<std::string>();
        if (s.text.empty()) throw LineError("empty text");
      }
      if (obj.contains("ll_lower")) {
        s.ll_lower = Numbers(obj, "ll_lower", true, false);
        if (s.ll_lower.empty()) throw LineError("empty 'll_lower'");
      }
      if (obj.contains("ll_ref")) {
        s.ll_ref = Numbers(obj, "ll_ref", true, false);
        if (s.ll_ref.empty()) throw LineError("empty 'll_ref'");
      }
      if (obj.contains("ll_ft")) {
        s.ll_ft = Numbers(obj, "ll_ft", true, false);
        same_length(s.ll_ft, "ll_ft", s.ll.size(), "ll");
      }
      if (obj.contains("ll_lower_ft")) {
        if (!obj.contains("ll_lower")) throw LineError("'ll_lower_ft' needs 'll_lower'");
        s.ll_lower_ft = Numbers(obj, "ll_lower_ft", true, false);
        same_length(s.ll_lower_ft, "ll_lower_ft", s.ll_lower.size(), "ll_lower");
      }
      members += s.label;
      file.texts.push_back(std::move(s));
    } catch (const LineError& e) {
      throw std::runtime_error(path + ":" + std::to_string(number) + ": " + e.what());
    }
    for (size_t f = 0; f < std::size(kOptional); ++f) {
      if (first_line_with[f] && first_line_without[f]) {
        throw std::runtime_error(path + ":" + std::to_string(std::max(first_line_with[f], first_line_without[f])) +
                                 ": field '" + kOptional[f] + "' must be on every line or on none (line " +
                                 std::to_string(first_line_with[f]) + " has it, line " +
                                 std::to_string(first_line_without[f]) + " does not)");
      }
    }
  }
  if (file.texts.empty()) throw std::runtime_error(path + ": no texts");
  if (members == 0 || members == int(file.texts.size())) {
    throw std::runtime_error(path + ": needs members (label 1) and non-members (label 0)");
  }
  return file;
}

std::vector<MethodMetrics> EvaluateStats(const StatsFile& file, int resamples, uint64_t seed) {
  std::vector<int> labels;
  for (const auto& s : file.texts) labels.push_back(s.label);
  std::vector<MethodMetrics> out;
  for (const auto& m : cb::ref::mia::ScoreAll(file.texts)) {
    MethodMetrics mm;
    mm.method = m.method;
    mm.auroc = cb::ref::Auroc(m.scores, labels);
    const auto ci = cb::ref::BootstrapAurocCi(m.scores, labels, resamples, seed);
    mm.auroc_ci_low = ci.low;
    mm.auroc_ci_high = ci.high;
    const auto curve = cb::ref::RocCurve(m.scores, labels, cb::ref::RocPoints::kSklearnDefault);
    mm.tpr_at_5_fpr_le = cb::ref::TprAtFpr(curve, 0.05, false);
    mm.tpr_at_5_fpr_lt = cb::ref::TprAtFpr(curve, 0.05, true);
    mm.fpr_at_95_tpr = cb::ref::FprAtTpr(curve, 0.95);
    const auto full = cb::ref::RocCurve(m.scores, labels, cb::ref::RocPoints::kAll);
    mm.tpr_at_5_fpr_le_all_points = cb::ref::TprAtFpr(full, 0.05, false);
    mm.tpr_at_5_fpr_lt_all_points = cb::ref::TprAtFpr(full, 0.05, true);
    mm.fpr_at_95_tpr_all_points = cb::ref::FprAtTpr(full, 0.95);
    out.push_back(mm);
  }
  return out;
}

std::vector<cb::harness::Result> EvaluationResults(const StatsFile& file, const std::string& dataset,
                                                   const std::vector<MethodMetrics>& metrics, int resamples) {
  std::vector<cb::harness::Result> rows;
  const int64_t n = static_cast<int64_t>(file.texts.size());
  for (const auto& m : metrics) {
    const json params = {{"dataset", dataset}, {"method", m.method}, {"resamples", resamples}};
    auto row = [&](const char* metric, double v, const char* direction) {
      cb::harness::Result r;
      r.suite = "mia";
      r.case_name = "eval_stats";
      r.backend = "cpu";
      r.params = params;
      r.metric = metric;
      r.unit = "1";
      r.direction = direction;
      r.value = v;
      r.n = n;
      r.input_hash = file.content_hash;
      return r;
    };
    auto auc = row("auroc", m.auroc, "higher");
    auc.ci_low = m.auroc_ci_low;
    auc.ci_high = m.auroc_ci_high;
    rows.push_back(auc);
    rows.push_back(row("tpr_at_fpr_le_0.05", m.tpr_at_5_fpr_le, "higher"));
    rows.push_back(row("tpr_at_fpr_lt_0.05", m.tpr_at_5_fpr_lt, "higher"));
    rows.push_back(row("fpr_at_tpr_0.95", m.fpr_at_95_tpr, "lower"));
    rows.push_back(row("tpr_at_fpr_le_0.05_all_points", m.tpr_at_5_fpr_le_all_points, "higher"));
    rows.push_back(row("tpr_at_fpr_lt_0.05_all_points", m.tpr_at_5_fpr_lt_all_points, "higher"));
    rows.push_back(row("fpr_at_tpr_0.95_all_points", m.fpr_at_95_tpr_all_points, "lower"));
  }
  return rows;
}

}  // namespace cb::mia
