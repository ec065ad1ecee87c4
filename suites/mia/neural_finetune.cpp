// File: suites/mia/neural_finetune.cpp
// FSD's LoRA fine-tuning on a substrate transformer (neural_finetune.h).
#include "suites/mia/neural_finetune.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "harness/interrupt.h"

namespace cb::mia {

namespace ls = cb::lm_suite;

ls::CpuTransformer FineTuneLora(const ls::CpuTransformer& base, const std::vector<std::vector<int>>& texts,
                                const FsdFineTuneOptions& o, FsdFineTuneReport* report) {
  if (o.epochs <= 0 || o.batch < 1 || o.seq < 1)
    throw std::invalid_argument("fsd fine-tune: epochs must be > 0, batch and seq >= 1");
  std::vector<int> stream;
  for (const auto& t : texts) stream.insert(stream.end(), t.begin(), t.end());
  // A window is seq + 1 tokens; keep at least two start positions.
  const int seq = std::min({o.seq, static_cast<int>(stream.size()) - 2,
                            base.config().max_position_embeddings});
  if (seq < 1)
    throw std::invalid_argument("fsd fine-tune: the fine-tuning texts hold " + std::to_string(stream.size()) +
                                " tokens, fewer than 3");
  ls::TrainOptions t;
  t.batch = o.batch;
  t.seq = seq;
  t.steps = std::max(1, static_cast<int>(std::ceil(o.epochs * double(stream.size()) / (double(o.batch) * seq))));
  t.warmup = std::min(o.warmup, t.steps - 1);
  t.lr = o.lr;
  t.min_lr_ratio = 0.0;  // transformers' cosine schedule decays to 0
  t.weight_decay = o.weight_decay;
  t.beta1 = 0.9;
  t.beta2 = 0.999;
  t.eps = 1e-8;
  t.clip = 1.0;  // transformers' max_grad_norm default
  t.seed = o.seed;
  ls::CpuTransformer tuned = base;
  ls::LoraAdapters lora(tuned, o.lora, o.seed);
  ls::Trainer trainer(tuned, stream, t, {}, &lora);
  const double before = trainer.Evaluate(stream, 8, 12345);  // B = 0: the base model
  double first = 0, last = 0;
  trainer.Run([&](const ls::StepReport& r) {
    if (r.step == 1) first = r.loss;
    last = r.loss;
    cb::harness::ThrowIfInterrupted("in the LoRA fine-tune, at step " + std::to_string(r.step) + " of " +
                                    std::to_string(t.steps));  // the check point: one per step
  });
  const double after = trainer.Evaluate(stream, 8, 12345);
  if (report)
    *report = {t.steps, first, last, before, after, static_cast<int64_t>(stream.size()), lora.num_params()};
  return tuned;
}

}  // namespace cb::mia
