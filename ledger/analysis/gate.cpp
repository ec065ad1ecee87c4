// File: ledger/analysis/gate.cpp
// -----------------------------------------------------------------------------
// The regression gate (see gate.h for the verdict rules).
#include "ledger/analysis/gate.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <unordered_map>

#include "harness/hash.h"
#include "harness/stats.h"
#include "harness/stats_tests.h"
#include "ledger/canonical.h"

namespace cb::ledger {
namespace {

namespace h = cb::harness;

double Number(const nlohmann::json& j, const char* key, const std::string& source) {
  if (!j.is_number()) throw std::runtime_error("policy '" + source + "': '" + key + "' must be a number");
  return j.get<double>();
}

Tolerance ParseTolerance(const nlohmann::json& j, const std::string& where,
                         const std::string& source) {
  if (!j.is_object()) throw std::runtime_error("policy '" + source + "': '" + where + "' must be an object");
  Tolerance t;
  for (const auto& [k, v] : j.items()) {
    if (k == "rtol") t.rtol = Number(v, "rtol", source);
    else if (k == "atol") t.atol = Number(v, "atol", source);
    else throw std::runtime_error("policy '" + source + "': unknown key '" + where + "." + k + "'");
  }
  if (t.rtol < 0 || t.atol < 0) throw std::runtime_error("policy '" + source + "': negative tolerance in '" + where + "'");
  return t;
}

// Lower-is-better unless the row says higher.
bool HigherIsBetter(const Result& r) { return r.direction == "higher"; }

int Rank(const GateRow& r) {
  if (r.regression) return 0;
  if (r.gated && r.verdict == "AMBIGUOUS") return 1;
  if (r.verdict == "NEW" || r.verdict == "MISSING" || r.verdict == "INPUT_CHANGED") return 3;
  if (r.verdict == "SAME" || r.verdict == "MATCH") return 4;
  return 2;
}

std::string Short(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

uint64_t RowSeed(const std::string& key) { return h::Xxh3_128(key).low ^ 0x9e3779b97f4a7c15ULL; }

using OptKind = std::optional<h::ResultKind>;

const char* KindText(OptKind k) { return k ? h::ResultKindName(*k) : "unknown"; }

// The comparison a row's declared kind gets: a timing is tested over its raw
// samples, an exact value or a seeded estimate by tolerance; a row without a
// recorded kind is only reported.
RowKind RowKindFor(OptKind k) {
  if (!k) return RowKind::kValue;
  return *k == h::ResultKind::kTiming ? RowKind::kSpeed : RowKind::kDeterministic;
}

GateRow Skeleton(const Result& r, OptKind result_kind) {
  GateRow g;
  g.kind = RowKindFor(result_kind);
  g.result_kind = KindText(result_kind);
  g.suite = r.suite;
  g.case_name = r.case_name;
  g.backend = r.backend;
  g.metric = r.metric;
  g.params = r.params.dump();
  return g;
}

void GateSpeed(const Result& b, const Result& c, const GatePolicy& policy, GateRow* g) {
  g->kind = RowKind::kSpeed;
  g->n_baseline = static_cast<int64_t>(b.samples.size());
  g->n_candidate = static_cast<int64_t>(c.samples.size());
  g->baseline_value = h::Median(b.samples);
  g->candidate_value = h::Median(c.samples);
  g->threshold = policy.ThresholdFor(c.suite);
  g->gated = policy.gate_speed;
  const auto u = h::MannWhitneyU(c.samples, b.samples);
  g->p = u.p_value;
  g->test = u.exact ? "mann-whitney-u exact + bootstrap median ratio"
                    : "mann-whitney-u normal + bootstrap median ratio";
  if (*g->baseline_value == 0.0) {
    g->note = "baseline median is 0: no relative change";
    return;
  }
  const h::Interval ci = h::BootstrapRelativeChange(b.samples, c.samples, 0.95, policy.resamples,
                                                    RowSeed(RowKey(c)));
  const double rel = *g->candidate_value / *g->baseline_value - 1.0;
  // Slowdown: positive = worse.
  if (HigherIsBetter(c)) {
    g->effect = -rel;
    g->ci_low = -ci.high;
    g->ci_high = -ci.low;
  } else {
    g->effect = rel;
    g->ci_low = ci.low;
    g->ci_high = ci.high;
  }
}

// After BH: the final speed verdict.
void ClassifySpeed(const GatePolicy& policy, GateRow* g) {
  if (!g->ci_low) {
    g->verdict = "AMBIGUOUS";
    return;
  }
  const double t = *g->threshold;
  const bool significant = g->q && *g->q <= policy.fdr_q;
  if (significant && *g->ci_low > t) {
    g->verdict = "SLOWER";
    g->regression = g->gated;
  } else if (significant && *g->ci_high < -t) {
    g->verdict = "FASTER";
  } else if (*g->ci_low >= -t && *g->ci_high <= t) {
    g->verdict = "SAME";
  } else {
    g->verdict = "AMBIGUOUS";
  }
  if (!g->gated && g->note.empty()) g->note = "speed reported, not gated (policy gate_speed = false)";
}

bool WithinTolerance(double b, double c, const Tolerance& t) {
  if (std::isnan(b) || std::isnan(c)) return std::isnan(b) && std::isnan(c);
  if (b == c) return true;  // also equal infinities
  return std::fabs(c - b) <= t.atol + t.rtol * std::fabs(b);
}

void GateDeterministic(const Result& b, const Result& c, const GatePolicy& policy,
                       bool cross_platform, GateRow* g) {
  g->kind = RowKind::kDeterministic;
  g->n_baseline = b.n;
  g->n_candidate = c.n;
  g->baseline_value = b.value;
  g->candidate_value = c.value;
  g->baseline_input_hash = b.input_hash;
  g->candidate_input_hash = c.input_hash;
  g->baseline_output_hash = b.output_hash;
  g->candidate_output_hash = c.output_hash;
  if (b.value != 0) g->effect = c.value / b.value - 1.0;
  if (b.input_hash != c.input_hash) {
    g->verdict = "INPUT_CHANGED";
    g->test = "input hash";
    g->note = "the input changed, so the outputs are not comparable";
    return;
  }
  const Tolerance tol = policy.ToleranceFor(c.metric);
  g->threshold = tol.rtol;
  g->test = "tolerance |c-b| <= atol + rtol |b|";
  g->gated = true;
  if (!WithinTolerance(b.value, c.value, tol)) {
    g->verdict = "CHANGED";
    g->regression = true;
    g->note = "same input, value outside rtol " + Short(tol.rtol) + " atol " + Short(tol.atol);
    return;
  }
  if (!b.output_hash.empty() && !c.output_hash.empty() && b.output_hash != c.output_hash) {
    g->verdict = "OUTPUT_CHANGED";
    g->test = "output hash";
    g->gated = !cross_platform;
    g->regression = !cross_platform;
    g->note = cross_platform ? "output bits differ across platforms; value within tolerance"
                             : "same input and platform, different output bytes";
    return;
  }
  g->verdict = "MATCH";
}

void GateValue(const Result& b, const Result& c, GateRow* g) {
  g->kind = RowKind::kValue;
  g->verdict = "VALUE";
  g->test = "none (single value, no noise estimate)";
  g->n_baseline = b.n;
  g->n_candidate = c.n;
  g->baseline_value = b.value;
  g->candidate_value = c.value;
  if (b.value != 0) g->effect = c.value / b.value - 1.0;
}

GateRow GateClaim(const ClaimRow* b, const ClaimRow* c) {
  GateRow g;
  g.kind = RowKind::kClaim;
  const ClaimRow& any = c ? *c : *b;
  g.suite = any.suite;
  g.case_name = any.claim_id;
  g.metric = any.metric;
  g.test = "claim verdict";
  if (b) {
    g.baseline_verdict = b->verdict;
    g.baseline_value = b->value;
  }
  if (c) {
    g.candidate_verdict = c->verdict;
    g.candidate_value = c->value;
  }
  if (!b) {
    g.verdict = "NEW";
    return g;
  }
  if (!c) {
    g.verdict = "MISSING";
    return g;
  }
  // The candidate's declaration (the code that ran last) wins; a claim stored
  // before schema version 4 has none, and then the other side's is used.
  const std::optional<bool> clock = c->depends_on_clock ? c->depends_on_clock : b->depends_on_clock;
  g.gated = clock.has_value() && !*clock;
  if (!clock) {
    g.note = "neither run recorded whether this claim's verdict rests on a clock (both recorded "
             "before ledger schema 4): reported, not gated";
  } else if (*clock) {
    g.note = "the verdict rests on a clock or meter (depends_on_clock): reported, not gated";
  }
  // A claim judged by another criterion is another claim: its verdict is not
  // compared with the old one (neither a regression nor a match), and the
  // change is reported as such. Claims recorded before ledger schema 7 carry
  // no criterion hash; those are compared as before.
  if (b->criterion_hash.value_or("") != "" && c->criterion_hash.value_or("") != "" &&
      *b->criterion_hash != *c->criterion_hash) {
    g.verdict = "CRITERION_CHANGED";
    g.gated = false;
    g.note = "the criterion changed (" + b->criterion_hash->substr(0, 12) + " -> " +
             c->criterion_hash->substr(0, 12) + "): " + b->verdict + " under the old one, " + c->verdict +
             " under the new one; not compared";
    return g;
  }
  const bool ignored = !g.gated;
  if (b->verdict == c->verdict) {
    g.verdict = "MATCH";
  } else if (b->verdict == "REPRODUCED") {
    g.verdict = "WORSE";
    g.regression = g.gated;
    g.note = (ignored ? g.note + "; " : "") + b->verdict + " -> " + c->verdict +
             (c->reason.empty() ? "" : ": " + c->reason);
  } else if (c->verdict == "REPRODUCED") {
    g.verdict = "IMPROVED";
  } else {
    g.verdict = "CHANGED";
    g.note = (ignored ? g.note + "; " : "") + b->verdict + " -> " + c->verdict;
  }
  return g;
}

}  // namespace

double GatePolicy::ThresholdFor(const std::string& suite) const {
  const auto it = suite_threshold.find(suite);
  return it == suite_threshold.end() ? threshold : it->second;
}

Tolerance GatePolicy::ToleranceFor(const std::string& metric) const {
  const auto it = metric_tolerance.find(metric);
  return it == metric_tolerance.end() ? tolerance : it->second;
}

const char* RowKindName(RowKind k) {
  switch (k) {
    case RowKind::kSpeed: return "speed";
    case RowKind::kDeterministic: return "deterministic";
    case RowKind::kValue: return "value";
    case RowKind::kClaim: return "claim";
  }
  return "?";
}

GatePolicy ParsePolicy(const nlohmann::json& j, const std::string& source) {
  if (!j.is_object()) throw std::runtime_error("policy '" + source + "': not a JSON object");
  GatePolicy p;
  auto fail = [&](const std::string& what) { throw std::runtime_error("policy '" + source + "': " + what); };
  for (const auto& [k, v] : j.items()) {
    if (k == "comment") {
      continue;  // free text: why the policy is what it is
    } else if (k == "version") {
      if (!v.is_string()) fail("'version' must be a string");
      p.version = v.get<std::string>();
    } else if (k == "threshold") {
      p.threshold = Number(v, "threshold", source);
    } else if (k == "fdr_q") {
      p.fdr_q = Number(v, "fdr_q", source);
    } else if (k == "min_samples") {
      if (!v.is_number_integer() || v.get<int>() < 2) fail("'min_samples' must be an integer >= 2");
      p.min_samples = v.get<int>();
    } else if (k == "resamples") {
      if (!v.is_number_integer() || v.get<int>() < 100) fail("'resamples' must be an integer >= 100");
      p.resamples = v.get<int>();
    } else if (k == "gate_speed") {
      if (!v.is_boolean()) fail("'gate_speed' must be true or false");
      p.gate_speed = v.get<bool>();
    } else if (k == "suites") {
      if (!v.is_object()) fail("'suites' must be an object");
      for (const auto& [suite, sv] : v.items()) {
        if (!sv.is_object()) fail("'suites." + suite + "' must be an object");
        for (const auto& [sk, svv] : sv.items()) {
          if (sk != "threshold") fail("unknown key 'suites." + suite + "." + sk + "'");
          p.suite_threshold[suite] = Number(svv, "threshold", source);
        }
      }
    } else if (k == "tolerance") {
      p.tolerance = ParseTolerance(v, "tolerance", source);
    } else if (k == "metrics") {
      if (!v.is_object()) fail("'metrics' must be an object");
      for (const auto& [metric, mv] : v.items()) {
        p.metric_tolerance[metric] = ParseTolerance(mv, "metrics." + metric, source);
      }
    } else if (k == "ignore_claims") {
      fail("'ignore_claims' is no longer a policy key: claims declare depends_on_clock now "
           "(harness/claim.h), and the gate reports those verdicts without gating them; remove "
           "the key");
    } else {
      fail("unknown key '" + k + "'");
    }
  }
  if (!(p.threshold > 0 && p.threshold < 10)) fail("'threshold' must be in (0, 10)");
  if (!(p.fdr_q > 0 && p.fdr_q < 1)) fail("'fdr_q' must be in (0, 1)");
  for (const auto& [suite, t] : p.suite_threshold) {
    if (!(t > 0 && t < 10)) fail("'suites." + suite + ".threshold' must be in (0, 10)");
  }
  p.policy_version = p.version + "+" + h::Xxh3_128(CanonicalJson(j)).Hex().substr(0, 12);
  return p;
}

GatePolicy LoadPolicy(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("policy '" + path + "': cannot read");
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) throw std::runtime_error("policy '" + path + "': not valid JSON");
  return ParsePolicy(j, path);
}

GateReport Gate(const RunData& baseline, const RunData& candidate, const GatePolicy& policy,
                bool cross_platform) {
  if (baseline.run.platform_hash != candidate.run.platform_hash && !cross_platform) {
    throw std::runtime_error("platform mismatch: baseline " + baseline.label + " ran on " +
                             baseline.run.platform_hash.substr(0, 12) + ", candidate " +
                             candidate.label + " on " + candidate.run.platform_hash.substr(0, 12) +
                             " (pass --cross-platform to compare anyway)");
  }
  GateReport rep;
  rep.baseline_label = baseline.label;
  rep.candidate_label = candidate.label;
  rep.candidate_run_id = candidate.run.id;
  rep.baseline_ref = baseline.run.run_hash;
  rep.cross_platform = cross_platform;
  rep.policy_version = policy.policy_version;

  // A key may occur more than once in a run (two claims recording the same
  // measurement, or different ones under one key by mistake): its i-th
  // occurrence in the candidate meets its i-th in the baseline, in recording
  // order, never every one the first.
  std::unordered_map<std::string, std::vector<size_t>> base_rows;  // key -> baseline rows, in order
  base_rows.reserve(baseline.results.size());
  for (size_t i = 0; i < baseline.results.size(); ++i) {
    base_rows[RowKey(baseline.results[i])].push_back(i);
  }
  std::unordered_map<std::string, size_t> matched;  // key -> baseline occurrences met so far
  matched.reserve(candidate.results.size());

  const size_t min_samples = static_cast<size_t>(policy.min_samples);
  std::vector<size_t> speed_rows;
  std::vector<std::pair<const Result*, const Result*>> speed_pairs;
  std::vector<std::string> speed_ungated;  // per speed row: why it is not gated, or ""
  rep.rows.reserve(candidate.results.size() + baseline.results.size() / 16 + candidate.claims.size());
  for (size_t ci = 0; ci < candidate.results.size(); ++ci) {
    const Result& c = candidate.results[ci];
    const OptKind kc = candidate.KindOf(ci);
    const std::string key = RowKey(c);
    const auto it = base_rows.find(key);
    if (it == base_rows.end() || matched[key] == it->second.size()) {
      GateRow g = Skeleton(c, kc);
      g.verdict = "NEW";
      g.candidate_value = c.value;
      g.n_candidate = c.n;
      g.note = "not in the baseline";
      rep.rows.push_back(std::move(g));
      continue;
    }
    const size_t bi = it->second[matched[key]++];
    const Result& b = baseline.results[bi];
    const OptKind kb = baseline.KindOf(bi);
    GateRow g = Skeleton(c, kc);
    // The kind both rows declare decides the comparison; the gate never
    // infers it from the metric's name, its unit or its samples.
    OptKind kind;
    std::string ungated;  // compared, but not gated, because of this
    if (kb && kc && *kb != *kc) {
      GateValue(b, c, &g);
      g.verdict = "KIND_CHANGED";
      g.note = std::string("recorded as ") + KindText(kb) + " in the baseline, " + KindText(kc) +
               " now: not comparable, reported";
      rep.rows.push_back(std::move(g));
      continue;
    }
    if (kb && kc) {
      kind = kc;
    } else if (kb || kc) {
      // One side comes from a ledger older than schema version 4. The other
      // side's declaration for the same row (same suite, case, backend,
      // params and metric) chooses the comparison, but a row that did not
      // declare its kind is never gated.
      kind = kc ? kc : kb;
      ungated = std::string(kc ? "the baseline" : "the candidate") +
                " row has no recorded kind (written before ledger schema 4): compared as " +
                KindText(kind) + ", reported, not gated";
      g.result_kind = KindText(kind);
    } else {
      GateValue(b, c, &g);
      g.note = "neither row has a recorded kind (both written before ledger schema 4): "
               "reported, not gated";
      rep.rows.push_back(std::move(g));
      continue;
    }
    if (*kind == h::ResultKind::kTiming) {
      if (b.samples.size() >= min_samples && c.samples.size() >= min_samples) {
        g.kind = RowKind::kSpeed;  // tested below, in parallel
        speed_rows.push_back(rep.rows.size());
        speed_pairs.emplace_back(&b, &c);
        speed_ungated.push_back(std::move(ungated));
      } else {
        GateValue(b, c, &g);
        g.note = (ungated.empty() ? "" : ungated + "; ") +
                 "a timing with fewer than min_samples (" + std::to_string(min_samples) +
                 ") raw samples on a side: no spread to test, reported, not gated";
      }
    } else {
      GateDeterministic(b, c, policy, cross_platform, &g);
      if (!ungated.empty()) {
        g.gated = false;
        g.regression = false;
        g.note = ungated + (g.note.empty() ? "" : "; " + g.note);
      }
    }
    rep.rows.push_back(std::move(g));
  }
  std::unordered_map<std::string, size_t> occurrence;  // key -> baseline occurrences passed
  for (size_t bi = 0; bi < baseline.results.size(); ++bi) {
    const Result& b = baseline.results[bi];
    const std::string key = RowKey(b);
    if (occurrence[key]++ < matched[key]) continue;
    GateRow g = Skeleton(b, baseline.KindOf(bi));
    g.verdict = "MISSING";
    g.baseline_value = b.value;
    g.n_baseline = b.n;
    g.note = "in the baseline, not in this run";
    rep.rows.push_back(std::move(g));
  }

  // The U tests and bootstraps are independent per row (each row's bootstrap
  // is seeded by its key), so they run on every core with identical results.
  {
    const size_t jobs = speed_rows.size();
    const size_t workers = std::min<size_t>(
        jobs / 256 + 1, std::max<unsigned>(1, std::min(8u, std::thread::hardware_concurrency())));
    std::atomic<size_t> next{0};
    std::exception_ptr error;
    std::mutex error_mu;
    auto work = [&] {
      try {
        for (size_t k; (k = next.fetch_add(64)) < jobs;) {
          for (size_t i = k; i < std::min(jobs, k + 64); ++i) {
            GateSpeed(*speed_pairs[i].first, *speed_pairs[i].second, policy, &rep.rows[speed_rows[i]]);
          }
        }
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mu);
        if (!error) error = std::current_exception();
      }
    };
    std::vector<std::thread> threads;
    for (size_t t = 1; t < workers; ++t) threads.emplace_back(work);
    work();
    for (auto& t : threads) t.join();
    if (error) std::rethrow_exception(error);
  }

  // Benjamini-Hochberg over the run's speed rows.
  std::vector<double> p;
  p.reserve(speed_rows.size());
  for (size_t i : speed_rows) p.push_back(*rep.rows[i].p);
  const std::vector<double> q = h::BenjaminiHochberg(p);
  for (size_t k = 0; k < speed_rows.size(); ++k) {
    GateRow& g = rep.rows[speed_rows[k]];
    g.q = q[k];
    if (!speed_ungated[k].empty()) {
      g.gated = false;
      g.note = speed_ungated[k] + (g.note.empty() ? "" : "; " + g.note);
    }
    ClassifySpeed(policy, &g);
  }

  // Claims by id.
  std::unordered_map<std::string, const ClaimRow*> base_claims;
  for (const auto& c : baseline.claims) base_claims.emplace(c.claim_id, &c);
  std::unordered_map<std::string, bool> seen_claims;
  for (const auto& c : candidate.claims) {
    const auto it = base_claims.find(c.claim_id);
    rep.rows.push_back(GateClaim(it == base_claims.end() ? nullptr : it->second, &c));
    seen_claims.emplace(c.claim_id, true);
  }
  for (const auto& b : baseline.claims) {
    if (!seen_claims.count(b.claim_id)) rep.rows.push_back(GateClaim(&b, nullptr));
  }

  std::stable_sort(rep.rows.begin(), rep.rows.end(),
                   [](const GateRow& a, const GateRow& b) { return Rank(a) < Rank(b); });
  bool regression = false, ambiguous = false;
  for (const auto& g : rep.rows) {
    ++rep.counts[g.verdict];
    regression |= g.regression;
    ambiguous |= g.gated && g.verdict == "AMBIGUOUS";
  }
  rep.exit_code = regression ? 1 : ambiguous ? 2 : 0;
  return rep;
}

void StoreDecisions(Ledger& ledger, const GateReport& report) {
  auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
  ledger.BeginTransaction();
  try {
    for (const auto& g : report.rows) {
      Decision d;
      d.run_id = report.candidate_run_id;
      d.baseline = report.baseline_ref.empty() ? report.baseline_label : report.baseline_ref;
      d.suite = g.suite;
      d.case_name = g.case_name;
      d.metric = g.metric;
      d.verdict = g.verdict;
      d.test = g.test;
      d.n = g.n_candidate;
      d.p = g.p;
      d.effect = g.effect;
      d.ci_low = g.ci_low;
      d.ci_high = g.ci_high;
      d.threshold = g.threshold;
      d.policy_version = report.policy_version;
      d.detail = {{"kind", RowKindName(g.kind)},
                  {"result_kind", g.result_kind},
                  {"backend", g.backend},
                  {"params", g.params},
                  {"gated", g.gated},
                  {"regression", g.regression},
                  {"q", opt(g.q)},
                  {"n_baseline", g.n_baseline},
                  {"baseline_value", opt(g.baseline_value)},
                  {"candidate_value", opt(g.candidate_value)},
                  {"cross_platform", report.cross_platform},
                  {"baseline_label", report.baseline_label}};
      if (g.kind == RowKind::kClaim) {
        d.detail["baseline_verdict"] = g.baseline_verdict;
        d.detail["candidate_verdict"] = g.candidate_verdict;
      }
      if (!g.baseline_input_hash.empty() || !g.candidate_input_hash.empty()) {
        d.detail["input_hash"] = {g.baseline_input_hash, g.candidate_input_hash};
        d.detail["output_hash"] = {g.baseline_output_hash, g.candidate_output_hash};
      }
      if (!g.note.empty()) d.detail["note"] = g.note;
      ledger.AddDecision(d);
    }
    ledger.Commit();
  } catch (...) {
    ledger.Rollback();
    throw;
  }
}

}  // namespace cb::ledger
