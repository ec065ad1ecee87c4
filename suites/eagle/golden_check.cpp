// File: suites/eagle/golden_check.cpp
// Scorer parity on golden cases; see golden_check.h.
#include "suites/eagle/golden_check.h"

#include <stdexcept>

#include <nlohmann/json.hpp>

#include "harness/jsonl.h"
#include "reference/eagle/bench.h"
#include "reference/eagle/scorers.h"
#include "reference/eagle/vqa_normalize.h"

namespace cb::eagle {
namespace {

namespace re = cb::ref::eagle;

std::vector<std::string> Answers(const nlohmann::json& a) {
  if (a.is_string()) return {a.get<std::string>()};
  return a.get<std::vector<std::string>>();
}

// Ours for one case, as JSON comparable with "paper".
nlohmann::json Ours(const std::string& kind, const nlohmann::json& in) {
  const re::Mode m = re::Mode::kPaperCompatible;
  if (kind == "normalize") return re::Normalize(in.get<std::string>(), m);
  if (kind == "punctuation") return re::ProcessPunctuation(in.get<std::string>(), m);
  if (kind == "textvqa") return re::TextVqaAccuracy(in.at("pred").get<std::string>(), Answers(in.at("answers")), m);
  if (kind == "vqav2") return re::Vqav2Accuracy(in.at("pred").get<std::string>(), Answers(in.at("answers")), m);
  if (kind == "anls") return re::Anls(in.at("pred").get<std::string>(), Answers(in.at("answers")), m);
  if (kind == "chartqa")
    return re::RelaxedCorrect(in.at("pred").get<std::string>(), in.at("answer").get<std::string>(), m);
  if (kind == "ocrbench")
    return re::OcrBenchCorrect(in.at("pred").get<std::string>(), Answers(in.at("answer")),
                               in.at("dataset") == "HME100k", m)
               ? 1
               : 0;
  if (kind == "mme_parse") return re::MmeParse(in.get<std::string>());
  if (kind == "mme_aggregate") {
    std::vector<re::Prediction> preds;
    for (const auto& q : in) preds.push_back({q.at("question_id"), "mme", q.at("pred"), {q.at("answer")}, q.at("category"), ""});
    const re::Scores s = re::Score(preds, m);
    return {{"perception", s.tasks.at("mme").value}, {"cognition", s.tasks.at("mme").parts.at("cognition_score")}};
  }
  throw std::runtime_error("golden: unknown kind '" + kind + "'");
}

bool Same(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.is_number() && b.is_number()) return a.get<double>() == b.get<double>();
  if (a.is_object() && b.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto it = a.begin(); it != a.end(); ++it)
      if (!b.contains(it.key()) || !Same(it.value(), b[it.key()])) return false;
    return true;
  }
  return a == b;
}

}  // namespace

GoldenReport CheckGolden(std::string_view jsonl) {
  GoldenReport rep;
  cb::harness::ForEachJsonlObject(jsonl, "golden", [&](const nlohmann::json& j, const std::string& where) {
    if (!j.contains("kind") || !j.contains("input") || !j.contains("paper"))
      throw std::runtime_error(where + "a golden case needs kind, input and paper");
    const std::string kind = j["kind"];
    const nlohmann::json ours = Ours(kind, j["input"]);
    const bool ok = Same(ours, j["paper"]);
    ++rep.cases;
    rep.agreed += ok;
    auto& k = rep.by_kind[kind];
    k.first += ok;
    ++k.second;
    if (!ok && rep.problems.size() < 5)
      rep.problems.push_back(kind + " " + j["input"].dump() + ": ours " + ours.dump() + ", code " + j["paper"].dump());
  });
  return rep;
}

std::string_view EmbeddedGolden() {
  static constexpr char kGolden[] =
#include "suites/eagle/golden_cases.inc"
      ;
  return std::string_view(kGolden, sizeof kGolden - 1);
}

}  // namespace cb::eagle
