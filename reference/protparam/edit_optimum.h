// File: reference/protparam/edit_optimum.h
// -----------------------------------------------------------------------------
// The exact optimum Δ* of "change at most k residues to raise (or lower) a
// concept", for the concepts that are sums of per-residue values, so that an
// intervention's Δ can be read as the efficiency Δ/Δ* (brief §3.3).
//
//   concept                   per-residue value v(a); concept = Σ v / L or Σ v
//   gravy                     Kyte-Doolittle, mean
//   avg_hydrophilicity        Hopp-Woods, mean
//   avg_surface_accessibility Emini, mean
//   aromaticity               1 for F, W, Y, mean
//   molar_extinction_coefficient_reduced   5500 W + 1490 Y, sum
//   molar_extinction_coefficient_oxidized  the same + 125 per pair of C (not
//                             a per-residue sum: solved by trying every
//                             number of C kept, changed or added)
//
// A substitution replaces a residue by one of the 20 standard residues; the
// length does not change. The best single substitution at position i gains
// max_b v(b) − v(s_i); the k largest positive gains are the optimum, since
// positions are independent. REQUIRES: seq of standard residues only.
#ifndef CB_REFERENCE_PROTPARAM_EDIT_OPTIMUM_H_
#define CB_REFERENCE_PROTPARAM_EDIT_OPTIMUM_H_

#include <string>
#include <string_view>

namespace cb::ref::protparam {

enum class EditDirection { kRaise, kLower };

struct EditOptimum {
  double delta = 0;    // concept(edited) - concept(seq): >= 0 raising, <= 0 lowering
  std::string edited;  // a sequence reaching it, at most k residues changed
  int changed = 0;     // residues changed (may be < k: nothing left to gain)
};

// Whether OptimalEdit solves `concept` (one of ConceptNames()).
bool HasExactEditOptimum(std::string_view concept_name);

// REQUIRES: HasExactEditOptimum(concept_name), k >= 0, seq non-empty and of
// the 20 standard residues; throws std::invalid_argument otherwise.
EditOptimum OptimalEdit(std::string_view seq, std::string_view concept_name, int k, EditDirection direction);

}  // namespace cb::ref::protparam

#endif  // CB_REFERENCE_PROTPARAM_EDIT_OPTIMUM_H_
