// File: suites/ibedl/eval_predictions.cpp
// Parsing and scoring IB-EDL prediction files (eval_predictions.h).
#include "suites/ibedl/eval_predictions.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "harness/jsonl.h"
#include "suites/ibedl/npz.h"

namespace cb::ibedl {

namespace ri = cb::ref::ibedl;

namespace {

[[noreturn]] void Bad(const std::string& where, const std::string& why) { throw std::runtime_error(where + why); }

std::vector<double> NumberList(const nlohmann::json& j, const char* key, const std::string& where) {
  if (!j.is_array() || j.size() < 2) Bad(where, std::string("\"") + key + "\" must be a list of >= 2 numbers");
  std::vector<double> v;
  for (const auto& x : j) {
    if (!x.is_number()) Bad(where, std::string("\"") + key + "\" must hold numbers");
    v.push_back(x.get<double>());
    if (!std::isfinite(v.back())) Bad(where, std::string("\"") + key + "\" holds a non-finite value");
  }
  return v;
}

void Append(PredictionSet& s, const std::vector<double>& logits, const std::vector<double>& probs, int label,
            std::optional<double> u) {
  s.logits.insert(s.logits.end(), logits.begin(), logits.end());
  s.probs.insert(s.probs.end(), probs.begin(), probs.end());
  s.labels.push_back(label);
  if (u) s.uncertainty.push_back(*u);
}

}  // namespace

PredictionFile ParsePredictionsJsonl(const std::string& text, const std::string& source) {
  PredictionFile f;
  size_t with_u = 0, rows = 0;
  cb::harness::ForEachJsonlObject(text, source, [&](const nlohmann::json& o, const std::string& where) {
    ++rows;
    if (!o.contains("label") || !o["label"].is_number_integer()) Bad(where, "\"label\" must be an integer");
    const bool has_logits = o.contains("logits"), has_alphas = o.contains("alphas");
    if (has_logits == has_alphas) Bad(where, "give exactly one of \"logits\" or \"alphas\"");
    std::vector<double> values = NumberList(has_logits ? o["logits"] : o["alphas"], has_logits ? "logits" : "alphas", where);
    const int K = static_cast<int>(values.size());
    if (o.contains("K") && (!o["K"].is_number_integer() || o["K"].get<int>() != K))
      Bad(where, "\"K\" disagrees with the list's length " + std::to_string(K));
    const int label = o["label"].get<int>();
    if (label < 0 || label >= K) Bad(where, "label " + std::to_string(label) + " outside [0, " + std::to_string(K) + ")");
    std::optional<double> u;
    if (o.contains("uncertainty")) {
      if (!o["uncertainty"].is_number() || !(o["uncertainty"].get<double>() > 0))
        Bad(where, "\"uncertainty\" must be a number > 0");
      u = o["uncertainty"].get<double>();
    }
    std::string split = "id";
    if (o.contains("split")) {
      if (!o["split"].is_string()) Bad(where, "\"split\" must be \"id\" or \"ood\"");
      split = o["split"].get<std::string>();
      if (split != "id" && split != "ood") Bad(where, "\"split\" must be \"id\" or \"ood\", not \"" + split + "\"");
    }
    std::vector<double> logits, probs;
    if (has_alphas) {
      double S = 0;
      for (double a : values) {
        if (!(a > 0)) Bad(where, "\"alphas\" must be > 0");
        S += a;
      }
      for (double a : values) probs.push_back(a / S);
      const double ref = std::log(std::max(probs.back(), 1e-10));
      for (double p : probs) logits.push_back(std::log(std::max(p, 1e-10)) - ref);
      if (!u) u = double(K) / S;
    } else {
      logits = values;
      probs = ri::Softmax(values, K);
    }
    PredictionSet& s = split == "id" ? f.id : f.ood;
    if (s.k != 0 && s.k != K)
      Bad(where, "K = " + std::to_string(K) + " but earlier " + split + " rows have K = " + std::to_string(s.k));
    s.k = K;
    with_u += u.has_value();
    Append(s, logits, probs, label, u);
  });
  if (f.id.size() == 0) throw std::runtime_error(source + ": no \"id\" rows");
  if (with_u != rows) f.id.uncertainty.clear(), f.ood.uncertainty.clear();  // UM needs every row's u
  return f;
}

PredictionSet ReadPredictionsNpz(const std::string& path) {
  const auto arrays = ReadNpz(path);
  auto need = [&](const char* key) -> const NpyArray& {
    auto it = arrays.find(key);
    if (it == arrays.end()) throw std::runtime_error(path + ": no '" + key + "' array");
    return it->second;
  };
  const NpyArray& z = need("logits");
  const NpyArray& y = need("labels");
  if (z.shape.size() != 2 || z.shape[1] < 2) throw std::runtime_error(path + ": 'logits' must be [N, K], K >= 2");
  const int64_t N = z.shape[0];
  const int K = static_cast<int>(z.shape[1]);
  if (y.shape.size() != 1 || y.shape[0] != N) throw std::runtime_error(path + ": 'labels' must be [N] with N = " + std::to_string(N));
  PredictionSet s;
  s.k = K;
  s.logits = z.values;
  for (double v : s.logits)
    if (!std::isfinite(v)) throw std::runtime_error(path + ": 'logits' holds a non-finite value");
  s.probs = ri::Softmax(s.logits, K);
  for (int64_t i = 0; i < N; ++i) {
    const double l = y.values[i];
    if (l != std::floor(l) || l < 0 || l >= K)
      throw std::runtime_error(path + ": label " + std::to_string(l) + " of row " + std::to_string(i) + " outside [0, K)");
    s.labels.push_back(static_cast<int>(l));
  }
  if (auto it = arrays.find("uncertainties"); it != arrays.end()) {
    if (it->second.shape.size() != 1 || it->second.shape[0] != N)
      throw std::runtime_error(path + ": 'uncertainties' must be [N]");
    s.uncertainty = it->second.values;
    for (double v : s.uncertainty)
      if (!std::isfinite(v)) throw std::runtime_error(path + ": 'uncertainties' holds a non-finite value");
  }
  return s;
}

namespace {
SplitScores ScoreSet(const PredictionSet& s, bool paper) {
  SplitScores r;
  r.n = static_cast<int>(s.size());
  r.k = s.k;
  r.acc = ri::Accuracy(s.probs, s.k, s.labels);
  r.ece = paper ? ri::EceFromLogits(s.logits, s.k, s.labels) : ri::Ece(s.probs, s.k, s.labels);
  r.nll = ri::Nll(s.logits, s.k, s.labels);
  r.brier = ri::Brier(s.probs, s.k, s.labels);
  return r;
}
}  // namespace

ModeScoresIbedl ScorePredictions(const PredictionFile& f, bool paper) {
  ModeScoresIbedl m;
  m.id = ScoreSet(f.id, paper);
  if (f.ood.size() > 0) {
    m.ood_split = ScoreSet(f.ood, paper);
    m.k_ood = f.ood.k;
    const bool um = !f.id.uncertainty.empty() && f.ood.uncertainty.size() == f.ood.size();
    const std::vector<double> none;
    m.ood = ri::Ood(f.id.logits, f.id.k, um ? f.id.uncertainty : none, f.ood.logits, f.ood.k,
                    um ? f.ood.uncertainty : none);
  }
  return m;
}

}  // namespace cb::ibedl
