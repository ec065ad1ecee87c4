// File: ledger/analysis/gate_format.cpp
// -----------------------------------------------------------------------------
// Terminal table, Markdown, JUnit XML and JSON of a gate report.
#include "ledger/analysis/gate_format.h"

#include <cstdio>
#include <sstream>

namespace cb::ledger {
namespace {

std::string Num(const std::optional<double>& v, const char* fmt = "%.4g") {
  if (!v) return "-";
  char buf[48];
  std::snprintf(buf, sizeof buf, fmt, *v);
  return buf;
}

std::string Pct(const std::optional<double>& v) {
  if (!v) return "-";
  char buf[48];
  std::snprintf(buf, sizeof buf, "%+.1f%%", 100 * *v);
  return buf;
}

std::string Name(const GateRow& g) {
  if (g.kind == RowKind::kClaim) return g.case_name;
  std::string s = g.suite + "/" + g.case_name;
  if (!g.backend.empty()) s += "[" + g.backend + "]";
  if (g.params != "{}") s += g.params;
  return s + " " + g.metric;
}

std::string Change(const GateRow& g) {
  if (g.kind == RowKind::kClaim) {
    return (g.baseline_verdict.empty() ? "-" : g.baseline_verdict) + " -> " +
           (g.candidate_verdict.empty() ? "-" : g.candidate_verdict);
  }
  std::string s = Pct(g.effect);
  if (g.ci_low && g.ci_high) s += " [" + Pct(g.ci_low) + ", " + Pct(g.ci_high) + "]";
  return s;
}

// Marked "reported, not gated": any row that does not count towards the exit
// code, except a claim that is only NEW or MISSING (nothing to gate there).
bool NotGated(const GateRow& g) {
  if (g.gated) return false;
  return !(g.kind == RowKind::kClaim && (g.verdict == "NEW" || g.verdict == "MISSING"));
}

bool Listed(const GateRow& g, bool all) {
  return all || !(g.verdict == "SAME" || g.verdict == "MATCH");
}

std::string Summary(const GateReport& r) {
  std::string s;
  for (const auto& [verdict, n] : r.counts) {
    s += (s.empty() ? "" : ", ") + std::to_string(n) + " " + verdict;
  }
  return s.empty() ? "no rows" : s;
}

const char* Outcome(int exit_code) {
  return exit_code == 1 ? "REGRESSION" : exit_code == 2 ? "AMBIGUOUS" : "PASS";
}

std::string Fit(std::string s, size_t w) {
  if (s.size() > w) s = s.substr(0, w - 1) + "~";
  s.resize(w, ' ');
  return s;
}

std::string Xml(const std::string& s) {
  std::string out;
  for (unsigned char ch : s) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        if (ch < 0x20 && ch != '\n' && ch != '\t') out += ' ';  // not allowed in XML 1.0
        else out += static_cast<char>(ch);
    }
  }
  return out;
}

std::string Md(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '|') out += "\\|";
    else out += ch;
  }
  return out;
}

}  // namespace

std::string GateTable(const GateReport& r, bool all) {
  std::ostringstream out;
  out << "gate: " << r.candidate_label << " vs baseline " << r.baseline_label << "\n"
      << "policy " << r.policy_version << (r.cross_platform ? ", cross-platform" : "") << "\n\n";
  out << Fit("verdict", 15) << Fit("kind", 14) << Fit("row", 58) << Fit("baseline", 11)
      << Fit("candidate", 11) << Fit("change [95% CI]", 28) << Fit("q", 9) << "note\n";
  size_t hidden = 0;
  for (const auto& g : r.rows) {
    if (!Listed(g, all)) {
      ++hidden;
      continue;
    }
    std::string verdict = g.verdict + (NotGated(g) ? "*" : "");
    out << Fit(verdict, 15) << Fit(RowKindName(g.kind), 14) << Fit(Name(g), 58)
        << Fit(Num(g.baseline_value), 11) << Fit(Num(g.candidate_value), 11)
        << Fit(Change(g), 28) << Fit(Num(g.q, "%.2g"), 9) << g.note << "\n";
    if (g.verdict == "OUTPUT_CHANGED" || g.verdict == "CHANGED") {
      if (!g.baseline_output_hash.empty() || !g.candidate_output_hash.empty()) {
        out << "    output hash " << g.baseline_output_hash << " -> " << g.candidate_output_hash
            << " (input " << g.candidate_input_hash << ")\n";
      }
    }
  }
  if (hidden) out << "(" << hidden << " SAME/MATCH rows not listed; --all lists them)\n";
  out << "\n* reported, not gated\n" << Outcome(r.exit_code) << ": " << Summary(r) << "\n";
  return out.str();
}

std::string GateMarkdown(const GateReport& r, bool all) {
  std::ostringstream out;
  out << "### claimbench gate: " << Outcome(r.exit_code) << "\n\n"
      << "Candidate `" << Md(r.candidate_label) << "` vs baseline `" << Md(r.baseline_label)
      << "`, policy `" << r.policy_version << "`" << (r.cross_platform ? ", cross-platform" : "")
      << ".\n\n" << Summary(r) << "\n\n";
  out << "| verdict | kind | row | baseline | candidate | change [95% CI] | q | note |\n"
      << "|---|---|---|---:|---:|---|---:|---|\n";
  size_t hidden = 0;
  for (const auto& g : r.rows) {
    if (!Listed(g, all)) {
      ++hidden;
      continue;
    }
    out << "| " << (g.regression ? "**" + g.verdict + "**" : g.verdict)
        << (NotGated(g) ? " (not gated)" : "") << " | "
        << RowKindName(g.kind) << " | `" << Md(Name(g)) << "` | " << Num(g.baseline_value)
        << " | " << Num(g.candidate_value) << " | " << Md(Change(g)) << " | "
        << Num(g.q, "%.2g") << " | " << Md(g.note);
    if (g.verdict == "OUTPUT_CHANGED" || (g.verdict == "CHANGED" && g.kind == RowKind::kDeterministic)) {
      out << " output `" << g.baseline_output_hash << "` -> `" << g.candidate_output_hash << "`";
    }
    out << " |\n";
  }
  if (hidden) out << "\n" << hidden << " SAME/MATCH rows not listed.\n";
  return out.str();
}

std::string GateJunit(const GateReport& r) {
  int64_t failures = 0, skipped = 0;
  for (const auto& g : r.rows) {
    failures += g.regression;
    skipped += !g.regression && g.gated && g.verdict == "AMBIGUOUS";
  }
  std::ostringstream out;
  out << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<testsuites name=\"claimbench gate\" tests=\"" << r.rows.size() << "\" failures=\""
      << failures << "\" skipped=\"" << skipped << "\">\n"
      << "  <testsuite name=\"claimbench gate\" tests=\"" << r.rows.size() << "\" failures=\""
      << failures << "\" skipped=\"" << skipped << "\" errors=\"0\">\n"
      << "    <properties>\n"
      << "      <property name=\"baseline\" value=\"" << Xml(r.baseline_label) << "\"/>\n"
      << "      <property name=\"candidate\" value=\"" << Xml(r.candidate_label) << "\"/>\n"
      << "      <property name=\"policy_version\" value=\"" << Xml(r.policy_version) << "\"/>\n"
      << "    </properties>\n";
  for (const auto& g : r.rows) {
    const std::string detail = g.verdict + " " + Change(g) + (g.q ? " q=" + Num(g.q, "%.2g") : "") +
                               (g.note.empty() ? "" : ": " + g.note);
    out << "    <testcase classname=\"" << Xml(g.suite + "." + RowKindName(g.kind)) << "\" name=\""
        << Xml(Name(g)) << "\"";
    if (g.regression) {
      out << ">\n      <failure type=\"" << g.verdict << "\" message=\"" << Xml(detail)
          << "\"/>\n    </testcase>\n";
    } else if (g.gated && g.verdict == "AMBIGUOUS") {
      out << ">\n      <skipped message=\"" << Xml(detail) << "\"/>\n    </testcase>\n";
    } else {
      out << ">\n      <system-out>" << Xml(detail) << "</system-out>\n    </testcase>\n";
    }
  }
  out << "  </testsuite>\n</testsuites>\n";
  return out.str();
}

nlohmann::json GateJson(const GateReport& r) {
  auto opt = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& g : r.rows) {
    nlohmann::json j = {{"verdict", g.verdict},   {"kind", RowKindName(g.kind)},
                        {"result_kind", g.result_kind},
                        {"suite", g.suite},       {"case", g.case_name},
                        {"backend", g.backend},   {"params", g.params},
                        {"metric", g.metric},     {"gated", g.gated},
                        {"regression", g.regression}, {"test", g.test},
                        {"baseline", opt(g.baseline_value)}, {"candidate", opt(g.candidate_value)},
                        {"n_baseline", g.n_baseline}, {"n_candidate", g.n_candidate},
                        {"p", opt(g.p)},          {"q", opt(g.q)},
                        {"effect", opt(g.effect)}, {"ci", g.ci_low ? nlohmann::json({*g.ci_low, *g.ci_high}) : nlohmann::json()},
                        {"threshold", opt(g.threshold)}, {"note", g.note}};
    if (g.kind == RowKind::kClaim) {
      j["baseline_verdict"] = g.baseline_verdict;
      j["candidate_verdict"] = g.candidate_verdict;
    }
    if (!g.baseline_output_hash.empty() || !g.candidate_output_hash.empty()) {
      j["input_hash"] = {g.baseline_input_hash, g.candidate_input_hash};
      j["output_hash"] = {g.baseline_output_hash, g.candidate_output_hash};
    }
    rows.push_back(std::move(j));
  }
  return {{"outcome", Outcome(r.exit_code)}, {"exit_code", r.exit_code},
          {"baseline", r.baseline_label},     {"candidate", r.candidate_label},
          {"candidate_run_id", r.candidate_run_id}, {"policy_version", r.policy_version},
          {"cross_platform", r.cross_platform}, {"counts", r.counts}, {"rows", std::move(rows)}};
}

}  // namespace cb::ledger
