// File: reference/m3/psc.h
// -----------------------------------------------------------------------------
// Principal scene components (M3, Zou et al., ICLR 2025, Alg. 1): a greedy
// de-duplication of a scene's foundation-model feature vectors into the
// memory bank that Gaussian memory attention reads.
//
// As the authors' code does it (lmm/clip/fea2mem.py::filter_embeddings_efficient,
// MaureenZOU/m3-spatial@03fdfd6): rows are L2-normalised (no epsilon) and
// walked in order. For each row i not yet marked used, J = {j : cos(i, j) >= θ}
// (i itself included when its self-cosine reaches θ). If no member of J is
// marked used, i is selected and every member of J is marked used.
// Otherwise i is dropped, marked nothing, and represented by no selected row
// when none has cos >= θ with it: the "drop quirk" the paper's text does not
// describe. The result depends on the row order.
//
// fp64 throughout. The authors compute cos in fp32 (torch.mm), where a row's
// self-cosine can round below 1, so θ = 1 selects it without marking it
// used; SelfCosineBelowOneF32() counts such rows for a given order of
// summation (the README shows the effect; the selection here is fp64).
#ifndef CB_REFERENCE_M3_PSC_H_
#define CB_REFERENCE_M3_PSC_H_

#include <cstdint>
#include <functional>
#include <vector>

namespace cb::ref::m3 {

struct PscResult {
  std::vector<int> selected;       // row indices, ascending (the memory bank's rows)
  std::vector<int> dropped;        // rows skipped because a member of their J was used
  std::vector<int> unrepresented;  // rows with cos < θ to every selected row
};

// rows (n, d) row-major. REQUIRES (else std::invalid_argument): n >= 0,
// d >= 1, every row of non-zero norm (the code divides by the norm and would
// make the row NaN), θ finite. progress(i, n), when given, is called after
// each walked row (it may throw to abandon the walk).
PscResult PrincipalSceneComponents(const double* rows, int64_t n, int d, double theta,
                                   const std::function<void(int64_t, int64_t)>& progress = {});

// The rows, gathered: (selected.size(), d).
std::vector<double> GatherRows(const double* rows, int d, const std::vector<int>& indices);

// Rows whose fp32 self-dot of the fp32-normalised row, summed left to right,
// is below 1.0f.
int64_t SelfCosineBelowOneF32(const double* rows, int64_t n, int d);

}  // namespace cb::ref::m3

#endif  // CB_REFERENCE_M3_PSC_H_
