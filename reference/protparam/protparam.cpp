// File: reference/protparam/protparam.cpp
// -----------------------------------------------------------------------------
// Each function follows its Biopython 1.84 method line by line (Bio/SeqUtils/
// ProtParam.py, IsoelectricPoint.py, SeqUtils/__init__.py molecular_weight),
// summing in the same order so the doubles agree to the last bits.
#include "reference/protparam/protparam.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <tuple>

#include "reference/protparam/tables.h"

namespace cb::ref::protparam {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void RequireNonEmpty(std::string_view seq, const char* what) {
  if (seq.empty()) throw std::invalid_argument(std::string(what) + ": empty sequence");
}

std::string Quoted(char c) { return std::string("'") + c + "'"; }

// count_amino_acids(): occurrences of each standard residue.
std::array<int64_t, kNumStandard> Counts(std::string_view seq) {
  std::array<int64_t, kNumStandard> n{};
  for (char c : seq) {
    if (const auto i = StandardIndex(c)) ++n[*i];
  }
  return n;
}

int64_t CountOf(const std::array<int64_t, kNumStandard>& n, char c) { return n[*StandardIndex(c)]; }

// sum(count[r] / L for r in letters), left to right from 0 as Python's sum().
double FractionSum(const std::array<int64_t, kNumStandard>& n, double length, std::string_view letters) {
  double sum = 0.0;
  for (char r : letters) sum += static_cast<double>(CountOf(n, r)) / length;
  return sum;
}

// Python's str.isspace() on ASCII, as str.split() uses it.
bool IsPythonSpace(char c) { return c == ' ' || (c >= '\t' && c <= '\r') || (c >= '\x1c' && c <= '\x1f'); }

double AverageOver(std::string_view seq, const std::array<double, kNumStandard>& table) {
  double sum = 0.0;
  for (char c : seq) {
    if (const auto i = StandardIndex(c)) sum += table[*i];  // else lookup.get(aa, 0.0)
  }
  return sum / static_cast<double>(seq.size());
}

}  // namespace

const std::array<std::string_view, kNumConcepts>& ConceptNames() {
  static const std::array<std::string_view, kNumConcepts> kNames = {
      "molecular_weight",       "aromaticity",
      "instability_index",      "isoelectric_point",
      "gravy",                  "charge_at_pH6",
      "charge_at_pH7",          "helix_fraction",
      "turn_structure_fraction", "sheet_structure_fraction",
      "molar_extinction_coefficient_reduced", "molar_extinction_coefficient_oxidized",
      "avg_hydrophilicity",     "avg_surface_accessibility"};
  return kNames;
}

const char* SecondaryStructureName(SecondaryStructure s) {
  return s == SecondaryStructure::kBiopython182 ? "biopython-1.82" : "biopython-1.81";
}

SecondaryStructure ParseSecondaryStructure(std::string_view name) {
  if (name == "biopython-1.82") return SecondaryStructure::kBiopython182;
  if (name == "biopython-1.81") return SecondaryStructure::kBiopython181;
  throw std::invalid_argument("unknown secondary-structure convention '" + std::string(name) +
                              "' (biopython-1.82 or biopython-1.81)");
}

double MolecularWeight(std::string_view seq) {
  // seq = "".join(str(seq).split()).upper(); the caller upper-cased already.
  std::string kept;
  for (char c : seq) {
    if (!IsPythonSpace(c)) kept += c;
  }
  double sum = 0.0;
  for (char c : kept) {
    const auto mass = AverageResidueMass(c);
    if (!mass) throw std::invalid_argument(Quoted(c) + " is not a valid unambiguous letter for protein");
    sum += *mass;
  }
  // Biopython has no check for an all-whitespace sequence: -(0 - 1) * water.
  return sum - static_cast<double>(static_cast<int64_t>(kept.size()) - 1) * kAverageWaterMass;
}

double Aromaticity(std::string_view seq) {
  RequireNonEmpty(seq, "aromaticity");
  return FractionSum(Counts(seq), static_cast<double>(seq.size()), "YWF");
}

double InstabilityIndex(std::string_view seq) {
  RequireNonEmpty(seq, "instability_index");
  double score = 0.0;
  for (size_t i = 0; i + 1 < seq.size(); ++i) {
    const auto a = StandardIndex(seq[i]);
    if (!a) throw std::invalid_argument("no dipeptide instability weight for " + Quoted(seq[i]));
    const auto b = StandardIndex(seq[i + 1]);
    if (!b) throw std::invalid_argument("no dipeptide instability weight for " + Quoted(seq[i + 1]));
    score += kDiwv[*a][*b];
  }
  return (10.0 / static_cast<double>(seq.size())) * score;
}

double Gravy(std::string_view seq) {
  RequireNonEmpty(seq, "gravy");
  double total = 0.0;
  for (char c : seq) {
    const auto i = StandardIndex(c);
    if (!i) throw std::invalid_argument("no Kyte-Doolittle value for " + Quoted(c));
    total += kKyteDoolittle[*i];
  }
  return total / static_cast<double>(seq.size());
}

double ChargeAtPH(std::string_view seq, double ph) {
  RequireNonEmpty(seq, "charge_at_pH");
  const auto n = Counts(seq);
  // positive_pKs / negative_pKs in their dict order, the termini first, with
  // the terminal residue's override (pKnterminal, pKcterminal).
  double nterm = 7.5, cterm = 3.55;
  switch (seq.front()) {
    case 'A': nterm = 7.59; break;
    case 'M': nterm = 7.0; break;
    case 'S': nterm = 6.93; break;
    case 'P': nterm = 8.36; break;
    case 'T': nterm = 6.82; break;
    case 'V': nterm = 7.44; break;
    case 'E': nterm = 7.7; break;
    default: break;
  }
  if (seq.back() == 'D') cterm = 4.55;
  if (seq.back() == 'E') cterm = 4.75;
  struct Group {
    double count, pk;
  };
  const Group positive[] = {{1.0, nterm},
                            {static_cast<double>(CountOf(n, 'K')), 10.0},
                            {static_cast<double>(CountOf(n, 'R')), 12.0},
                            {static_cast<double>(CountOf(n, 'H')), 5.98}};
  const Group negative[] = {{1.0, cterm},
                            {static_cast<double>(CountOf(n, 'D')), 4.05},
                            {static_cast<double>(CountOf(n, 'E')), 4.45},
                            {static_cast<double>(CountOf(n, 'C')), 9.0},
                            {static_cast<double>(CountOf(n, 'Y')), 10.0}};
  double pos = 0.0, neg = 0.0;
  for (const Group& g : positive) pos += g.count * (1.0 / (std::pow(10.0, ph - g.pk) + 1.0));
  for (const Group& g : negative) neg += g.count * (1.0 / (std::pow(10.0, g.pk - ph) + 1.0));
  return pos - neg;
}

double IsoelectricPoint(std::string_view seq) {
  RequireNonEmpty(seq, "isoelectric_point");
  double ph = 7.775, lo = 4.05, hi = 12.0;
  // IsoelectricPoint.pi() recurses; this is its loop form.
  while (hi - lo > 0.0001) {
    if (ChargeAtPH(seq, ph) > 0.0) lo = ph;
    else hi = ph;
    ph = (lo + hi) / 2;
  }
  return ph;
}

std::array<double, 3> SecondaryStructureFraction(std::string_view seq, SecondaryStructure convention) {
  RequireNonEmpty(seq, "secondary_structure_fraction");
  const auto n = Counts(seq);
  const double length = static_cast<double>(seq.size());
  if (convention == SecondaryStructure::kBiopython182) {
    return {FractionSum(n, length, "EMALK"), FractionSum(n, length, "NPGSD"), FractionSum(n, length, "VIYFWLT")};
  }
  return {FractionSum(n, length, "VIYFWL"), FractionSum(n, length, "NPGS"), FractionSum(n, length, "EMAL")};
}

std::array<int64_t, 2> MolarExtinctionCoefficient(std::string_view seq) {
  const auto n = Counts(seq);
  const int64_t reduced = CountOf(n, 'W') * 5500 + CountOf(n, 'Y') * 1490;
  return {reduced, reduced + (CountOf(n, 'C') / 2) * 125};
}

double AverageHydrophilicity(std::string_view seq) {
  RequireNonEmpty(seq, "avg_hydrophilicity");
  return AverageOver(seq, kHoppWoods);
}

double AverageSurfaceAccessibility(std::string_view seq) {
  RequireNonEmpty(seq, "avg_surface_accessibility");
  return AverageOver(seq, kEmini);
}

ConceptValues ComputeConcepts(std::string_view sequence, SecondaryStructure convention) {
  RequireNonEmpty(sequence, "concepts");
  std::string upper(sequence);
  for (char& c : upper) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  ConceptValues out;
  out.value.fill(kNaN);
  // Runs one descriptor into concept slots [first, first + values.size()).
  auto put = [&](int first, auto compute) {
    try {
      const auto values = compute();
      for (size_t k = 0; k < values.size(); ++k) out.value[first + k] = static_cast<double>(values[k]);
    } catch (const std::invalid_argument& e) {
      for (size_t k = 0; k < std::tuple_size_v<decltype(compute())>; ++k) out.error[first + k] = e.what();
    }
  };
  put(0, [&] { return std::array<double, 1>{MolecularWeight(upper)}; });
  put(1, [&] { return std::array<double, 1>{Aromaticity(upper)}; });
  put(2, [&] { return std::array<double, 1>{InstabilityIndex(upper)}; });
  put(3, [&] { return std::array<double, 1>{IsoelectricPoint(upper)}; });
  put(4, [&] { return std::array<double, 1>{Gravy(upper)}; });
  put(5, [&] { return std::array<double, 1>{ChargeAtPH(upper, 6)}; });
  put(6, [&] { return std::array<double, 1>{ChargeAtPH(upper, 7)}; });
  put(7, [&] { return SecondaryStructureFraction(upper, convention); });
  put(10, [&] { return MolarExtinctionCoefficient(upper); });
  // lobster's own two read the sequence as given, not upper-cased.
  put(12, [&] { return std::array<double, 1>{AverageHydrophilicity(sequence)}; });
  put(13, [&] { return std::array<double, 1>{AverageSurfaceAccessibility(sequence)}; });
  return out;
}

std::string LobsterSequence(std::string_view text, size_t max_length) {
  static constexpr std::string_view kAlphabet = "ARNDCEQGHILKMFPSTWYV.-";
  std::string out;
  for (char c : text) {
    if (IsPythonSpace(c)) continue;
    out += kAlphabet.find(c) == std::string_view::npos ? 'A' : c;
    if (out.size() == max_length) break;
  }
  return out;
}

const std::array<Bounds, kNumConcepts>& LobsterBounds() {
  static const std::array<Bounds, kNumConcepts> kBounds = {{{260, 83158},
                                                            {0, 1},
                                                            {-101, 566},
                                                            {4, 12},
                                                            {-4.5, 4.5},
                                                            {-500, 512},
                                                            {-510, 512},
                                                            {0, 1},
                                                            {0, 1},
                                                            {0, 1},
                                                            {0, 1332490},
                                                            {0, 1332490},
                                                            {-3, 3},
                                                            {0.39, 1.55}}};
  return kBounds;
}

double LobsterNormalize(double v, int index) {
  if (index < 0 || index >= kNumConcepts) throw std::invalid_argument("LobsterNormalize: no such concept");
  const Bounds b = LobsterBounds()[index];
  return (v - b.min) / (b.max - b.min);
}

std::vector<double> LobsterConceptVector(const ConceptValues& c) {
  std::vector<double> v;
  for (int k = 0; k < kNumConcepts; ++k) {
    if (c.error[k].empty()) v.push_back(LobsterNormalize(c.value[k], k));
  }
  return v;
}

}  // namespace cb::ref::protparam
