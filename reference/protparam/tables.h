// File: reference/protparam/tables.h
// -----------------------------------------------------------------------------
// The residue tables of Biopython's ProteinAnalysis, as data: Bio.Data.IUPACData
// (average residue masses), Bio.SeqUtils.IsoelectricPoint (pK values and the
// terminal overrides) and Bio.SeqUtils.ProtParamData (Kyte-Doolittle, Hopp-Woods,
// Emini, and Guruprasad's dipeptide instability weights DIWV), copied from the
// tag biopython-184 (commit 9ac2729838c7fd86799936bbe91dd6c6411fdfe9), the
// version lobster pins. These files are unchanged between 1.81 and 1.86.
#ifndef CB_REFERENCE_PROTPARAM_TABLES_H_
#define CB_REFERENCE_PROTPARAM_TABLES_H_

#include <array>
#include <optional>

namespace cb::ref::protparam {

// The 20 standard residues in Biopython's protein_letters order; every
// per-residue table below is indexed by a residue's position here.
inline constexpr char kStandardResidues[] = "ACDEFGHIKLMNPQRSTVWY";
inline constexpr int kNumStandard = 20;

// The position of `c` in kStandardResidues, or nullopt (case-sensitive, as
// Biopython's dict lookups are).
std::optional<int> StandardIndex(char c);

// IUPACData.protein_weights: average masses of the free amino acids (Da), for
// the 20 standard residues plus O (pyrrolysine) and U (selenocysteine).
std::optional<double> AverageResidueMass(char c);
inline constexpr double kAverageWaterMass = 18.0153;

extern const std::array<double, kNumStandard> kKyteDoolittle;   // ProtParamData.kd
extern const std::array<double, kNumStandard> kHoppWoods;       // ProtParamData.hw
extern const std::array<double, kNumStandard> kEmini;           // ProtParamData.em
// ProtParamData.DIWV[first][second], both indexed as kStandardResidues.
extern const std::array<std::array<double, kNumStandard>, kNumStandard> kDiwv;

}  // namespace cb::ref::protparam

#endif  // CB_REFERENCE_PROTPARAM_TABLES_H_
