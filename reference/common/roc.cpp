// File: reference/common/roc.cpp
// AUROC, ROC curve, TPR/FPR operating points and bootstraps; see roc.h.
#include "reference/common/roc.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "harness/random.h"

namespace cb::ref {
namespace {

void Check(std::span<const double> scores, std::span<const int> labels, const char* who) {
  if (scores.size() != labels.size()) {
    throw std::invalid_argument(std::string(who) + ": " + std::to_string(scores.size()) +
                                " scores but " + std::to_string(labels.size()) + " labels");
  }
  size_t pos = 0;
  for (size_t i = 0; i < scores.size(); ++i) {
    if (std::isnan(scores[i])) {
      throw std::invalid_argument(std::string(who) + ": score " + std::to_string(i) + " is NaN");
    }
    if (labels[i] != 0 && labels[i] != 1) {
      throw std::invalid_argument(std::string(who) + ": label " + std::to_string(i) + " is not 0/1");
    }
    pos += labels[i];
  }
  if (pos == 0 || pos == labels.size()) {
    throw std::invalid_argument(std::string(who) + ": needs members and non-members");
  }
}

// Average ranks (1-based) of the concatenation, ties averaged; returns the
// sum of the ranks of the first nx entries and the tie term sum(t^3 - t).
struct RankSum {
  double first = 0, ties = 0;
};
RankSum RankSumOf(std::span<const double> v, size_t nx) {
  std::vector<size_t> idx(v.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  RankSum r;
  for (size_t i = 0; i < idx.size();) {
    size_t j = i;
    while (j + 1 < idx.size() && v[idx[j + 1]] == v[idx[i]]) ++j;
    const double rank = 0.5 * double(i + j) + 1.0, t = double(j - i + 1);
    r.ties += t * t * t - t;
    for (size_t k = i; k <= j; ++k) {
      if (idx[k] < nx) r.first += rank;
    }
    i = j + 1;
  }
  return r;
}

double AurocUnchecked(std::span<const double> scores, std::span<const int> labels) {
  std::vector<double> v;
  v.reserve(scores.size());
  for (size_t i = 0; i < scores.size(); ++i) if (labels[i] == 1) v.push_back(scores[i]);
  const size_t n1 = v.size();
  for (size_t i = 0; i < scores.size(); ++i) if (labels[i] == 0) v.push_back(scores[i]);
  const double n0 = double(v.size() - n1);
  const double u = RankSumOf(v, n1).first - double(n1) * (double(n1) + 1) / 2;
  return u / (double(n1) * n0);
}

struct Strata {
  std::vector<size_t> pos, neg;
};
Strata StrataOf(std::span<const int> labels) {
  Strata s;
  for (size_t i = 0; i < labels.size(); ++i) (labels[i] ? s.pos : s.neg).push_back(i);
  return s;
}

// One stratified resample: indices into the original arrays.
void Resample(const Strata& s, cb::harness::Rng& rng, std::vector<size_t>& out) {
  out.clear();
  for (const auto* part : {&s.pos, &s.neg}) {
    for (size_t k = 0; k < part->size(); ++k) {
      out.push_back((*part)[rng.UniformInt(0, part->size() - 1)]);
    }
  }
}

}  // namespace

double Auroc(std::span<const double> scores, std::span<const int> labels) {
  Check(scores, labels, "Auroc");
  return AurocUnchecked(scores, labels);
}

std::vector<RocPoint> RocCurve(std::span<const double> scores, std::span<const int> labels,
                               RocPoints points) {
  Check(scores, labels, "RocCurve");
  std::vector<size_t> idx(scores.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return scores[a] > scores[b]; });
  double p = 0, n = 0;
  for (int l : labels) (l ? p : n) += 1;
  // Cumulative counts per distinct threshold (sklearn's fps, tps): integers,
  // so the second differences below are exact.
  struct Counts {
    int64_t fp = 0, tp = 0;
    double threshold = 0;
  };
  std::vector<Counts> c;
  int64_t tp = 0, fp = 0;
  for (size_t i = 0; i < idx.size();) {
    size_t j = i;
    for (; j < idx.size() && scores[idx[j]] == scores[idx[i]]; ++j) (labels[idx[j]] ? tp : fp) += 1;
    c.push_back({fp, tp, scores[idx[i]]});
    i = j;
  }
  std::vector<RocPoint> curve{{0.0, 0.0, INFINITY}};
  for (size_t i = 0; i < c.size(); ++i) {
    if (points == RocPoints::kSklearnDefault && c.size() > 2 && i > 0 && i + 1 < c.size() &&
        c[i - 1].fp - 2 * c[i].fp + c[i + 1].fp == 0 && c[i - 1].tp - 2 * c[i].tp + c[i + 1].tp == 0) {
      continue;  // collinear with both neighbours: sklearn drops it
    }
    curve.push_back({double(c[i].fp) / n, double(c[i].tp) / p, c[i].threshold});
  }
  return curve;
}

double TprAtFpr(std::span<const RocPoint> curve, double max_fpr, bool strict) {
  const RocPoint* last = nullptr;
  for (const auto& pt : curve) {
    if (strict ? pt.fpr < max_fpr : pt.fpr <= max_fpr) last = &pt;
  }
  if (last == nullptr) {
    throw std::invalid_argument("TprAtFpr: no ROC point with fpr " + std::string(strict ? "< " : "<= ") +
                                std::to_string(max_fpr));
  }
  return last->tpr;
}

double FprAtTpr(std::span<const RocPoint> curve, double min_tpr) {
  for (const auto& pt : curve) {
    if (pt.tpr >= min_tpr) return pt.fpr;
  }
  return 1.0;
}

cb::harness::Interval BootstrapAurocCi(std::span<const double> scores, std::span<const int> labels,
                                       int resamples, uint64_t seed, double level) {
  Check(scores, labels, "BootstrapAurocCi");
  const Strata s = StrataOf(labels);
  cb::harness::Rng rng(seed, 0);
  std::vector<size_t> pick;
  std::vector<double> sc(scores.size()), reps;
  std::vector<int> lb(scores.size());
  for (int r = 0; r < resamples; ++r) {
    Resample(s, rng, pick);
    for (size_t i = 0; i < pick.size(); ++i) {
      sc[i] = scores[pick[i]];
      lb[i] = labels[pick[i]];
    }
    reps.push_back(AurocUnchecked(sc, lb));
  }
  return cb::harness::PercentileInterval(std::move(reps), level);
}

PairedDiff PairedAurocDiff(std::span<const PairedScores> groups, int resamples, uint64_t seed,
                           double level) {
  if (groups.empty()) throw std::invalid_argument("PairedAurocDiff: no groups");
  PairedDiff out;
  std::vector<Strata> strata;
  for (const auto& g : groups) {
    Check(g.a, g.labels, "PairedAurocDiff");
    Check(g.b, g.labels, "PairedAurocDiff");
    out.per_group.push_back(AurocUnchecked(g.a, g.labels) - AurocUnchecked(g.b, g.labels));
    strata.push_back(StrataOf(g.labels));
  }
  out.mean_diff = cb::harness::Mean(out.per_group);
  cb::harness::Rng rng(seed, 0);
  std::vector<size_t> pick;
  std::vector<double> sa, sb, reps;
  std::vector<int> lb;
  for (int r = 0; r < resamples; ++r) {
    double sum = 0;
    for (size_t k = 0; k < groups.size(); ++k) {
      Resample(strata[k], rng, pick);
      sa.resize(pick.size());
      sb.resize(pick.size());
      lb.resize(pick.size());
      for (size_t i = 0; i < pick.size(); ++i) {
        sa[i] = groups[k].a[pick[i]];
        sb[i] = groups[k].b[pick[i]];
        lb[i] = groups[k].labels[pick[i]];
      }
      sum += AurocUnchecked(sa, lb) - AurocUnchecked(sb, lb);
    }
    reps.push_back(sum / double(groups.size()));
  }
  out.ci = cb::harness::PercentileInterval(std::move(reps), level);
  return out;
}

MannWhitney MannWhitneyGreater(std::span<const double> x, std::span<const double> y) {
  if (x.empty() || y.empty()) throw std::invalid_argument("MannWhitneyGreater: empty sample");
  std::vector<double> v(x.begin(), x.end());
  v.insert(v.end(), y.begin(), y.end());
  for (double d : v) if (std::isnan(d)) throw std::invalid_argument("MannWhitneyGreater: NaN");
  const double nx = double(x.size()), ny = double(y.size()), n = nx + ny;
  const RankSum r = RankSumOf(v, x.size());
  const double u = r.first - nx * (nx + 1) / 2;
  MannWhitney m;
  m.auc = u / (nx * ny);
  const double var = nx * ny / 12.0 * ((n + 1) - r.ties / (n * (n - 1)));
  if (var <= 0) return m;  // every value tied: no evidence either way
  m.z = (u - nx * ny / 2 - 0.5) / std::sqrt(var);
  m.p_value = cb::harness::NormalCdf(-m.z);
  return m;
}

}  // namespace cb::ref
