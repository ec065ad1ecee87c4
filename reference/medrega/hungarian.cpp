// File: reference/medrega/hungarian.cpp
// Min-cost rectangular assignment; see hungarian.h.
#include "reference/medrega/hungarian.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace cb::ref::medrega {
namespace {

// n <= m: assigns every row. Potentials u (rows), v (cols); 1-based with a
// virtual column 0, the classic shortest augmenting path formulation.
std::vector<int> AssignRows(const CostMatrix& a, int n, int m) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> u(n + 1, 0), v(m + 1, 0);
  std::vector<int> p(m + 1, 0), way(m + 1, 0);  // p[j]: row matched to column j
  for (int i = 1; i <= n; ++i) {
    p[0] = i;
    int j0 = 0;
    std::vector<double> minv(m + 1, inf);
    std::vector<char> used(m + 1, 0);
    do {
      used[j0] = 1;
      const int i0 = p[j0];
      double delta = inf;
      int j1 = 0;
      for (int j = 1; j <= m; ++j) {
        if (used[j]) continue;
        const double cur = a[i0 - 1][j - 1] - u[i0] - v[j];
        if (cur < minv[j]) {
          minv[j] = cur;
          way[j] = j0;
        }
        if (minv[j] < delta) {
          delta = minv[j];
          j1 = j;
        }
      }
      for (int j = 0; j <= m; ++j) {
        if (used[j]) {
          u[p[j]] += delta;
          v[j] -= delta;
        } else {
          minv[j] -= delta;
        }
      }
      j0 = j1;
    } while (p[j0] != 0);
    do {  // augment along the path
      const int j1 = way[j0];
      p[j0] = p[j1];
      j0 = j1;
    } while (j0 != 0);
  }
  std::vector<int> col_of_row(n, -1);
  for (int j = 1; j <= m; ++j)
    if (p[j] != 0) col_of_row[p[j] - 1] = j - 1;
  return col_of_row;
}

void Check(const CostMatrix& cost) {
  const size_t cols = cost.empty() ? 0 : cost[0].size();
  for (const auto& row : cost) {
    if (row.size() != cols) throw std::invalid_argument("cost matrix rows differ in length");
    for (double x : row)
      if (!std::isfinite(x)) throw std::invalid_argument("cost matrix contains invalid numeric entries");
  }
}

}  // namespace

Assignment SolveAssignment(const CostMatrix& cost) {
  Check(cost);
  const int rows = static_cast<int>(cost.size()), cols = rows ? static_cast<int>(cost[0].size()) : 0;
  Assignment out;
  if (rows == 0 || cols == 0) return out;
  if (rows <= cols) {
    const auto c = AssignRows(cost, rows, cols);
    for (int i = 0; i < rows; ++i) out.emplace_back(i, c[i]);
  } else {
    CostMatrix t(cols, std::vector<double>(rows));
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < cols; ++j) t[j][i] = cost[i][j];
    const auto r = AssignRows(t, cols, rows);
    for (int j = 0; j < cols; ++j) out.emplace_back(r[j], j);
    std::sort(out.begin(), out.end());
  }
  return out;
}

double AssignmentCost(const CostMatrix& cost, const Assignment& a) {
  double s = 0;
  for (const auto& [r, c] : a) s += cost[r][c];
  return s;
}

double BruteForceMinCost(const CostMatrix& cost) {
  Check(cost);
  const int rows = static_cast<int>(cost.size()), cols = rows ? static_cast<int>(cost[0].size()) : 0;
  if (rows == 0 || cols == 0) return 0;
  if (rows > 8 || cols > 8) throw std::invalid_argument("BruteForceMinCost: at most 8 x 8");
  const bool by_row = rows <= cols;
  const int small = by_row ? rows : cols, large = by_row ? cols : rows;
  // Every ordered choice of `small` distinct indices out of `large`: permute
  // all `large` and read the first `small` (each prefix repeats, harmlessly).
  std::vector<int> perm(large);
  std::iota(perm.begin(), perm.end(), 0);
  double best = std::numeric_limits<double>::infinity();
  do {
    double s = 0;
    for (int k = 0; k < small; ++k) s += by_row ? cost[k][perm[k]] : cost[perm[k]][k];
    best = std::min(best, s);
  } while (std::next_permutation(perm.begin(), perm.end()));
  return best;
}

}  // namespace cb::ref::medrega
