// File: generators/proteins.h
// -----------------------------------------------------------------------------
// Procedural protein sequences for CB-pLM (issue 25): realistic residue
// composition, lengths and a few families whose composition and motifs move
// the 14 concepts (reference/protparam) apart, so concept prediction and
// concept interventions have something to learn and to change.
//
//   Background  UniProtKB/Swiss-Prot's amino-acid composition (release
//               statistics, percent to two decimals, renormalised).
//   Families    kProteinFamilies, each the background tilted by per-residue
//               factors and renormalised: globular (none), membrane
//               (hydrophobic up, charged down: GRAVY up), acidic (D, E up: pI
//               down), basic (K, R up: pI up), cysteine_rich (C, W, Y up:
//               extinction up), disordered (P, S, E, Q, G, K up; W, C, F, I,
//               L, V, Y down: instability up).
//   A sequence  family f = i mod 6; length L = round(exp(N(ln median, 0.35)))
//               clamped to [min_length, max_length]; residue 0 is M, the rest
//               drawn from f's composition; then each of f's two motifs
//               (5-8 residues drawn from f's composition, fixed per seed) is
//               written, with probability 0.8, at the motif's home position
//               (a fraction of L fixed per seed) shifted by up to L/20; a
//               second motif that would overlap the first goes right after
//               it, or is left out when it does not fit.
//
// Determinism (DESIGN §4): motifs and home positions come from Rng(seed,
// 1 << 40 | family), sequence i from Rng(seed, i). ContentHash covers name,
// version, params and every id and sequence (XXH3-128). Changing output on
// purpose bumps kProteinsVersion and fixtures/generators/proteins_golden.txt.
//
// Errors: count < 1, min_length < 10, max_length < min_length,
// median_length outside [min_length, max_length] throw std::invalid_argument.
#ifndef CB_GENERATORS_PROTEINS_H_
#define CB_GENERATORS_PROTEINS_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cb::gen {

inline constexpr char kProteinsName[] = "proteins";
inline constexpr int kProteinsVersion = 1;
inline constexpr int kNumProteinFamilies = 6;
inline constexpr std::array<std::string_view, kNumProteinFamilies> kProteinFamilies = {
    "globular", "membrane", "acidic", "basic", "cysteine_rich", "disordered"};

// Residue probabilities in reference::protparam's kStandardResidues order
// ("ACDEFGHIKLMNPQRSTVWY"), summing to 1.
using Composition = std::array<double, 20>;
const Composition& SwissProtComposition();
Composition FamilyComposition(int family);

struct ProteinParams {
  uint64_t seed = 20250101;
  int count = 120;
  int min_length = 30;
  int max_length = 256;
  int median_length = 120;
};

struct Protein {
  std::string id;  // "<family>_<i>"
  int family = 0;
  std::string sequence;
  int motifs = 0;                    // how many of the family's motifs were written
  std::array<int, 2> motif_at = {-1, -1};  // where each was written, -1 if not
};

struct ProteinSet {
  ProteinParams params;
  std::array<std::array<std::string, 2>, kNumProteinFamilies> motifs;
  std::vector<Protein> proteins;
  std::string content_hash;
};

ProteinSet MakeProteins(const ProteinParams& params);

// The set as FASTA: ">id family=<name> motifs=<n>" and the sequence in lines of 60.
std::string ProteinsFasta(const ProteinSet& set);

}  // namespace cb::gen

#endif  // CB_GENERATORS_PROTEINS_H_
