// File: reference/protparam/protparam.h
// -----------------------------------------------------------------------------
// The 14 sequence descriptors that CB-pLM uses as concepts, computed as
// Biopython's ProteinAnalysis computes them (version 1.84, the one lobster
// pins; tables in tables.h), in the same order of floating-point operations,
// and assembled as lobster's LargeMoleculeDescriptors does
// (prescient-design/lobster@0ac6932, src/lobster/concepts/
// _large_molecule_descriptors.py). fixtures/protparam/biopython_golden.tsv
// holds Biopython's own output for 452 sequences; the tests compare.
//
// What Biopython does on every input, kept here:
//  - ProteinAnalysis upper-cases the sequence; the length L counts every
//    character (X, B, '.', '-' included), the residue counts only the 20
//    standard letters. molecular_weight() first drops whitespace.
//  - A residue a table lacks raises in Python: molecular weight for anything
//    but the 20 + O + U, instability index for a dipeptide outside the 20
//    (so a single non-standard residue of a 1-residue sequence does not),
//    GRAVY for anything outside the 20. Here such a concept is NaN with the
//    reason in ConceptValues::error; lobster's bare `except: continue` drops
//    it from the concept vector instead, shifting the concepts after it
//    (LobsterConceptVector shows that and is not used for anything else).
//  - avg_hydrophilicity and avg_surface_accessibility are lobster's own: the
//    mean of Hopp-Woods / Emini values over the sequence as given (not
//    upper-cased), 0 for a character the table lacks.
//  - isoelectric_point is Biopython's bisection: start at pH 7.775 in
//    [4.05, 12], move the bound on the side of the charge's sign, stop when
//    the interval is at most 1e-4 wide and return the last pH tried.
//  - The secondary-structure fractions changed in Biopython 1.82 (PR #4273):
//    before, the "helix" letters were the sheet formers and vice versa.
//    Both conventions are here; 1.82+ is the default.
#ifndef CB_REFERENCE_PROTPARAM_PROTPARAM_H_
#define CB_REFERENCE_PROTPARAM_PROTPARAM_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cb::ref::protparam {

inline constexpr int kNumConcepts = 14;

// lobster's names, in its concept order (supported_biopython_concepts).
const std::array<std::string_view, kNumConcepts>& ConceptNames();

enum class SecondaryStructure {
  kBiopython182,  // helix EMALK, turn NPGSD, sheet VIYFWLT (Biopython >= 1.82)
  kBiopython181,  // helix VIYFWL, turn NPGS, sheet EMAL (Biopython <= 1.81)
};
// "biopython-1.82" | "biopython-1.81"; ParseSecondaryStructure throws
// std::invalid_argument on anything else.
const char* SecondaryStructureName(SecondaryStructure s);
SecondaryStructure ParseSecondaryStructure(std::string_view name);

// --- The descriptors, one per Biopython method. `seq` is upper-cased by the
// caller (ProteinAnalysis does it in its constructor); each REQUIRES a
// non-empty seq. The ones marked "throws" raise std::invalid_argument naming
// the first residue the table lacks, where Python raises.

double MolecularWeight(std::string_view seq);  // throws; whitespace is dropped first
double Aromaticity(std::string_view seq);
double InstabilityIndex(std::string_view seq);  // throws
double Gravy(std::string_view seq);             // throws
double ChargeAtPH(std::string_view seq, double ph);
double IsoelectricPoint(std::string_view seq);
// (helix, turn, sheet)
std::array<double, 3> SecondaryStructureFraction(std::string_view seq, SecondaryStructure convention);
// (reduced cysteines, cystines): 5500 W + 1490 Y, plus 125 per C pair.
std::array<int64_t, 2> MolarExtinctionCoefficient(std::string_view seq);
// lobster's _get_avg_quantity over the Hopp-Woods / Emini tables.
double AverageHydrophilicity(std::string_view seq);
double AverageSurfaceAccessibility(std::string_view seq);

// --- All 14 as LargeMoleculeDescriptors(sequence) gives them.
struct ConceptValues {
  std::array<double, kNumConcepts> value{};  // NaN where Biopython raises
  std::array<std::string, kNumConcepts> error;  // "" or why
};
// REQUIRES: !sequence.empty() (lobster returns no descriptors at all then);
// throws std::invalid_argument otherwise.
ConceptValues ComputeConcepts(std::string_view sequence,
                              SecondaryStructure convention = SecondaryStructure::kBiopython182);

// --- lobster's preprocessing and normalisation
// (PmlmConceptTokenizerTransform.transform, lobster@0ac6932).

// Whitespace removed, every character outside ARNDCEQGHILKMFPSTWYV.- replaced
// by 'A' (lower case included: it is replaced before Biopython upper-cases
// anything), then the first `max_length` characters.
std::string LobsterSequence(std::string_view text, size_t max_length = 512);

struct Bounds {
  double min, max;
};
// concepts_min / concepts_max, in ConceptNames() order.
const std::array<Bounds, kNumConcepts>& LobsterBounds();
// (v - min) / (max - min), not clipped (lobster's normalize()).
double LobsterNormalize(double v, int index);

// The concept vector as lobster builds it: normalised values with every
// concept that raised left out, so a later concept takes its place. For
// showing the defect only.
std::vector<double> LobsterConceptVector(const ConceptValues& c);

}  // namespace cb::ref::protparam

#endif  // CB_REFERENCE_PROTPARAM_PROTPARAM_H_
