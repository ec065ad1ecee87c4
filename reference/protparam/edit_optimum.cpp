// File: reference/protparam/edit_optimum.cpp
#include "reference/protparam/edit_optimum.h"

#include <algorithm>
#include <array>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "reference/protparam/protparam.h"
#include "reference/protparam/tables.h"

namespace cb::ref::protparam {
namespace {

using Values = std::array<double, kNumStandard>;

int ConceptIndex(std::string_view name) {
  const auto& names = ConceptNames();
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) throw std::invalid_argument("no concept named '" + std::string(name) + "'");
  return static_cast<int>(it - names.begin());
}

// v(a) of a per-residue-additive concept, in kStandardResidues order.
Values PerResidue(std::string_view name) {
  Values v{};
  if (name == "gravy") return kKyteDoolittle;
  if (name == "avg_hydrophilicity") return kHoppWoods;
  if (name == "avg_surface_accessibility") return kEmini;
  if (name == "aromaticity") {
    for (char c : {'F', 'W', 'Y'}) v[*StandardIndex(c)] = 1.0;
    return v;
  }
  // Both extinction coefficients: W and Y; the oxidized one's cystines are
  // handled by OxidizedExtinctionEdit.
  v[*StandardIndex('W')] = 5500;
  v[*StandardIndex('Y')] = 1490;
  return v;
}

// The k positions with the largest positive gain of changing s_i to `target`
// (ties: the earlier position), changed; a `keep` residue is never changed.
std::string ChangeBest(std::string seq, const Values& v, int target, int k, bool raise, char keep = '\0') {
  std::vector<std::pair<double, size_t>> gains;
  for (size_t i = 0; i < seq.size(); ++i) {
    if (seq[i] == keep) continue;
    const double g = raise ? v[target] - v[*StandardIndex(seq[i])] : v[*StandardIndex(seq[i])] - v[target];
    if (g > 0) gains.push_back({g, i});
  }
  std::stable_sort(gains.begin(), gains.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t j = 0; j < gains.size() && static_cast<int>(j) < k; ++j) seq[gains[j].second] = kStandardResidues[target];
  return seq;
}

// 5500 W + 1490 Y + 125 floor(C / 2): every number c of cysteines changed is
// tried (raising: C -> W, losing their pairs; lowering: C -> A, breaking
// pairs), the other k - c changes going to the best per-residue gains.
std::string OxidizedExtinctionEdit(const std::string& seq, int k, bool raise) {
  const Values v = PerResidue("molar_extinction_coefficient_oxidized");
  const int target = *StandardIndex(raise ? 'W' : 'A');
  const auto value = [](const std::string& s) { return static_cast<double>(MolarExtinctionCoefficient(s)[1]); };
  std::vector<size_t> cys;
  for (size_t i = 0; i < seq.size(); ++i) {
    if (seq[i] == 'C') cys.push_back(i);
  }
  std::string best = seq;
  for (int c = 0; c <= std::min<int>(k, static_cast<int>(cys.size())); ++c) {
    std::string s = seq;
    for (int j = 0; j < c; ++j) s[cys[j]] = kStandardResidues[target];
    // The other k - c changes leave the remaining cysteines alone.
    s = ChangeBest(s, v, target, k - c, raise, 'C');
    if (raise ? value(s) > value(best) : value(s) < value(best)) best = s;
  }
  return best;
}

}  // namespace

bool HasExactEditOptimum(std::string_view concept_name) {
  for (std::string_view n : {"gravy", "avg_hydrophilicity", "avg_surface_accessibility", "aromaticity",
                             "molar_extinction_coefficient_reduced", "molar_extinction_coefficient_oxidized"}) {
    if (n == concept_name) return true;
  }
  return false;
}

EditOptimum OptimalEdit(std::string_view seq, std::string_view concept_name, int k, EditDirection direction) {
  if (!HasExactEditOptimum(concept_name))
    throw std::invalid_argument("no exact edit optimum for concept '" + std::string(concept_name) + "'");
  if (k < 0) throw std::invalid_argument("OptimalEdit: k must be >= 0");
  if (seq.empty()) throw std::invalid_argument("OptimalEdit: empty sequence");
  for (char c : seq) {
    if (!StandardIndex(c))
      throw std::invalid_argument(std::string("OptimalEdit: '") + c + "' is not one of the 20 standard residues");
  }
  const bool raise = direction == EditDirection::kRaise;
  const std::string s(seq);
  std::string edited;
  if (concept_name == "molar_extinction_coefficient_oxidized") {
    edited = OxidizedExtinctionEdit(s, k, raise);
  } else {
    const Values v = PerResidue(concept_name);
    // The best residue to change to: the first maximum (raising) or minimum.
    const auto it = raise ? std::max_element(v.begin(), v.end()) : std::min_element(v.begin(), v.end());
    edited = ChangeBest(s, v, static_cast<int>(it - v.begin()), k, raise);
  }
  const int index = ConceptIndex(concept_name);
  EditOptimum out;
  out.delta = ComputeConcepts(edited).value[index] - ComputeConcepts(s).value[index];
  for (size_t i = 0; i < s.size(); ++i) out.changed += s[i] != edited[i] ? 1 : 0;
  out.edited = std::move(edited);
  return out;
}

}  // namespace cb::ref::protparam
