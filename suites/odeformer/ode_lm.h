// File: suites/odeformer/ode_lm.h
// -----------------------------------------------------------------------------
// The neural-ODE transformer as something the substrate's trainer
// (suites/lm/trainer.h) trains: fp32 master weights in one flat buffer (the
// tensors in reference/odeformer's ListParams order), and the batch loss and
// gradient from the fp64 reference, one sequence per worker thread. There is
// no separate fast path: at the sizes trained here (d = 32) the reference is
// the cost, and training it directly keeps the trained model and the spec
// the same code.
//
// A batch row's loss is the reference's next-token loss of the row's tokens
// followed by its last target (so every one of its `seq` targets is scored
// once, as the trainer's batch says); rows' losses are averaged.
//
// Usage:
//   OdeLm lm(config, ref::odeformer::RandomParams(config, seed));
//   lm_suite::Trainer trainer(lm, stream, options);
//   trainer.Run(...);
//   lm.set_eval_steps(8);  lm.Loss(batch);   // inference at another step count
#ifndef CB_SUITES_ODEFORMER_ODE_LM_H_
#define CB_SUITES_ODEFORMER_ODE_LM_H_

#include <span>
#include <vector>

#include "reference/odeformer/odeformer.h"
#include "suites/lm/trainer.h"

namespace cb::odeformer {

class OdeLm : public lm_suite::TrainableModel {
 public:
  OdeLm(const ref::odeformer::OdeConfig& config, const ref::odeformer::OdeParams& params);

  std::vector<float>& params() override { return params_; }
  const std::vector<lm_suite::ParamSlot>& slots() const override { return slots_; }
  double LossAndGrad(const lm_suite::Batch& batch, std::span<float> grad) const override;
  double Loss(const lm_suite::Batch& batch) const override;

  // The Euler steps Loss() integrates with (0: the config's, as trained).
  void set_eval_steps(int steps) { eval_steps_ = steps; }
  // The current weights as an fp64 reference model.
  ref::odeformer::OdeTransformer Model() const;
  const ref::odeformer::OdeConfig& config() const { return config_; }

 private:
  ref::odeformer::OdeConfig config_;
  std::vector<float> params_;
  std::vector<lm_suite::ParamSlot> slots_;
  int eval_steps_ = 0;
};

}  // namespace cb::odeformer

#endif  // CB_SUITES_ODEFORMER_ODE_LM_H_
