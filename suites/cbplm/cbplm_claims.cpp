// File: suites/cbplm/cbplm_claims.cpp
// -----------------------------------------------------------------------------
// CB-pLM claims (issue 25). So far P1 only: the concepts the model is built
// on equal Biopython's, on Biopython's own doctest vectors. The intervention
// and perplexity claims need the concept-bottleneck masked LM, not built yet
// (suites/cbplm/README.md).
#include <cstdio>
#include <string>
#include <vector>

#include "harness/claim.h"
#include "harness/criterion.h"
#include "reference/protparam/protparam.h"

namespace cb::cbplm {
namespace {

namespace h = cb::harness;
namespace pp = cb::ref::protparam;

CB_CLAIM_DEFAULTS({.paper = "CB-pLM (Ismail et al., ICLR 2025)",
                   .paper_setting = "24M-3B concept-bottleneck masked protein LMs, 718 concepts (14 Biopython)"});

constexpr char kDoctestProtein[] =
    "MAEGEITTFTALTEKFNLPPGNYKKPKLLYCSNGGHFLRILPDGTVDGTRDRSDQHIQLQLSAESVGEVYIKSTETGQYLAMDTSGLLYGSQTPSEEC"
    "LFLERLEENHYNTYTSKKHAEKNWFVGLKKNGSCKRGPRTHYGQKAILFLPLPV";

// One printed doctest value: what Biopython printed, and ours printed alike.
struct Printed {
  std::string what, format, biopython;
  double ours;
};

std::string Format(const std::string& format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format.c_str(), v);
  return buf;
}

// ---------------------------------------------------------------------------
// P1: Biopython parity on its doctests (Bio/SeqUtils/ProtParam.py and
// IsoelectricPoint.py at biopython-184, 9ac2729).

h::Outcome BiopythonDoctestParity(h::ClaimContext& ctx) {
  const std::string p = kDoctestProtein;
  const auto ss182 = pp::SecondaryStructureFraction(p, pp::SecondaryStructure::kBiopython182);
  const auto ss181 = pp::SecondaryStructureFraction(p, pp::SecondaryStructure::kBiopython181);
  const auto ext = pp::MolarExtinctionCoefficient(p);
  const std::vector<Printed> values = {
      {"molecular_weight", "%0.2f", "17103.16", pp::MolecularWeight(p)},
      {"aromaticity", "%0.2f", "0.10", pp::Aromaticity(p)},
      {"instability_index", "%0.2f", "41.98", pp::InstabilityIndex(p)},
      {"isoelectric_point", "%0.2f", "7.72", pp::IsoelectricPoint(p)},
      {"helix_fraction (1.82+)", "%0.2f", "0.33", ss182[0]},
      {"turn_structure_fraction (1.82+)", "%0.2f", "0.29", ss182[1]},
      {"sheet_structure_fraction (1.82+)", "%0.2f", "0.37", ss182[2]},
      {"helix_fraction (1.81)", "%0.2f", "0.28", ss181[0]},
      {"molar_extinction_coefficient_reduced", "%.0f", "17420", static_cast<double>(ext[0])},
      {"molar_extinction_coefficient_oxidized", "%.0f", "17545", static_cast<double>(ext[1])},
      {"INGAR isoelectric_point", "%.2f", "9.75", pp::IsoelectricPoint("INGAR")},
      {"INGAR charge_at_pH7", "%.2f", "0.76", pp::ChargeAtPH("INGAR", 7.0)},
      {"PETER isoelectric_point", "%.2f", "4.53", pp::IsoelectricPoint("PETER")},
      {"PETER charge_at_pH 4.53", "%.2f", "0.00", pp::ChargeAtPH("PETER", 4.53)},
  };
  int differ = 0;
  for (const Printed& v : values) {
    const bool same = Format(v.format, v.ours) == v.biopython;
    differ += same ? 0 : 1;
    ctx.RecordExact({.case_name = "biopython_doctest", .backend = "cpu",
                     .params = {{"value", v.what}, {"biopython_printed", v.biopython}, {"format", v.format}},
                     .metric = "value", .unit = "1", .direction = "none", .value = v.ours, .n = 1});
  }
  ctx.RecordExact({.case_name = "biopython_doctest", .backend = "cpu", .metric = "printed values that differ",
                   .unit = "count", .direction = "lower", .value = double(differ),
                   .n = static_cast<int64_t>(values.size())});
  return ctx.Judge({h::Estimate::Exact(double(differ))},
                   std::to_string(values.size()) + " printed doctest values (Biopython 1.84; helix also 1.81)");
}

CB_REGISTER_CLAIM(kP1, {.id = "cbplm.P1", .section = "§3 concepts; Biopython ProtParam doctests",
                        .statement = "the 14 Biopython concepts equal Biopython's on its doctest vectors",
                        .paper_value = "MW 17103.16, pI 7.72, instability 41.98, helix/turn/sheet 0.33/0.29/0.37 "
                                       "(1.81: helix 0.28), extinction 17420/17545; INGAR pI 9.75, charge(7) 0.76; "
                                       "PETER pI 4.53",
                        .paper_setting = "Biopython 1.84 (lobster's pin), to the printed precision",
                        .metric = "printed values that differ",
                        .criterion = h::Equals(0, "printed values that differ")},
                  BiopythonDoctestParity);

}  // namespace
}  // namespace cb::cbplm
