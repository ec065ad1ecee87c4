// File: harness/cli/list_command.cpp
// `claimbench list`: suites, claims and backends (with why one is unavailable).

#include <cstdio>
#include <iostream>
#include <map>
#include <string>

#include "harness/blas_info.h"
#include "harness/claim.h"
#include "harness/cli/commands.h"

namespace cb::cli {
namespace {

namespace h = cb::harness;

std::string Requirements(const h::Requirements& r) {
  std::string s;
  if (r.gpu) s += "gpu ";
  if (r.energy_meter) s += "energy ";
  if (r.endpoint) s += "endpoint ";
  if (r.cpu_only) s += "cpu-only ";
  if (r.min_profile != h::Profile::kSmoke) s += std::string("profile>=") + h::ProfileName(r.min_profile) + " ";
  if (!s.empty()) s.pop_back();
  return s.empty() ? "-" : s;
}

// The scale a run here would give the claim now: `real` where it queries
// the user's endpoint and one is set; the built-in substrates otherwise (a
// claim that takes a user's file says so when it is given one).
const char* ScaleHere(const h::ClaimSpec& s) {
  const bool endpoint = s.requirements.endpoint && h::UnmetRequirement({.endpoint = true}).empty();
  return h::ScaleName(endpoint ? h::Scale::kReal : h::Scale::kMechanism);
}

// The verdicts that some synthetic measurement gets from `c`, each checked
// by deciding its witness: what the registry-wide falsifiability test reads.
nlohmann::json Outcomes(const h::Criterion& c) {
  nlohmann::json out = nlohmann::json::array();
  for (const h::Verdict v : {h::Verdict::kReproduced, h::Verdict::kNotReproduced, h::Verdict::kInconclusive}) {
    const auto witness = c.Witness(v);
    if (witness && c.Decide(*witness, nullptr) == v) out.push_back(h::VerdictName(v));
  }
  return out;
}

int List(bool json) {
  std::map<std::string, int> claims_per_suite;
  for (const auto& def : h::RegisteredClaims()) ++claims_per_suite[def.spec.suite];

  if (json) {
    nlohmann::json out = {{"backends", nlohmann::json::array()},
                          {"suites", nlohmann::json::array()},
                          {"claims", nlohmann::json::array()}};
    for (const auto b : h::AllBackends()) {
      const auto st = h::Availability(b);
      out["backends"].push_back(
          {{"name", std::string(h::BackendName(b))}, {"available", st.ok}, {"reason", st.reason}});
    }
    const h::BlasInfo blas = h::DetectBlas();
    const std::string warning = h::BlasKernelWarning(blas, h::CpuFlags());
    out["blas"] = h::ToJson(blas);
    out["blas"]["warning"] = warning.empty() ? nlohmann::json(nullptr) : nlohmann::json(warning);
    for (const auto& [suite, n] : claims_per_suite) out["suites"].push_back({{"name", suite}, {"claims", n}});
    for (const auto& def : h::RegisteredClaims()) {
      const auto& s = def.spec;
      out["claims"].push_back({{"id", s.id},
                               {"suite", s.suite},
                               {"kind", h::ClaimKindName(s.kind)},
                               {"check_of", s.check_of},
                               {"paper", s.paper},
                               {"statement", s.statement},
                               {"scale", ScaleHere(s)},
                               {"paper_inputs", s.paper_inputs},
                               {"criterion", s.criterion.Text()},
                               {"criterion_can_fail", s.criterion.CannotFail().empty()},
                               {"criterion_outcomes", Outcomes(s.criterion)},
                               {"criterion_hash", h::CriterionHash(s)},
                               {"criterion_reason", s.criterion_reason},
                               {"requires", Requirements(s.requirements)},
                               {"unmet", h::UnmetRequirement(s.requirements)}});
    }
    std::cout << out.dump(2) << "\n";
    return kExitOk;
  }

  std::printf("backends\n");
  for (const auto b : h::AllBackends()) {
    const auto st = h::Availability(b);
    std::printf("  %-6s %s\n", std::string(h::BackendName(b)).c_str(),
                st.ok ? "available" : ("unavailable: " + st.reason).c_str());
  }
  // The BLAS as loaded (harness/blas_info.h): GEMM-bound results depend on
  // which kernels OpenBLAS picked for this CPU.
  const h::BlasInfo blas = h::DetectBlas();
  std::printf("\nblas\n  %s %s, core %s (%s)\n", blas.vendor.c_str(), blas.version.c_str(),
              blas.corename.c_str(), blas.library.c_str());
  if (const std::string w = h::BlasKernelWarning(blas, h::CpuFlags()); !w.empty()) {
    std::printf("  %s\n", w.c_str());
  }
  std::printf("\nsuites\n");
  for (const auto& [suite, n] : claims_per_suite) std::printf("  %-16s %d claims\n", suite.c_str(), n);
  std::printf("\nclaims\n");
  for (const auto& def : h::RegisteredClaims()) {
    const auto& s = def.spec;
    const std::string unmet = h::UnmetRequirement(s.requirements);
    std::printf("  %s %s %s %s %s\n", Fit(s.id, 16).c_str(), Fit(h::ClaimKindName(s.kind), 12).c_str(),
                Fit(ScaleHere(s), 10).c_str(), Fit(Requirements(s.requirements), 16).c_str(),
                s.statement.c_str());
    if (!unmet.empty()) std::printf("  %s (unmeasurable here: %s)\n", std::string(16, ' ').c_str(), unmet.c_str());
  }
  return kExitOk;
}

}  // namespace

void AddListCommand(CLI::App& app, int* exit_code) {
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand("list", "List suites, claims and backends");
  cmd->add_flag("--json", *json, "Machine-readable output");
  cmd->callback([json, exit_code] { *exit_code = List(*json); });
}

}  // namespace cb::cli
