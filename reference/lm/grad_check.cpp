// File: reference/lm/grad_check.cpp
// -----------------------------------------------------------------------------
// Five-point finite-difference gradient check (grad_check.h).
#include "reference/lm/grad_check.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace cb::ref::lm {

GradCheckReport CheckGradients(const Transformer& model, const NamedTensors& grads,
                               const std::function<double(const Transformer&)>& loss,
                               double step) {
  if (!(step > 0)) throw std::invalid_argument("CheckGradients: step must be > 0");
  NamedTensors w = model.ToNamedTensors();
  if (grads.size() != w.size())
    throw std::invalid_argument("CheckGradients: " + std::to_string(grads.size()) +
                                " gradient tensors for " + std::to_string(w.size()) + " weights");
  GradCheckReport report;
  auto eval = [&]() {
    ++report.loss_evaluations;
    return loss(Transformer(model.config(), w, model.arch()));
  };
  for (auto& [name, tensor] : w) {
    auto it = grads.find(name);
    if (it == grads.end() || it->second.shape != tensor.shape ||
        it->second.data.size() != tensor.data.size())
      throw std::invalid_argument("CheckGradients: gradient " + name +
                                  " missing or not shaped like its weight");
    const std::vector<double>& g = it->second.data;
    TensorGradError e;
    e.name = name;
    e.size = static_cast<int64_t>(tensor.data.size());
    for (size_t i = 0; i < tensor.data.size(); ++i) {
      const double w0 = tensor.data[i];
      auto at = [&](double delta) {
        tensor.data[i] = w0 + delta;
        const double l = eval();
        tensor.data[i] = w0;
        return l;
      };
      const double d1 = (at(step) - at(-step)) / (2 * step);          // D(h)
      const double d2 = (at(2 * step) - at(-2 * step)) / (4 * step);  // D(2h)
      const double fd = (4 * d1 - d2) / 3;
      // A NaN anywhere counts as an infinite error, never as a pass.
      double diff = std::abs(g[i] - fd);
      if (std::isnan(diff)) diff = INFINITY;
      if (diff > e.max_abs_diff) {
        e.max_abs_diff = diff;
        e.worst_index = static_cast<int64_t>(i);
      }
      e.max_abs_fd = std::max(e.max_abs_fd, std::abs(fd));
    }
    e.rel_error = e.max_abs_diff / std::max(e.max_abs_fd, 1e-8);
    if (e.rel_error >= report.max_rel_error) {
      report.max_rel_error = e.rel_error;
      report.worst_tensor = name;
    }
    report.tensors.push_back(e);
  }
  return report;
}

}  // namespace cb::ref::lm
