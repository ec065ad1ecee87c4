// File: reference/medrega/hungarian.h
// -----------------------------------------------------------------------------
// Minimum-cost assignment on a rectangular cost matrix (what the MedRegA
// scorers get from scipy.optimize.linear_sum_assignment on 1 - IoU), our own
// O(n^2 m) shortest-augmenting-path Hungarian method with potentials, and a
// brute-force reference for tests and the claim that they agree.
//
// Contract: cost is rows x cols (row-major, every row the same length), finite;
// the result pairs each of the min(rows, cols) rows or columns once, sorted by
// row as scipy's row_ind is. On ties in the total cost any optimal assignment
// may come back, and it can differ from scipy's choice (a divergence only when
// two assignments cost exactly the same).
#ifndef CB_REFERENCE_MEDREGA_HUNGARIAN_H_
#define CB_REFERENCE_MEDREGA_HUNGARIAN_H_

#include <utility>
#include <vector>

namespace cb::ref::medrega {

using CostMatrix = std::vector<std::vector<double>>;  // [rows][cols]
using Assignment = std::vector<std::pair<int, int>>;  // (row, col), rows ascending

// Throws std::invalid_argument on a ragged or non-finite matrix (scipy raises
// ValueError on NaN or inf entries).
Assignment SolveAssignment(const CostMatrix& cost);

// Every injective map of the smaller side into the larger; the least total.
// rows, cols <= 8.
double BruteForceMinCost(const CostMatrix& cost);

double AssignmentCost(const CostMatrix& cost, const Assignment& a);

}  // namespace cb::ref::medrega

#endif  // CB_REFERENCE_MEDREGA_HUNGARIAN_H_
