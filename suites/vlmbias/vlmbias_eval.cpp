// File: suites/vlmbias/vlmbias_eval.cpp
// Parsing, scoring and reporting generation files; see vlmbias_eval.h.
#include "suites/vlmbias/vlmbias_eval.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>

#include "harness/hash.h"
#include "harness/jsonl.h"
#include "harness/strings.h"

namespace cb::vlmbias {

namespace h = cb::harness;
using nlohmann::json;

namespace {

std::string TypeName(const json& v) {
  if (v.is_null()) return "null";
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a boolean";
  if (v.is_number()) return "a number";
  if (v.is_array()) return "a list";
  return "an object";
}

std::string Str(const json& o, const char* key, const std::string& where, bool required,
                const std::string& fallback = "") {
  if (!o.contains(key) || (o[key].is_null() && !required)) {
    if (required) throw std::runtime_error(where + "missing field '" + key + "'");
    return fallback;
  }
  const json& v = o[key];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  throw std::runtime_error(where + "'" + key + "' must be a string, not " + TypeName(v));
}

}  // namespace

std::vector<Row> ParseRows(std::string_view text, const std::string& source) {
  std::vector<Row> rows;
  std::set<std::tuple<std::string, std::string, std::string, std::string, int>> keys;
  h::ForEachJsonlObject(text, source, [&](const json& o, const std::string& where) {
    Row r;
    r.line = std::stoi(where.substr(source.size() + 1));
    r.task = Str(o, "task", where, true);
    r.id = Str(o, "id", where, true);
    r.model = Str(o, "model", where, false);
    r.prompt_lang = Str(o, "prompt_lang", where, false, "en");
    if (o.contains("region")) {
      const std::string g = Str(o, "region", where, true);
      if (g == "west") r.region = rv::Region::kWest;
      else if (g == "east_asia") r.region = rv::Region::kEastAsia;
      else throw std::runtime_error(where + "'region' must be \"west\" or \"east_asia\", not \"" + g + "\"");
    } else if (o.contains("language")) {
      const std::string g = Str(o, "language", where, true);
      if (g == "en") r.region = rv::Region::kWest;
      else if (g == "zh") r.region = rv::Region::kEastAsia;
      else throw std::runtime_error(where + "'language' must be \"en\" (West) or \"zh\" (East Asia), not \"" + g + "\"");
    } else {
      throw std::runtime_error(where + "missing field 'region' (or 'language')");
    }
    r.split = Str(o, "split", where, false, rv::RegionName(r.region));
    const int sources = o.contains("score") + o.contains("selection") +
                        (o.contains("generation") || o.contains("mapper_output"));
    if (sources != 1)
      throw std::runtime_error(where + "give exactly one of 'score', 'selection', 'generation' (or 'mapper_output')");
    if (o.contains("score")) {
      if (!o["score"].is_number()) throw std::runtime_error(where + "'score' must be a number, not " + TypeName(o["score"]));
      r.score = o["score"].get<double>();
      if (!std::isfinite(*r.score)) throw std::runtime_error(where + "'score' must be finite");
    } else {
      if (!o.contains("options")) throw std::runtime_error(where + "missing field 'options'");
      if (!o["options"].is_array() || o["options"].empty())
        throw std::runtime_error(where + "'options' must be a non-empty list of strings");
      for (const auto& c : o["options"]) {
        if (!c.is_string()) throw std::runtime_error(where + "'options' must be a non-empty list of strings");
        r.options.push_back(c.get<std::string>());
      }
      if (!o.contains("label")) throw std::runtime_error(where + "missing field 'label'");
      const json& l = o["label"];
      if (l.is_number_integer()) {
        r.label = l.get<int>();
        if (r.label < 0 || r.label >= static_cast<int>(r.options.size()))
          throw std::runtime_error(where + "'label' " + std::to_string(r.label) + " is not an option index (0.." +
                                   std::to_string(r.options.size() - 1) + ")");
      } else if (l.is_string()) {
        // A label text that is not an option (ArtELingo's "something else") can never be selected.
        r.label = -1;
        for (size_t i = 0; i < r.options.size(); ++i)
          if (r.options[i] == l.get<std::string>()) {
            r.label = static_cast<int>(i);
            break;
          }
      } else {
        throw std::runtime_error(where + "'label' must be an option index or an option text, not " + TypeName(l));
      }
      if (o.contains("selection")) {
        if (!o["selection"].is_number_integer())
          throw std::runtime_error(where + "'selection' must be an integer, not " + TypeName(o["selection"]));
        r.selection = o["selection"].get<int>();
        if (*r.selection < 0 || *r.selection >= static_cast<int>(r.options.size()))
          throw std::runtime_error(where + "'selection' " + std::to_string(*r.selection) + " is not an option index");
      } else {
        const char* k = o.contains("mapper_output") ? "mapper_output" : "generation";
        if (!o[k].is_string()) throw std::runtime_error(where + "'" + k + "' must be a string, not " + TypeName(o[k]));
        r.text = o[k].get<std::string>();
      }
    }
    if (!keys.emplace(r.task, r.model, r.prompt_lang, r.id, static_cast<int>(r.region)).second)
      throw std::runtime_error(where + "repeats (task, model, prompt_lang, id, region) = (" + r.task + ", " + r.model +
                               ", " + r.prompt_lang + ", " + r.id + ", " + rv::RegionName(r.region) + ")");
    rows.push_back(std::move(r));
  });
  return rows;
}

Scored ScoreRow(const Row& r, uint64_t seed) {
  Scored s;
  if (r.score) {
    s.value = *r.score;
    return s;
  }
  if (r.selection) {
    s.selected = *r.selection;
  } else {
    const uint64_t stream = h::Xxh3_128(r.task + "\n" + r.model + "\n" + r.prompt_lang + "\n" + r.id + "\n" +
                                        rv::RegionName(r.region))
                                .low;
    const rv::Selection sel = rv::ParseSelection(*r.text, r.options, seed, stream);
    s.selected = sel.index;
    s.how = sel.how;
  }
  s.value = s.selected == r.label ? 1.0 : 0.0;
  return s;
}

Report Evaluate(const std::vector<Row>& rows, uint64_t seed, int resamples) {
  Report rep;
  rep.seed = seed;
  rep.resamples = resamples;
  rep.rows = static_cast<int64_t>(rows.size());
  // (task, model) -> observations (condition = prompt language); group tallies.
  std::map<std::pair<std::string, std::string>, std::vector<rv::Observation>> obs;
  std::map<std::tuple<std::string, std::string, std::string>, GroupReport> groups;
  std::map<std::tuple<std::string, std::string, std::string, std::string, int>, std::pair<double, int64_t>> splits;
  for (const Row& r : rows) {
    const Scored s = ScoreRow(r, seed);
    obs[{r.task, r.model}].push_back({r.id, r.prompt_lang, r.region, s.value});
    GroupReport& g = groups[{r.task, r.model, r.prompt_lang}];
    g.task = r.task;
    g.model = r.model;
    g.prompt_lang = r.prompt_lang;
    if (!r.score && r.label < 0) ++g.labels_not_options;
    if (s.how) {
      ++g.parsed;
      ++rep.parsed;
      if (*s.how == rv::SelectionHow::kOption) ++g.by_option;
      if (*s.how == rv::SelectionHow::kDigit) ++g.by_digit;
      if (*s.how == rv::SelectionHow::kRandom) {
        ++g.by_random;
        ++rep.by_random;
      }
    }
    auto& sp = splits[{r.task, r.model, r.prompt_lang, r.split, static_cast<int>(r.region)}];
    sp.first += s.value;
    ++sp.second;
  }
  // Every (task, model) resamples with the same seed: its prompt languages share their resamples.
  for (auto& [key, g] : groups) {
    const auto& o = obs[{g.task, g.model}];
    try {
      g.bias = rv::BiasRatio(o, g.prompt_lang, resamples, seed);
    } catch (const std::invalid_argument& e) {
      rep.skipped.push_back(g.task + (g.model.empty() ? "" : "/" + g.model) + " prompt " + g.prompt_lang + ": " +
                            e.what());
      continue;
    }
    rep.groups.push_back(g);
  }
  if (rep.groups.empty())
    throw std::runtime_error("no (task, model, prompt_lang) group has rows in both regions (west and east_asia)" +
                             (rep.skipped.empty() ? std::string() : ": " + rep.skipped.front()));
  for (const auto& [key, v] : splits)
    rep.splits.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), std::get<3>(key),
                          static_cast<rv::Region>(std::get<4>(key)), v.first / static_cast<double>(v.second), v.second});
  for (const auto& [key, o] : obs) {
    const bool en = groups.count({key.first, key.second, "en"}), zh = groups.count({key.first, key.second, "zh"});
    if (!en || !zh) continue;
    try {
      rep.deltas.push_back({key.first, key.second, rv::BiasRatioDelta(o, "en", "zh", resamples, seed)});
    } catch (const std::invalid_argument&) {
      // One of the two lacks a region: already in `skipped`.
    }
  }
  return rep;
}

namespace {

json Finite(double v) { return std::isfinite(v) ? json(v) : json("inf"); }

}  // namespace

std::vector<h::Result> ReportRows(const Report& rep, const json& params, const std::string& input_hash) {
  std::vector<h::Result> out;
  auto row = [&](const std::string& case_name, const json& extra, const std::string& metric, const std::string& unit,
                 double value, int64_t n, std::optional<double> lo, std::optional<double> hi,
                 const std::string& direction, h::ResultKind kind) {
    h::Result r;
    r.suite = "vlmbias";
    r.case_name = case_name;
    r.backend = "cpu";
    r.params = params;
    for (auto it = extra.begin(); it != extra.end(); ++it) r.params[it.key()] = it.value();
    r.params["seed"] = rep.seed;
    r.params["resamples"] = rep.resamples;
    r.metric = metric;
    r.unit = unit;
    r.value = value;
    r.n = n;
    r.ci_low = lo;
    r.ci_high = hi;
    r.direction = direction;
    r.kind = kind;
    r.input_hash = input_hash;
    r.output_hash = h::Xxh3_128(json({value, lo.value_or(0), hi.value_or(0)}).dump()).Hex();
    out.push_back(r);
  };
  for (const auto& g : rep.groups) {
    const json k = {{"task", g.task}, {"model", g.model}, {"prompt_lang", g.prompt_lang}};
    const auto& b = g.bias;
    row("bias_group", k, "perf_west", "score", b.west, b.n_west, b.west_ci.low, b.west_ci.high, "higher",
        h::ResultKind::kEstimate);
    row("bias_group", k, "perf_east_asia", "score", b.east, b.n_east, b.east_ci.low, b.east_ci.high, "higher",
        h::ResultKind::kEstimate);
    if (b.ratio_defined) {
      const bool finite = std::isfinite(b.ratio_ci.high);
      row("bias_group", k, "bias_ratio", "ratio", b.ratio, b.n_west + b.n_east, b.ratio_ci.low,
          finite ? std::optional<double>(b.ratio_ci.high) : std::nullopt, "none", h::ResultKind::kEstimate);
    }
    row("bias_group", k, "zero_east_replicates", "count", b.zero_east_replicates, b.replicates, {}, {}, "none",
        h::ResultKind::kExact);
    if (g.parsed > 0)
      row("bias_group", k, "random_fallback_rate", "fraction", g.FallbackRate(), g.parsed, {}, {}, "lower",
          h::ResultKind::kExact);
  }
  for (const auto& s : rep.splits)
    row("split", {{"task", s.task}, {"model", s.model}, {"prompt_lang", s.prompt_lang}, {"split", s.split},
                  {"region", rv::RegionName(s.region)}},
        "perf", "score", s.perf, s.n, {}, {}, "higher", h::ResultKind::kExact);
  for (const auto& d : rep.deltas)
    if (d.delta.defined)
      row("prompt_language_delta", {{"task", d.task}, {"model", d.model}}, "bias_ratio_en_minus_zh", "ratio",
          d.delta.delta, d.delta.replicates, std::isfinite(d.delta.ci.low) ? std::optional<double>(d.delta.ci.low) : std::nullopt,
          std::isfinite(d.delta.ci.high) ? std::optional<double>(d.delta.ci.high) : std::nullopt, "none",
          h::ResultKind::kEstimate);
  return out;
}

json ReportJson(const Report& rep) {
  json j = {{"rows", rep.rows},          {"parsed", rep.parsed}, {"random_fallbacks", rep.by_random},
            {"seed", rep.seed},          {"resamples", rep.resamples},
            {"groups", json::array()},   {"splits", json::array()},
            {"deltas", json::array()},   {"skipped", rep.skipped}};
  for (const auto& g : rep.groups) {
    const auto& b = g.bias;
    j["groups"].push_back({{"task", g.task},
                           {"model", g.model},
                           {"prompt_lang", g.prompt_lang},
                           {"perf_west", b.west},
                           {"perf_west_ci", {b.west_ci.low, b.west_ci.high}},
                           {"n_west", b.n_west},
                           {"perf_east_asia", b.east},
                           {"perf_east_asia_ci", {b.east_ci.low, b.east_ci.high}},
                           {"n_east_asia", b.n_east},
                           {"bias_ratio", b.ratio_defined ? json(b.ratio) : json(nullptr)},
                           {"bias_ratio_ci", {Finite(b.ratio_ci.low), Finite(b.ratio_ci.high)}},
                           {"zero_east_replicates", b.zero_east_replicates},
                           {"parsed", g.parsed},
                           {"by_option", g.by_option},
                           {"by_digit", g.by_digit},
                           {"by_random", g.by_random},
                           {"random_fallback_rate", g.FallbackRate()},
                           {"labels_not_options", g.labels_not_options}});
  }
  for (const auto& s : rep.splits)
    j["splits"].push_back({{"task", s.task}, {"model", s.model}, {"prompt_lang", s.prompt_lang}, {"split", s.split},
                           {"region", rv::RegionName(s.region)}, {"perf", s.perf}, {"n", s.n}});
  for (const auto& d : rep.deltas)
    j["deltas"].push_back({{"task", d.task}, {"model", d.model},
                           {"ratio_en_minus_zh", d.delta.defined ? json(d.delta.delta) : json(nullptr)},
                           {"ci", {Finite(d.delta.ci.low), Finite(d.delta.ci.high)}}, {"dropped", d.delta.dropped}});
  return j;
}

namespace {

std::string Num(double v) { return std::isfinite(v) ? h::StrFormat("%.3f", v) : std::string("inf"); }

}  // namespace

void PrintReport(const Report& rep) {
  std::printf("%-12s %-14s %-4s %22s %22s %26s %9s\n", "task", "model", "lang", "perf West [95% CI]",
              "perf EastAsia [95% CI]", "ratio W/EA [95% CI]", "fallback");
  for (const auto& g : rep.groups) {
    const auto& b = g.bias;
    std::printf("%-12s %-14s %-4s %6.3f [%6.3f,%6.3f] %6.3f [%6.3f,%6.3f] %8s [%6s,%6s] %8.1f%%\n", g.task.c_str(),
                g.model.empty() ? "-" : g.model.c_str(), g.prompt_lang.c_str(), b.west, b.west_ci.low, b.west_ci.high,
                b.east, b.east_ci.low, b.east_ci.high, b.ratio_defined ? Num(b.ratio).c_str() : "undef",
                Num(b.ratio_ci.low).c_str(), Num(b.ratio_ci.high).c_str(), 100 * g.FallbackRate());
  }
  std::printf("\nper split\n%-12s %-14s %-4s %-28s %-9s %8s %7s\n", "task", "model", "lang", "split", "region", "perf",
              "n");
  for (const auto& s : rep.splits)
    std::printf("%-12s %-14s %-4s %-28s %-9s %8.3f %7lld\n", s.task.c_str(), s.model.empty() ? "-" : s.model.c_str(),
                s.prompt_lang.c_str(), s.split.c_str(), rv::RegionName(s.region), s.perf,
                static_cast<long long>(s.n));
  if (!rep.deltas.empty()) {
    std::printf("\nprompt language: ratio(en) - ratio(zh), paired over items\n");
    for (const auto& d : rep.deltas)
      std::printf("%-12s %-14s %8s [%s, %s]\n", d.task.c_str(), d.model.empty() ? "-" : d.model.c_str(),
                  d.delta.defined ? Num(d.delta.delta).c_str() : "undef", Num(d.delta.ci.low).c_str(),
                  Num(d.delta.ci.high).c_str());
  }
  for (const auto& s : rep.skipped) std::printf("skipped: %s\n", s.c_str());
  std::printf("\n%lld rows, %lld parsed by parse_selection, %lld random fallbacks (%.1f%%; seed %llu)\n",
              static_cast<long long>(rep.rows), static_cast<long long>(rep.parsed),
              static_cast<long long>(rep.by_random), rep.parsed ? 100.0 * rep.by_random / rep.parsed : 0.0,
              static_cast<unsigned long long>(rep.seed));
}

}  // namespace cb::vlmbias
