// File: ledger/analysis/report.cpp
// -----------------------------------------------------------------------------
// The HTML and Markdown reports (see report.h). The HTML is built from one
// JSON object (CB) embedded in the page and rendered by a small script; every
// string that reaches the page goes through JSON (script) or HtmlEscape() (markup).
#include "ledger/analysis/report.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "ledger/analysis/compare.h"
#include "ledger/analysis/heatmap.h"
#include "ledger/analysis/report_text.h"
#include "ledger/analysis/history.h"
#include "ledger/analysis/report_complexity.h"
#include "ledger/analysis/report_forest.h"
#include "ledger/analysis/report_fractions.h"
#include "ledger/analysis/report_runs.h"
#include "ledger/analysis/report_speedup.h"
#include "ledger/analysis/run_data.h"
#include "ledger/claim_table.h"

namespace cb::ledger {
namespace {

// JSON that is safe inside <script>: "</" cannot close the element.
std::string ScriptJson(const nlohmann::json& j) {
  std::string s = j.dump(-1, ' ', /*ensure_ascii=*/true);
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<' && i + 1 < s.size() && s[i + 1] == '/') {
      out += "<\\/";
      ++i;
    } else {
      out += s[i];
    }
  }
  return out;
}

struct Model {
  RunData run;        // the logical run (every shard held)
  LogicalRun logical;
  std::vector<HistorySeries> history;
  std::optional<CompareReport> backends, platforms;
  std::string backends_note, platforms_note;
  std::map<std::string, SuiteFractions> fractions;  // suite -> its newest bench run's ceiling fractions
  nlohmann::json provenance = nlohmann::json::array();
};

std::string Lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

// "paper-" + the name's letters and digits, lower case, other runs as '-'.
std::string PaperAnchor(const std::string& paper) {
  std::string out = "paper-";
  for (char ch : Lower(paper)) {
    if (std::isalnum(static_cast<unsigned char>(ch))) {
      out += ch;
    } else if (out.back() != '-') {
      out += '-';
    }
  }
  while (out.size() > 6 && out.back() == '-') out.pop_back();
  return out;
}

// Claims grouped by a key, groups in first-seen order.
template <class Key>
std::vector<std::pair<std::string, std::vector<ClaimRow>>> GroupBy(const std::vector<ClaimRow>& claims, Key key) {
  std::vector<std::pair<std::string, std::vector<ClaimRow>>> groups;
  for (const auto& c : claims) {
    const std::string k = key(c);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == k; });
    if (it == groups.end()) {
      groups.emplace_back(k, std::vector<ClaimRow>{});
      it = groups.end() - 1;
    }
    it->second.push_back(c);
  }
  return groups;
}

// Keeps the claims (and result rows) of the paper `name` names; throws
// std::invalid_argument listing the papers when none matches.
void KeepPaper(RunData* run, const std::string& name) {
  const std::string want = Lower(name);
  std::set<std::string> suites, papers;
  for (const auto& c : run->claims) {
    papers.insert(c.paper);
    if (Lower(c.paper) == want || Lower(c.suite) == want) suites.insert(c.suite);
  }
  if (suites.empty()) {
    std::string list;
    for (const auto& p : papers) list += (list.empty() ? "" : ", ") + p;
    throw std::invalid_argument("--paper '" + name + "': no claim of this run is from that paper or suite (papers: " +
                                list + ")");
  }
  std::erase_if(run->claims, [&](const ClaimRow& c) { return !suites.count(c.suite); });
  std::vector<Result> results;
  std::vector<std::optional<cb::harness::ResultKind>> kinds;
  for (size_t i = 0; i < run->results.size(); ++i) {
    if (!suites.count(run->results[i].suite)) continue;
    results.push_back(run->results[i]);
    if (!run->kinds.empty()) kinds.push_back(run->kinds[i]);
  }
  run->results = std::move(results);
  run->kinds = std::move(kinds);
}

Model Build(Ledger& ledger, const ReportOptions& o) {
  Model m;
  m.logical = LoadLogicalRun(ledger, o.run_id);
  m.run = m.logical.data;
  if (!o.paper.empty()) KeepPaper(&m.run, o.paper);
  std::set<std::string> suites;
  for (const auto& c : m.run.claims) suites.insert(c.suite);
  m.fractions = FindCeilingFractions(ledger, m.run.run.platform_hash, suites);
  if (!o.paper.empty()) return m;  // a paper's page alone: no history, comparisons or provenance
  // History: one series per distinct (suite, case, metric) among timed rows.
  std::set<std::tuple<std::string, std::string, std::string>> keys;
  for (const auto& r : m.run.results) {
    if (r.samples.size() >= 2) keys.emplace(r.suite, r.case_name, r.metric);
  }
  std::vector<HistorySeries> all;
  for (const auto& [suite, case_name, metric] : keys) {
    for (auto& s : History(ledger, suite, case_name, metric)) {
      if (s.points.size() >= 2) all.push_back(std::move(s));
    }
  }
  std::stable_sort(all.begin(), all.end(), [](const HistorySeries& a, const HistorySeries& b) {
    return a.steps.size() > b.steps.size();
  });
  if (static_cast<int>(all.size()) > o.max_history_charts) all.resize(o.max_history_charts);
  m.history = std::move(all);

  bool has_cpu = false, has_cuda = false;
  for (const auto& r : m.run.results) {
    has_cpu |= r.backend == "cpu";
    has_cuda |= r.backend == "cuda";
  }
  if (has_cpu && has_cuda) {
    m.backends = Compare({"cpu", "cpu", &m.run}, {"cuda", "cuda", &m.run});
    if (m.backends->rows.empty()) m.backends_note = "no timed case ran on both backends in this run";
  } else {
    m.backends_note = has_cuda ? "this run has no cpu rows"
                               : "this run has no cuda rows (no GPU, or --backend cpu)";
  }

  // Provenance, newest first; and the run of another platform to compare
  // with: the newest sealed one of the reported run's profile (a bench run
  // shares no case with a claims run), else the newest sealed one.
  const auto runs = ledger.Log(1 << 30);
  std::optional<int64_t> other_platform, other_platform_any;
  int listed = 0;
  for (const auto& r : runs) {
    if (!r.run_hash.empty() && r.platform_hash != m.run.run.platform_hash) {
      if (!other_platform_any) other_platform_any = r.id;
      if (!other_platform && r.profile == m.run.run.profile) other_platform = r.id;
    }
    if (listed++ >= o.max_provenance_runs) continue;
    const RunMeta meta = ledger.GetRunMeta(r.id);
    nlohmann::json cpu = meta.platform.is_object() ? meta.platform.value("cpu", nlohmann::json::object())
                                                   : nlohmann::json::object();
    m.provenance.push_back({{"id", r.id}, {"status", r.status}, {"started", r.started_at},
                            {"profile", r.profile}, {"git", meta.git_commit.substr(0, 12)},
                            {"dirty", meta.git_dirty}, {"platform", r.platform_hash.substr(0, 12)},
                            {"cpu", cpu.is_object() ? cpu.value("model", "") : ""},
                            {"build", meta.build.is_object() ? meta.build.dump() : ""},
                            {"run_hash", r.run_hash.substr(0, 12)}});
  }
  if (!other_platform) other_platform = other_platform_any;
  if (other_platform) {
    const RunData a = LoadRun(ledger, *other_platform);
    m.platforms = Compare({"platform " + a.run.platform_hash.substr(0, 12) + " (run " + std::to_string(a.run.id) + ")",
                           "", &a},
                          {"platform " + m.run.run.platform_hash.substr(0, 12) + " (this run)", "", &m.run});
    if (m.platforms->rows.empty()) {
      m.platforms_note = "this run and run " + std::to_string(a.run.id) + " of platform " +
                         a.run.platform_hash.substr(0, 12) + " share no timed case";
    }
  } else {
    m.platforms_note = "the ledger holds runs of one platform only (merge another machine's ledger)";
  }
  return m;
}

constexpr char kStyle[] = R"css(
body{font-family:sans-serif;margin:2em;color:#222}table{border-collapse:collapse;font-size:13px}
td,th{border:1px solid #ccc;padding:3px 6px;text-align:left}th{background:#eee}
.REPRODUCED{color:#070}.NOT_REPRODUCED{color:#a00}.INCONCLUSIVE{color:#a60}.UNMEASURABLE{color:#666}
.chart{width:900px;height:300px;margin-bottom:1.5em}.note{color:#666;font-style:italic}
.heatmap td{text-align:right;min-width:3em}
.warn{background:#fee;border:1px solid #c00;padding:4px 8px}.forest{display:block;margin-bottom:.5em}
)css";

// Installed before Chart.js, so errors while it loads are counted too.
constexpr char kErrorCapture[] = R"js(
window.cbErrors=[];window.addEventListener('error',function(e){window.cbErrors.push(String(e.message));});
(function(){var ce=console.error;console.error=function(){window.cbErrors.push(Array.prototype.join.call(arguments,' '));ce.apply(console,arguments);};})();
)js";

constexpr char kRender[] = R"js(
(function(){
var rendered=0;
function line(id,s){
  var pts=s.points.map(function(p){return p.value;});
  var steps=s.points.map(function(p,i){return s.steps.some(function(st){return st.index===i;})?p.value:null;});
  new Chart(document.getElementById(id),{type:'line',data:{labels:s.points.map(function(p){return 'run '+p.run_id;}),
    datasets:[{label:s.metric+' per run (median)',data:pts,borderColor:'#36c',pointRadius:2,tension:0},
              {label:'first run after a change point',data:steps,borderColor:'#c00',backgroundColor:'#c00',
               pointRadius:6,showLine:false}]},
    options:{animation:false,responsive:false,scales:{y:{title:{display:true,text:s.metric}}}}});
  rendered++;
}
try{
  CB.history.forEach(function(s,i){line('history-'+i,s);});
}catch(e){window.cbErrors.push(String(e));}
var st=document.getElementById('cb-status');
st.setAttribute('data-charts',String(rendered));
st.setAttribute('data-errors',String(window.cbErrors.length));
st.textContent=rendered+' charts rendered, '+window.cbErrors.length+' script errors'+(window.cbErrors.length?': '+window.cbErrors.join('; '):'');
})();
)js";

}  // namespace

// The papers' own claims: what the Papers sections and the claims table
// list; prerequisites follow as one line per suite (ledger/claim_table.h).
static std::vector<ClaimRow> PaperClaims(const std::vector<ClaimRow>& claims) {
  std::vector<ClaimRow> out;
  for (const ClaimRow& c : claims) {
    if (!IsPrerequisite(c)) out.push_back(c);
  }
  return out;
}

std::string HtmlReport(Ledger& ledger, const ReportOptions& o, ReportStats* stats) {
  std::ifstream js_in(o.chartjs_path, std::ios::binary);
  if (!js_in) {
    throw std::runtime_error("Chart.js '" + o.chartjs_path +
                             "': cannot read (install Debian's libjs-chart.js, or pass --chartjs FILE)");
  }
  std::stringstream js;
  js << js_in.rdbuf();
  std::string chartjs = js.str();
  for (size_t at = 0; (at = chartjs.find("</script", at)) != std::string::npos; at += 2) {
    chartjs.replace(at, 2, "<\\/");
  }
  const Model m = Build(ledger, o);

  const nlohmann::json cb = {{"history", HistoryJson(m.history)}};

  std::ostringstream out;
  int charts = 0;
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
      << "<title>claimbench report: run " << m.run.run.id << "</title>\n<style>" << kStyle << "</style>\n"
      << "<script>" << kErrorCapture << "</script>\n<script>\n" << chartjs << "\n</script>\n</head><body>\n"
      << "<h1>claimbench report" << (o.paper.empty() ? "" : ": " + HtmlEscape(o.paper)) << "</h1>\n<p>Ledger <code>"
      << HtmlEscape(ledger.path()) << "</code>, run "
      << m.run.run.id << " (" << HtmlEscape(m.run.run.status) << ", profile " << HtmlEscape(m.run.run.profile)
      << ", started " << HtmlEscape(m.run.run.started_at) << ", run_hash <code>" << HtmlEscape(m.run.run.run_hash)
      << "</code>)";
  if (m.logical.shard_count > 0) {
    out << "; one logical run of <span id=\"cb-shards\" data-shards=\"" << m.logical.shards.size()
        << "\" data-shard-count=\"" << m.logical.shard_count << "\">" << HtmlEscape(DescribeShards(m.logical))
        << "</span>";
  }
  out << ".</p>\n";
  if (const std::string warn = MissingShardsWarning(m.logical); !warn.empty()) {
    out << "<p class=\"warn\" id=\"cb-missing-shards\">Warning: " << HtmlEscape(warn) << ".</p>\n";
  }

  int forest_bars = 0, speedup_bars = 0;
  out << "<h2>Claims at a glance</h2>\n";
  for (const auto& [suite, claims] : GroupBy(m.run.claims, [](const ClaimRow& c) { return c.suite; })) {
    int bars = 0;
    out << "<h3 id=\"forest-" << HtmlEscape(suite) << "\">" << HtmlEscape(suite) << "</h3>\n" << ForestSvg(claims, &bars);
    forest_bars += bars;
  }

  const ClaimTable table = SplitClaims(m.run.claims);
  out << "<h2>Papers</h2>\n";
  for (const auto& [paper, claims] : GroupBy(PaperClaims(m.run.claims), [](const ClaimRow& c) { return c.paper; })) {
    std::set<std::string> suites;
    for (const auto& c : claims) suites.insert(c.suite);
    out << "<h3 id=\"" << HtmlEscape(PaperAnchor(paper)) << "\">" << HtmlEscape(paper) << "</h3>\n<p>Suite";
    for (const auto& suite : suites) {
      out << " <code>" << HtmlEscape(suite) << "</code> (README: <a href=\"suites/" << HtmlEscape(suite)
          << "/README.md\">suites/" << HtmlEscape(suite) << "/README.md</a> in the repository)";
    }
    out << "; forest plot: <a href=\"#forest-" << HtmlEscape(*suites.begin()) << "\">above</a>.</p>\n"
        << "<table><tr><th>claim</th><th>statement</th><th>paper value</th><th>paper setting</th>"
        << "<th>ours [CI]</th><th>our setting</th><th>criterion</th><th>scale</th><th>verdict</th></tr>\n";
    for (const auto& c : claims) {
      out << "<tr><td>" << HtmlEscape(c.claim_id) << "</td><td>" << HtmlEscape(c.statement) << "</td><td>" << HtmlEscape(c.paper_value)
          << "</td><td>" << HtmlEscape(c.paper_setting) << "</td><td>" << HtmlEscape(FormatMeasured(c)) << "</td><td>"
          << HtmlEscape(c.our_setting) << "</td><td>" << HtmlEscape(c.criterion) << "</td><td>" << HtmlEscape(c.scale)
          << "</td><td class=\"" << HtmlEscape(c.verdict) << "\">" << HtmlEscape(c.verdict) << "</td></tr>\n";
    }
    out << "</table>\n";
    for (const auto& suite : suites) {
      if (const auto f = m.fractions.find(suite); f != m.fractions.end()) {
        out << FractionsHtml(f->second);
      } else {
        out << "<p class=\"note\">No benchmark run of this platform has recorded <code>" << HtmlEscape(suite)
            << "</code> rows as fractions of a ceiling (<code>claimbench bench --filter '" << HtmlEscape(suite)
            << "/'</code> records them).</p>\n";
      }
    }
  }

  out << "<h2>Claims</h2>\n<table><tr><th>paper</th><th>claim</th><th>paper value</th>"
      << "<th>measured [CI]</th><th>setting</th><th>scale</th><th>verdict</th></tr>\n";
  for (const ClaimRow* p : table.paper) {
    const ClaimRow& c = *p;
    out << "<tr><td>" << HtmlEscape(c.paper) << "</td><td title=\"" << HtmlEscape(c.statement) << "\">"
        << HtmlEscape(c.claim_id) << "</td><td>" << HtmlEscape(c.paper_value) << "</td><td>" << HtmlEscape(FormatMeasured(c))
        << "</td><td>" << HtmlEscape(c.our_setting) << "</td><td>" << HtmlEscape(c.scale) << "</td><td class=\""
        << HtmlEscape(c.verdict) << "\">" << HtmlEscape(c.verdict)
        << (c.reason.empty() || c.verdict == "REPRODUCED" ? "" : "<br><small>" + HtmlEscape(c.reason) + "</small>")
        << (table.failed_prerequisites.count(c.suite)
                ? "<br><small>rests on a failed prerequisite: " + HtmlEscape(table.failed_prerequisites.at(c.suite)) +
                      "</small>"
                : "")
        << "</td></tr>\n";
  }
  out << "</table>\n";
  if (!table.prerequisites.empty()) {
    out << "<h2>Prerequisites</h2>\n<p>Checks of claimbench's own code that the paper claims rest on "
           "(determinism, oracles, scorer parity, CPU-vs-CUDA agreement).</p>\n<ul>\n";
    for (const PrerequisiteLine& line : table.prerequisites) out << "<li>" << HtmlEscape(line.Text()) << "</li>\n";
    out << "</ul>\n";
  }

  const std::vector<Heatmap> heatmaps = CollectHeatmaps(m.run.results);
  if (!heatmaps.empty()) out << "<h2>Heatmaps</h2>\n";
  for (const auto& h : heatmaps) {
    out << "<h3>" << HtmlEscape(h.suite + "/" + h.case_name + " [" + h.backend + "] " + h.title) << "</h3>\n"
        << HeatmapHtml(h);
  }

  if (!o.paper.empty()) {
    out << "<p class=\"note\">One paper's page (--paper): history, comparisons and provenance are in the full report.</p>\n";
  } else {
  const std::vector<ComplexitySeries> fits = CollectComplexity(m.run.results);
  if (!fits.empty()) {
    out << "<h2>Complexity</h2>\n<p class=\"note\">Rows that differ only in the size n, log-log, with the "
        << "least-squares line for the eye; the claims' exponents and CIs are in the tables above.</p>\n";
  }
  for (const auto& f : fits) out << "<h3>" << HtmlEscape(f.title) << "</h3>\n" << ComplexitySvg(f);
  out << "<h2>History</h2>\n";
  if (m.history.empty()) out << "<p class=\"note\">No timed row of this run appears in two or more runs yet.</p>\n";
  for (size_t i = 0; i < m.history.size(); ++i) {
    const auto& s = m.history[i];
    out << "<h3>" << HtmlEscape(s.suite + "/" + s.case_name + " [" + s.backend + "] " + s.params + " " + s.metric)
        << "</h3>\n<canvas id=\"history-" << i << "\" class=\"chart\" width=\"900\" height=\"300\"></canvas>\n";
    ++charts;
    for (const auto& st : s.steps) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "change point: %+.1f%% (%.4g -> %.4g), first run after it: run %lld",
                    100 * st.relative, st.before, st.after, static_cast<long long>(st.first_run_id));
      out << "<p>" << buf << "</p>\n";
    }
  }
  auto speedups = [&](const std::optional<CompareReport>& r, const std::string& note, const char* id,
                      const char* what) {
    out << "<h2 id=\"" << id << "\">" << what << "</h2>\n";
    if (r && !r->rows.empty()) {
      int bars = 0;
      out << SpeedupSvg(*r, 200, &bars);
      speedup_bars += bars;
    } else {
      out << "<p class=\"note\">" << HtmlEscape(note) << "</p>\n";
    }
  };
  speedups(m.backends, m.backends_note, "cmp-backends", "CPU vs CUDA");
  speedups(m.platforms, m.platforms_note, "cmp-platforms", "Platforms");
  out << "<h2>Provenance</h2>\n<table><tr><th>run</th><th>status</th><th>started</th><th>profile</th>"
      << "<th>git</th><th>platform</th><th>CPU</th><th>build</th><th>run_hash</th></tr>\n";
  for (const auto& p : m.provenance) {
    out << "<tr><td>" << p["id"].get<int64_t>() << "</td><td>" << HtmlEscape(p["status"]) << "</td><td>"
        << HtmlEscape(p["started"]) << "</td><td>" << HtmlEscape(p["profile"]) << "</td><td>"
        << HtmlEscape(p["git"].get<std::string>() + (p["dirty"].get<bool>() ? " (dirty)" : "")) << "</td><td>"
        << HtmlEscape(p["platform"]) << "</td><td>" << HtmlEscape(p["cpu"]) << "</td><td><small>" << HtmlEscape(p["build"])
        << "</small></td><td>" << HtmlEscape(p["run_hash"]) << "</td></tr>\n";
  }
  out << "</table>\n";
  }
  out << "<div id=\"cb-status\" data-expected-charts=\"" << charts << "\" data-forest-bars=\"" << forest_bars
      << "\" data-speedup-bars=\"" << speedup_bars << "\" data-charts=\"0\" data-errors=\"-1\">script did not run</div>\n"
      << "<script>\nvar CB=" << ScriptJson(cb) << ";\n" << kRender << "</script>\n</body></html>\n";
  if (stats) {
    stats->charts = charts;
    stats->forest_bars = forest_bars;
    stats->speedup_bars = speedup_bars;
    stats->runs = static_cast<int>(m.provenance.size());
  }
  return out.str();
}

std::string MarkdownReport(Ledger& ledger, const ReportOptions& o) {
  const Model m = Build(ledger, o);
  std::ostringstream out;
  out << "# claimbench report: run " << m.run.run.id << "\n\n`" << ledger.path() << "`, " << m.run.run.status
      << ", profile " << m.run.run.profile << ", run_hash `" << m.run.run.run_hash << "`";
  if (m.logical.shard_count > 0) out << "; one logical run of " << DescribeShards(m.logical);
  out << "\n\n";
  if (const std::string warn = MissingShardsWarning(m.logical); !warn.empty()) out << "**Warning:** " << warn << ".\n\n";
  const auto md = MarkdownCell;
  out << "## Claims at a glance\n";
  for (const auto& [suite, claims] : GroupBy(m.run.claims, [](const ClaimRow& c) { return c.suite; })) {
    out << "\n### " << suite << "\n\n" << ForestMarkdown(claims);
  }
  out << "\n## Papers\n";
  for (const auto& [paper, claims] : GroupBy(PaperClaims(m.run.claims), [](const ClaimRow& c) { return c.paper; })) {
    std::set<std::string> suites;
    for (const auto& c : claims) suites.insert(c.suite);
    out << "\n### " << paper << "\n\nSuite";
    for (const auto& suite : suites) out << " `" << suite << "` ([README](suites/" << suite << "/README.md))";
    out << ".\n\n| claim | paper value | paper setting | ours [CI] | our setting | scale | verdict |\n"
        << "|---|---|---|---|---|---|---|\n";
    for (const auto& c : claims) {
      out << "| " << md(c.claim_id) << " | " << md(c.paper_value) << " | " << md(c.paper_setting) << " | "
          << md(FormatMeasured(c)) << " | " << md(c.our_setting) << " | " << md(c.scale) << " | " << c.verdict
          << " |\n";
    }
    for (const auto& suite : suites) {
      if (const auto f = m.fractions.find(suite); f != m.fractions.end()) {
        out << "\n" << FractionsMarkdown(f->second);
      } else {
        out << "\nNo benchmark run of this platform has recorded `" << suite
            << "` rows as fractions of a ceiling (`claimbench bench --filter '" << suite << "/'` records them).\n";
      }
    }
  }
  if (!o.paper.empty()) return out.str();  // a paper's page alone
  out << "\n## Claims\n\n| paper | claim | paper value | measured [CI] | setting | verdict |\n|---|---|---|---|---|---|\n";
  const ClaimTable table = SplitClaims(m.run.claims);
  for (const ClaimRow* p : table.paper) {
    const ClaimRow& c = *p;
    out << "| " << md(c.paper) << " | " << md(c.claim_id) << " | " << md(c.paper_value) << " | "
        << md(FormatMeasured(c)) << " | " << md(c.our_setting) << " | " << c.verdict
        << (table.failed_prerequisites.count(c.suite) ? " (rests on a failed prerequisite)" : "") << " |\n";
  }
  if (!table.prerequisites.empty()) out << "\n### Prerequisites\n\n";
  for (const PrerequisiteLine& line : table.prerequisites) out << "- " << md(line.Text()) << "\n";
  for (const auto& h : CollectHeatmaps(m.run.results)) {
    out << "\n### Heatmap: " << md(h.suite + "/" + h.case_name + " [" + h.backend + "] " + h.title) << "\n\n"
        << HeatmapMarkdown(h);
  }
  out << "\n## Change points\n\n";
  int steps = 0;
  for (const auto& s : m.history) {
    for (const auto& st : s.steps) {
      char buf[128];
      std::snprintf(buf, sizeof buf, "%+.1f%%, first run after it: %lld", 100 * st.relative,
                    static_cast<long long>(st.first_run_id));
      out << "- `" << md(s.suite + "/" + s.case_name + " [" + s.backend + "] " + s.metric) << "`: " << buf << "\n";
      ++steps;
    }
  }
  if (steps == 0) out << "None in the " << m.history.size() << " timed series with history.\n";
  auto geo = [&](const std::optional<CompareReport>& r, const std::string& note, const char* what) {
    out << "\n## " << what << "\n\n";
    if (!r || r->rows.empty()) {
      out << note << "\n";
      return;
    }
    if (r->overall_geomean) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "Geometric mean speedup %.3gx over %d cases", *r->overall_geomean, r->counted);
      out << buf << " (" << md(r->label_b) << " over " << md(r->label_a) << ").\n";
    } else {
      out << "No case passed its checks on both sides.\n";
    }
    out << "\n" << SpeedupMarkdown(*r);
  };
  geo(m.backends, m.backends_note, "CPU vs CUDA");
  geo(m.platforms, m.platforms_note, "Platforms");
  out << "\n" << m.provenance.size() << " runs in the ledger.\n";
  return out.str();
}

}  // namespace cb::ledger
