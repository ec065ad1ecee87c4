// File: suites/odeformer/ode_lm.cpp
// -----------------------------------------------------------------------------
// OdeLm: the fp64 reference behind the trainer's fp32 interface (ode_lm.h).
#include "suites/odeformer/ode_lm.h"

#include <stdexcept>
#include <string>

#include "harness/parallel.h"

namespace cb::odeformer {

namespace ro = cb::ref::odeformer;

OdeLm::OdeLm(const ro::OdeConfig& config, const ro::OdeParams& params) : config_(config) {
  ro::OdeParams p = params;
  size_t offset = 0;
  for (const ro::ParamView& v : ro::ListParams(p)) {
    slots_.push_back({v.name, v.shape, offset, v.data->size()});
    for (double x : *v.data) params_.push_back(static_cast<float>(x));
    offset += v.data->size();
  }
  Model();  // validates the shapes
}

ro::OdeTransformer OdeLm::Model() const {
  ro::OdeParams p = ro::ZeroParams(config_);
  const size_t want = size_t(ro::CountParams(config_));
  if (params_.size() != want)
    throw std::invalid_argument("odeformer: " + std::to_string(params_.size()) +
                                " parameter values for a model of " + std::to_string(want));
  size_t i = 0;
  for (const ro::ParamView& v : ro::ListParams(p))
    for (double& x : *v.data) x = params_[i++];
  return ro::OdeTransformer(config_, std::move(p));
}

namespace {

// Row r of the batch as seq + 1 tokens (its tokens, then its last target).
std::vector<int> Row(const lm_suite::Batch& b, int r) {
  for (int t = 0; t < b.seq; ++t)
    if (b.weights[size_t(r) * b.seq + t] != 1.0f)
      throw std::invalid_argument("odeformer: batches must weight every position 1");
  std::vector<int> row(b.tokens.begin() + size_t(r) * b.seq, b.tokens.begin() + size_t(r + 1) * b.seq);
  row.push_back(b.targets[size_t(r) * b.seq + b.seq - 1]);
  return row;
}

}  // namespace

double OdeLm::LossAndGrad(const lm_suite::Batch& batch, std::span<float> grad) const {
  const ro::OdeTransformer model = Model();
  std::vector<double> losses(batch.batch);
  std::vector<std::vector<double>> grads(batch.batch);
  harness::ParallelFor(batch.batch, harness::HardwareThreads(), [&](int, int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      ro::OdeParams g;
      losses[r] = model.LossAndGrad(Row(batch, int(r)), g);
      for (const ro::ParamView& v : ro::ListParams(g))
        grads[r].insert(grads[r].end(), v.data->begin(), v.data->end());
    }
  });
  double loss = 0;
  for (size_t i = 0; i < grad.size(); ++i) {
    double s = 0;
    for (int r = 0; r < batch.batch; ++r) s += grads[r][i];  // in row order: deterministic
    grad[i] = static_cast<float>(s / batch.batch);
  }
  for (double l : losses) loss += l;
  return loss / batch.batch;
}

double OdeLm::Loss(const lm_suite::Batch& batch) const {
  const ro::OdeTransformer model = Model();
  std::vector<double> losses(batch.batch);
  harness::ParallelFor(batch.batch, harness::HardwareThreads(), [&](int, int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) losses[r] = model.Loss(Row(batch, int(r)), eval_steps_);
  });
  double loss = 0;
  for (double l : losses) loss += l;
  return loss / batch.batch;
}

}  // namespace cb::odeformer
