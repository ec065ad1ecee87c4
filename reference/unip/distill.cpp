// File: reference/unip/distill.cpp
#include "reference/unip/distill.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace cb::ref::unip {
namespace {

// log_softmax of one row, shifted by its maximum.
void LogSoftmax(const double* x, int k, double* out) {
  const double m = *std::max_element(x, x + k);
  double sum = 0.0;
  for (int j = 0; j < k; ++j) sum += std::exp(x[j] - m);
  const double lse = m + std::log(sum);
  for (int j = 0; j < k; ++j) out[j] = x[j] - lse;
}

}  // namespace

double AttentionKl(std::span<const double> student, std::span<const double> teacher, int k, std::span<double> grad) {
  if (k < 1 || student.size() != teacher.size() || student.size() % static_cast<size_t>(k) != 0 || student.empty())
    throw std::invalid_argument("AttentionKl: student and teacher must both be [rows, k]");
  if (!grad.empty() && grad.size() != student.size())
    throw std::invalid_argument("AttentionKl: the gradient buffer is not [rows, k]");
  for (size_t i = 0; i < student.size(); ++i) {
    if (!std::isfinite(student[i]) || !std::isfinite(teacher[i]))
      throw std::invalid_argument("AttentionKl: a logit is not finite");
  }
  const size_t rows = student.size() / k;
  std::vector<double> ls(k), lt(k);
  double total = 0.0;
  for (size_t r = 0; r < rows; ++r) {
    LogSoftmax(student.data() + r * k, k, ls.data());
    LogSoftmax(teacher.data() + r * k, k, lt.data());
    double kl = 0.0;
    for (int j = 0; j < k; ++j) kl += std::exp(lt[j]) * (lt[j] - ls[j]);
    total += kl;
    if (!grad.empty()) {
      for (int j = 0; j < k; ++j) grad[r * k + j] = (std::exp(ls[j]) - std::exp(lt[j])) / static_cast<double>(rows);
    }
  }
  return total / static_cast<double>(rows);
}

}  // namespace cb::ref::unip
