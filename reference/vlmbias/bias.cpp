// File: reference/vlmbias/bias.cpp
// The bias ratio and its paired, stratified bootstrap; see bias.h.
#include "reference/vlmbias/bias.h"

#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

#include "harness/random.h"
#include "harness/stats.h"

namespace cb::ref::vlmbias {

const char* RegionName(Region r) { return r == Region::kWest ? "west" : "east_asia"; }

namespace {

namespace h = cb::harness;

// Per unit, per condition: sums and counts per region.
struct Cell {
  std::array<double, 2> sum{0, 0};
  std::array<int64_t, 2> n{0, 0};
};

struct Units {
  std::vector<std::map<std::string, Cell>> cells;  // unit -> condition -> cell
  std::array<std::vector<size_t>, 3> strata;       // west only, east only, both
};

Units Build(const std::vector<Observation>& obs) {
  Units u;
  std::map<std::string, size_t> index;
  for (const auto& o : obs) {
    if (!std::isfinite(o.value)) throw std::invalid_argument("bias: a non-finite score for unit '" + o.unit + "'");
    auto [it, fresh] = index.emplace(o.unit, u.cells.size());
    if (fresh) u.cells.emplace_back();
    Cell& c = u.cells[it->second][o.condition];
    const int r = o.region == Region::kWest ? 0 : 1;
    c.sum[r] += o.value;
    ++c.n[r];
  }
  for (size_t i = 0; i < u.cells.size(); ++i) {
    bool w = false, e = false;
    for (const auto& [cond, c] : u.cells[i]) {
      w = w || c.n[0] > 0;
      e = e || c.n[1] > 0;
    }
    u.strata[w && e ? 2 : (w ? 0 : 1)].push_back(i);
  }
  return u;
}

// West and East sums and counts of `condition` with unit multiplicities m.
struct Perf {
  double sw = 0, se = 0;
  int64_t nw = 0, ne = 0;
  double West() const { return sw / static_cast<double>(nw); }
  double East() const { return se / static_cast<double>(ne); }
};

Perf Tally(const Units& u, const std::string& condition, const std::vector<int>& m) {
  Perf p;
  for (size_t i = 0; i < u.cells.size(); ++i) {
    if (m[i] == 0) continue;
    const auto it = u.cells[i].find(condition);
    if (it == u.cells[i].end()) continue;
    p.sw += m[i] * it->second.sum[0];
    p.se += m[i] * it->second.sum[1];
    p.nw += m[i] * it->second.n[0];
    p.ne += m[i] * it->second.n[1];
  }
  return p;
}

// Calls f(multiplicities) for each of `resamples` stratified resamples.
template <typename F>
void Resample(const Units& u, int resamples, uint64_t seed, F&& f) {
  h::Rng rng(seed, 0);
  std::vector<int> m(u.cells.size());
  for (int b = 0; b < resamples; ++b) {
    std::fill(m.begin(), m.end(), 0);
    for (const auto& s : u.strata)
      for (size_t k = 0; k < s.size(); ++k) ++m[s[rng.UniformInt(0, s.size() - 1)]];
    f(m);
  }
}

// Percentile interval with +inf allowed (interpolated as DBL_MAX, mapped back).
Interval95 Percentile(std::vector<double> x) {
  constexpr double kMax = std::numeric_limits<double>::max();
  for (double& v : x)
    if (std::isinf(v)) v = kMax;
  const h::Interval ci = h::PercentileInterval(std::move(x), 0.95);
  auto back = [](double v) { return v >= kMax * 0.5 ? std::numeric_limits<double>::infinity() : v; };
  return {back(ci.low), back(ci.high)};
}

void RequireBoth(const Perf& p, const std::string& condition) {
  if (p.nw == 0 || p.ne == 0)
    throw std::invalid_argument("bias: condition '" + condition + "' needs observations in both regions (west " +
                                std::to_string(p.nw) + ", east_asia " + std::to_string(p.ne) + ")");
}

}  // namespace

BiasEstimate BiasRatio(const std::vector<Observation>& obs, const std::string& condition, int resamples,
                       uint64_t seed) {
  if (resamples < 2) throw std::invalid_argument("bias: resamples must be >= 2");
  const Units u = Build(obs);
  const Perf p = Tally(u, condition, std::vector<int>(u.cells.size(), 1));
  RequireBoth(p, condition);
  BiasEstimate e;
  e.west = p.West();
  e.east = p.East();
  e.n_west = p.nw;
  e.n_east = p.ne;
  e.ratio_defined = e.east > 0;
  if (e.ratio_defined) e.ratio = e.west / e.east;
  std::vector<double> rw, re, rr;
  Resample(u, resamples, seed, [&](const std::vector<int>& m) {
    const Perf q = Tally(u, condition, m);
    if (q.nw == 0 || q.ne == 0) {  // the condition's units of a region all missed
      ++e.dropped_replicates;
      return;
    }
    rw.push_back(q.West());
    re.push_back(q.East());
    if (q.se > 0) {
      rr.push_back(q.West() / q.East());
    } else {
      rr.push_back(std::numeric_limits<double>::infinity());
      ++e.zero_east_replicates;
    }
  });
  e.replicates = resamples;
  if (rr.size() < 2) throw std::invalid_argument("bias: condition '" + condition + "' has too few units to resample");
  e.west_ci = Percentile(rw);
  e.east_ci = Percentile(re);
  e.ratio_ci = Percentile(rr);
  return e;
}

RatioDelta BiasRatioDelta(const std::vector<Observation>& obs, const std::string& a, const std::string& b,
                          int resamples, uint64_t seed) {
  if (resamples < 2) throw std::invalid_argument("bias: resamples must be >= 2");
  const Units u = Build(obs);
  const std::vector<int> ones(u.cells.size(), 1);
  const Perf pa = Tally(u, a, ones), pb = Tally(u, b, ones);
  RequireBoth(pa, a);
  RequireBoth(pb, b);
  RatioDelta d;
  d.defined = pa.se > 0 && pb.se > 0;
  if (d.defined) d.delta = pa.West() / pa.East() - pb.West() / pb.East();
  std::vector<double> r;
  Resample(u, resamples, seed, [&](const std::vector<int>& m) {
    const Perf qa = Tally(u, a, m), qb = Tally(u, b, m);
    if (qa.nw > 0 && qa.ne > 0 && qb.nw > 0 && qb.ne > 0 && qa.se > 0 && qb.se > 0) r.push_back(qa.West() / qa.East() - qb.West() / qb.East());
    else ++d.dropped;
  });
  d.replicates = resamples;
  if (r.size() >= 2) d.ci = Percentile(r);
  else d.ci = {-std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()};
  return d;
}

}  // namespace cb::ref::vlmbias
