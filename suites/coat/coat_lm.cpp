// File: suites/coat/coat_lm.cpp
// -----------------------------------------------------------------------------
// COAT's FP8 optimizer states and saved activations on the substrate's
// transformer (coat_lm.h).
#include "suites/coat/coat_lm.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <string_view>

#include "reference/lm/transformer.h"
#include "suites/coat/coat.h"

namespace cb::coat {

namespace rc = cb::ref::coat;
namespace lm = cb::lm_suite;
using ref::fp8::Format;

// ---------------------------------------------------------------------------
// Optimizer states

CoatMomentStore::CoatMomentStore(const std::vector<lm::ParamSlot>& slots, rc::DreOptions options)
    : options_(options) {
  std::vector<std::pair<size_t, size_t>> seg;
  for (const lm::ParamSlot& s : slots) seg.emplace_back(s.offset, s.size);
  std::sort(seg.begin(), seg.end());
  size_t end = 0;
  for (const auto& [offset, size] : seg) {
    if (offset != end || size == 0)
      throw std::invalid_argument("coat moment store: parameter tensors do not tile the buffer at offset " +
                                  std::to_string(offset));
    end = offset + size;
  }
  segments_ = std::move(seg);
  total_ = static_cast<int64_t>(end);
}

void CoatMomentStore::Store(std::span<float> m, std::span<float> v) {
  if (static_cast<int64_t>(m.size()) != total_ || static_cast<int64_t>(v.size()) != total_)
    throw std::invalid_argument("coat moment store: moments of " + std::to_string(m.size()) + " and " +
                                std::to_string(v.size()) + " values for " + std::to_string(total_) +
                                " parameters");
  m_.resize(segments_.size());
  v_.resize(segments_.size());
  for (size_t i = 0; i < segments_.size(); ++i) {
    const auto [offset, size] = segments_[i];
    for (auto [x, store] : {std::pair{m.subspan(offset, size), &m_[i]}, std::pair{v.subspan(offset, size), &v_[i]}}) {
      *store = rc::DreQuantize(x, options_);  // the reference: bit-exact with the emulator
      rc::DreDequantizeInto(*store, x);
    }
  }
}

lm::MomentHook CoatMomentStore::Hook() {
  return [this](int, std::span<float> m, std::span<float> v) { Store(m, v); };
}

int64_t CoatMomentStore::StateBytes() const {
  int64_t bytes = 0;
  for (const auto* tensors : {&m_, &v_})
    for (const rc::DreTensor& t : *tensors)
      bytes += static_cast<int64_t>(t.codes.size() * sizeof(uint8_t) + t.groups.size() * sizeof(rc::DreGroup));
  return bytes;
}

// ---------------------------------------------------------------------------
// Saved activations

namespace {

constexpr int Index(lm::SavedRole r) { return static_cast<int>(r); }

}  // namespace

int64_t SavedBytes::Elements() const {
  int64_t n = 0;
  for (int64_t e : elements) n += e;
  return n;
}

// Both schemes keep p in bf16 (2 B) when it is counted; FlashAttention, which
// the paper runs, recomputes it in the backward pass instead of saving it.
int64_t SavedBytes::CoatBytes(bool with_attention_probs) const {
  int64_t b = 0;
  for (int64_t x : coat_bytes) b += x;
  return with_attention_probs ? b : b - 2 * attention_probs;
}

int64_t SavedBytes::Bf16Bytes(bool with_attention_probs) const {
  int64_t b = 0;
  for (int r = 0; r < kRoles; ++r) b += elements[r] * (r == Index(lm::SavedRole::kStatistic) ? 4 : 2);
  return with_attention_probs ? b : b - 2 * attention_probs;
}

int64_t SavedBytes::Fp32Bytes() const { return Elements() * 4; }

void CoatActivationCompressor::Apply(const lm::SavedTensor& what, std::span<float> values) {
  const int64_t n = static_cast<int64_t>(values.size());
  if (what.cols <= 0 || n % what.cols != 0)
    throw std::invalid_argument(std::string("coat activations: saved tensor ") + what.name + " of " +
                                std::to_string(n) + " values is not rows of " + std::to_string(what.cols));
  const int r = Index(what.role);
  counts_.elements[r] += n;
  if (std::string_view(what.name) == "p") counts_.attention_probs += n;
  switch (what.role) {
    case lm::SavedRole::kLinearInput: {  // per-tensor scale: one fp32
      counts_.coat_bytes[r] += n + static_cast<int64_t>(sizeof(float));
      if (!compress_) return;
      const std::vector<float> back = rc::Dequantize(rc::QuantizePerTensor(values, Format::kE4M3));
      std::copy(back.begin(), back.end(), values.begin());
      return;
    }
    case lm::SavedRole::kNonLinearInput: {  // 1x16 groups along each row, bf16 scales
      const int64_t rows = n / what.cols, groups_per_row = (what.cols + rc::kActGroupSize - 1) / rc::kActGroupSize;
      counts_.coat_bytes[r] += n + rows * groups_per_row * 2;
      if (!compress_) return;
      // Rows of a multiple of 16 hold whole groups: one call over the tensor
      // gives the same groups as row by row.
      const int64_t chunk = what.cols % rc::kActGroupSize == 0 ? n : what.cols;
      for (int64_t begin = 0; begin < n; begin += chunk) {
        const auto part = values.subspan(begin, chunk);
        const std::vector<float> back = DequantizeCpu(QuantizeGroup16Cpu(part, Format::kE4M3));
        std::copy(back.begin(), back.end(), part.begin());
      }
      return;
    }
    case lm::SavedRole::kStatistic:
      counts_.coat_bytes[r] += n * 4;  // fp32, as the baseline
      return;
    case lm::SavedRole::kAttentionCore:
    case lm::SavedRole::kHeadInput:
      counts_.coat_bytes[r] += n * 2;  // bf16, as the baseline
      return;
  }
}

lm::ActivationHook CoatActivationCompressor::Hook() {
  return [this](const lm::SavedTensor& what, std::span<float> values) { Apply(what, values); };
}

// ---------------------------------------------------------------------------
// Training

LmRunResult TrainLm(const LmRun& run, std::span<const int> train_stream, std::span<const int> heldout_stream) {
  lm::CpuTransformer model(ref::lm::RandomInit(run.config, run.init_seed));
  LmRunResult out;
  out.params = static_cast<int64_t>(model.num_params());
  out.slots = model.slots();
  CoatActivationCompressor acts(run.fp8_activations);
  model.set_activation_hook(acts.Hook());
  CoatMomentStore store(model.slots());
  lm::Trainer trainer(model, std::vector<int>(train_stream.begin(), train_stream.end()), run.options);
  trainer.set_moment_hook([&](int step, std::span<float> m, std::span<float> v) {
    if (std::find(run.capture_steps.begin(), run.capture_steps.end(), step) != run.capture_steps.end())
      out.captures.push_back({step, std::vector<float>(m.begin(), m.end()), std::vector<float>(v.begin(), v.end())});
    if (run.fp8_optimizer) store.Store(m, v);
  });
  const auto t0 = std::chrono::steady_clock::now();
  trainer.Run([&](const lm::StepReport& r) {
    out.last_train_loss = r.loss;
    out.saved_per_step = acts.counts();
    acts.ResetCounts();
  });
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out.state_bytes = run.fp8_optimizer ? store.StateBytes() : 8 * out.params;
  out.heldout_loss = trainer.Evaluate(heldout_stream, run.eval_batches, run.eval_seed);
  return out;
}

}  // namespace cb::coat
