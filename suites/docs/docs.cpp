// File: suites/docs/docs.cpp
// Input checks and backend dispatch of suites/docs/docs.h.
#include "suites/docs/docs.h"
#include "suites/docs/docs_cuda.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace cb::docs {
namespace {

namespace h = cb::harness;

std::string Shape(const MatrixView& a) {
  return std::to_string(a.rows) + "x" + std::to_string(a.cols);
}

}  // namespace

void CheckDocsShape(const MatrixView& a) {
  if (a.rows <= 0 || a.cols <= 0 || a.data == nullptr) {
    throw std::invalid_argument("DOCS: matrix " + a.name + " is empty (" + Shape(a) + ")");
  }
  if (a.rows > INT_MAX || a.cols > INT_MAX) {
    throw std::invalid_argument("DOCS: matrix " + a.name + " (" + Shape(a) +
                                ") has a dimension above INT_MAX");
  }
}

// One pass over a (rows, cols): the first non-finite entry, then the first
// all-zero column.
void CheckDocsValues(const MatrixView& a) {
  std::vector<char> nonzero(static_cast<size_t>(a.cols), 0);
  for (int64_t r = 0; r < a.rows; ++r) {
    const float* row = a.data + r * a.cols;
    for (int64_t c = 0; c < a.cols; ++c) {
      if (!std::isfinite(row[c])) {
        throw std::invalid_argument("DOCS: matrix " + a.name + " has a non-finite entry at row " +
                                    std::to_string(r) + ", column " + std::to_string(c));
      }
      nonzero[c] |= row[c] != 0.0f;
    }
  }
  for (int64_t c = 0; c < a.cols; ++c) {
    if (!nonzero[c]) {
      throw std::invalid_argument("DOCS: matrix " + a.name + " has an all-zero column " +
                                  std::to_string(c) + " (its cosine is undefined)");
    }
  }
}

void CheckDocsRows(const MatrixView& x, const MatrixView& y) {
  if (x.rows != y.rows) {
    throw std::invalid_argument("DOCS: " + x.name + " (" + Shape(x) + ") and " + y.name + " (" +
                                Shape(y) + ") have different row counts");
  }
}

void CheckDocsInput(const MatrixView& x, const MatrixView& y) {
  CheckDocsShape(x);
  CheckDocsValues(x);
  CheckDocsShape(y);
  CheckDocsValues(y);
  CheckDocsRows(x, y);
}

int64_t CpuBlockRows(int64_t n2) {
  constexpr int64_t kBlockFloats = (16 << 20) / sizeof(float);
  return std::max<int64_t>(1, kBlockFloats / std::max<int64_t>(1, n2));
}

cb::ref::docs::AbsMaxima AbsMaxima(h::Backend backend, const MatrixView& x, const MatrixView& y) {
  h::RequireAvailable(backend);
  if (backend == h::Backend::kCpu) return AbsMaximaCpu(x, y);  // checks as it reads
  CheckDocsInput(x, y);
#if CB_HAVE_CUDA
  return AbsMaximaCuda(x, y);
#else
  throw std::logic_error("unreachable: cuda is available in a build without CUDA");
#endif
}

cb::ref::docs::DocsResult Docs(h::Backend backend, const MatrixView& x, const MatrixView& y) {
  cb::ref::docs::AbsMaxima maxima = AbsMaxima(backend, x, y);
  const auto fit_x = cb::ref::docs::GumbelFit(maxima.s_x);
  const auto fit_y = cb::ref::docs::GumbelFit(maxima.s_y);
  cb::ref::docs::DocsResult r;
  r.s_x = std::move(maxima.s_x);
  r.s_y = std::move(maxima.s_y);
  r.u_x = fit_x.location;
  r.beta_x = fit_x.scale;
  r.u_y = fit_y.location;
  r.beta_y = fit_y.scale;
  r.score = (r.u_x + r.u_y) / 2;
  return r;
}

}  // namespace cb::docs
