// File: generators/proteins.cpp
#include "generators/proteins.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "harness/hash.h"
#include "harness/interrupt.h"
#include "harness/random.h"
#include "reference/protparam/tables.h"

namespace cb::gen {
namespace {

namespace h = cb::harness;
using ref::protparam::kStandardResidues;
using ref::protparam::StandardIndex;

// Per-residue factors of a family's tilt; residues not named keep 1.
struct Tilt {
  std::string_view residues;
  double factor;
};

std::vector<Tilt> FamilyTilts(int family) {
  switch (family) {
    case 0: return {};
    case 1: return {{"LIVFAMW", 2.2}, {"DEKRNQH", 0.3}};
    case 2: return {{"DE", 3.0}, {"KR", 0.5}};
    case 3: return {{"KR", 3.0}, {"DE", 0.5}};
    case 4: return {{"C", 6.0}, {"WY", 2.5}};
    case 5: return {{"PSEQGK", 2.5}, {"WCFILVY", 0.3}};
  }
  throw std::invalid_argument("no protein family " + std::to_string(family));
}

char Draw(const Composition& p, h::Rng& rng) {
  double u = rng.Uniform(), acc = 0.0;
  for (int a = 0; a < 20; ++a) {
    acc += p[a];
    if (u < acc) return kStandardResidues[a];
  }
  return kStandardResidues[19];  // u within rounding of 1
}

}  // namespace

const Composition& SwissProtComposition() {
  // UniProtKB/Swiss-Prot release statistics, amino-acid composition (%), in
  // A C D E F G H I K L M N P Q R S T V W Y order.
  static const Composition kComposition = [] {
    Composition c = {8.25, 1.38, 5.46, 6.72, 3.86, 7.07, 2.27, 5.91, 5.80, 9.65,
                     2.41, 4.06, 4.74, 3.93, 5.53, 6.64, 5.35, 6.86, 1.10, 2.92};
    double sum = 0.0;
    for (double x : c) sum += x;
    for (double& x : c) x /= sum;
    return c;
  }();
  return kComposition;
}

Composition FamilyComposition(int family) {
  Composition c = SwissProtComposition();
  for (const Tilt& t : FamilyTilts(family)) {
    for (char r : t.residues) c[*StandardIndex(r)] *= t.factor;
  }
  double sum = 0.0;
  for (double x : c) sum += x;
  for (double& x : c) x /= sum;
  return c;
}

ProteinSet MakeProteins(const ProteinParams& p) {
  if (p.count < 1) throw std::invalid_argument("proteins: count must be >= 1");
  if (p.min_length < 10) throw std::invalid_argument("proteins: min_length must be >= 10");
  if (p.max_length < p.min_length) throw std::invalid_argument("proteins: max_length must be >= min_length");
  if (p.median_length < p.min_length || p.median_length > p.max_length)
    throw std::invalid_argument("proteins: median_length must lie in [min_length, max_length]");
  ProteinSet set;
  set.params = p;
  std::array<Composition, kNumProteinFamilies> comp;
  std::array<std::array<double, 2>, kNumProteinFamilies> home{};
  for (int f = 0; f < kNumProteinFamilies; ++f) {
    comp[f] = FamilyComposition(f);
    h::Rng rng(p.seed, (uint64_t{1} << 40) | static_cast<uint64_t>(f));
    for (int m = 0; m < 2; ++m) {
      const int len = static_cast<int>(rng.UniformInt(5, 8));
      for (int i = 0; i < len; ++i) set.motifs[f][m] += Draw(comp[f], rng);
      home[f][m] = 0.1 + 0.8 * rng.Uniform();
    }
  }
  h::Hasher hasher;
  hasher.Update(std::string(kProteinsName) + ";v=" + std::to_string(kProteinsVersion) +
                ";seed=" + std::to_string(p.seed) + ";count=" + std::to_string(p.count) +
                ";min=" + std::to_string(p.min_length) + ";max=" + std::to_string(p.max_length) +
                ";median=" + std::to_string(p.median_length) + "\n");
  for (int i = 0; i < p.count; ++i) {
    h::ThrowIfInterrupted();
    h::Rng rng(p.seed, static_cast<uint64_t>(i));
    Protein prot;
    prot.family = i % kNumProteinFamilies;
    prot.id = std::string(kProteinFamilies[prot.family]) + "_" + std::to_string(i);
    const double draw = std::exp(std::log(static_cast<double>(p.median_length)) + 0.35 * rng.Normal());
    const int len = std::clamp(static_cast<int>(std::lround(draw)), p.min_length, p.max_length);
    prot.sequence = "M";
    while (static_cast<int>(prot.sequence.size()) < len) prot.sequence += Draw(comp[prot.family], rng);
    int taken_begin = 0, taken_end = 0;  // the first written motif's span, so the second cannot overwrite it
    for (int m = 0; m < 2; ++m) {
      const bool write = rng.Uniform() < 0.8;
      const double shift = (2.0 * rng.Uniform() - 1.0) / 20.0;  // drawn either way: streams stay aligned
      const int size = static_cast<int>(set.motifs[prot.family][m].size());
      if (!write || size >= len) continue;
      int at = std::clamp(static_cast<int>(std::lround((home[prot.family][m] + shift) * len)), 1, len - size);
      if (at < taken_end && at + size > taken_begin) at = taken_end;  // overlap: right after the first
      if (at + size > len) continue;
      prot.sequence.replace(static_cast<size_t>(at), static_cast<size_t>(size), set.motifs[prot.family][m]);
      taken_begin = at;
      taken_end = at + size;
      prot.motif_at[m] = at;
      ++prot.motifs;
    }
    hasher.Update(prot.id + "\t" + prot.sequence + "\n");
    set.proteins.push_back(std::move(prot));
  }
  set.content_hash = hasher.Digest().Hex();
  return set;
}

std::string ProteinsFasta(const ProteinSet& set) {
  std::string out;
  for (const Protein& p : set.proteins) {
    out += ">" + p.id + " family=" + std::string(kProteinFamilies[p.family]) + " motifs=" + std::to_string(p.motifs) +
           "\n";
    for (size_t i = 0; i < p.sequence.size(); i += 60) out += p.sequence.substr(i, 60) + "\n";
  }
  return out;
}

}  // namespace cb::gen
