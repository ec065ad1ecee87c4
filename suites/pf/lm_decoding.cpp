// File: suites/pf/lm_decoding.cpp
// -----------------------------------------------------------------------------
// Decoding from a transformer with the reference PF/softmax/greedy samplers
// and watermarks (lm_decoding.h).
#include "suites/pf/lm_decoding.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>

namespace cb::pf {

namespace ref = cb::ref::pf;

LmDecoder ParseLmDecoder(const std::string& name) {
  if (name == "greedy") return LmDecoder::kGreedy;
  if (name == "pf") return LmDecoder::kPf;
  if (name == "softmax") return LmDecoder::kSoftmax;
  throw std::invalid_argument("decoder '" + name + "': expected pf, softmax or greedy");
}

namespace {

// -log softmax(u)[y] in fp64. u: [V].
double Nll(const std::vector<double>& u, int64_t y) {
  const double mx = *std::max_element(u.begin(), u.end());
  double z = 0;
  for (double x : u) z += std::exp(x - mx);
  return mx + std::log(z) - u[y];
}

// Entropy (nats) of softmax(filtered / T); -inf entries carry no mass.
double Entropy(const std::vector<double>& filtered, double temperature) {
  double h = 0;
  for (double p : ref::SoftmaxProbabilities(filtered, temperature))
    if (p > 0) h -= p * std::log(p);
  return h;
}

}  // namespace

LmDecoded DecodeLm(const cb::lm_suite::CpuTransformer& model, std::span<const int> prompt, const LmDecodeOptions& o) {
  return DecodeLm(*cb::lm_suite::MakeIncrementalLm(model, cb::harness::Backend::kCpu), prompt, o);
}

LmDecoded DecodeLm(const cb::lm_suite::IncrementalLm& lm, std::span<const int> prompt, const LmDecodeOptions& o) {
  const auto& cfg = lm.model().config();
  if (prompt.empty()) throw std::invalid_argument("decode: empty prompt");
  for (int id : prompt)
    if (id < 0 || id >= cfg.vocab_size)
      throw std::invalid_argument("decode: prompt id " + std::to_string(id) + " outside [0, " +
                                  std::to_string(cfg.vocab_size) + ")");
  if (static_cast<int>(prompt.size()) >= cfg.max_position_embeddings)
    throw std::invalid_argument("decode: the prompt has " + std::to_string(prompt.size()) +
                                " tokens, max_position_embeddings is " +
                                std::to_string(cfg.max_position_embeddings));
  if (!(o.temperature > 0) || !std::isfinite(o.temperature))
    throw std::invalid_argument("decode: temperature must be > 0");
  if (!(o.top_p > 0 && o.top_p <= 1)) throw std::invalid_argument("decode: top-p must lie in (0, 1]");
  if (o.max_new_tokens < 1) throw std::invalid_argument("decode: max_new_tokens must be >= 1");
  if ((o.watermark == ref::Watermark::kPf && o.decoder != LmDecoder::kPf) ||
      ((o.watermark == ref::Watermark::kGumbel || o.watermark == ref::Watermark::kKgw) &&
       o.decoder != LmDecoder::kSoftmax))
    throw std::invalid_argument(std::string("decode: watermark ") + ref::WatermarkName(o.watermark) +
                                " needs decoder " + (o.watermark == ref::Watermark::kPf ? "pf" : "softmax"));

  const int V = cfg.vocab_size;
  LmDecoded out;
  out.tokens.assign(prompt.begin(), prompt.end());
  out.prompt_length = prompt.size();
  std::vector<float> logits;  // [T, V]
  const std::unique_ptr<cb::lm_suite::KvState> cache = lm.Prefill(prompt, logits);
  std::vector<float> row(logits.end() - V, logits.end());  // [V]
  std::vector<double> u(V);
  for (int step = 0; step < o.max_new_tokens; ++step) {
    for (int v = 0; v < V; ++v) u[v] = row[v];
    const std::vector<double> filtered = ref::TopP(u, o.temperature, o.top_p);
    const uint64_t stream = (o.text_index << 32) | out.tokens.size();
    int64_t y;
    if (o.watermark != ref::Watermark::kNone) {
      y = ref::WatermarkedSample(o.watermark, o.params, filtered, o.temperature, out.tokens,
                                 out.tokens.size(), o.seed ^ stream);
    } else if (o.decoder == LmDecoder::kGreedy) {
      y = ref::Greedy(filtered);
    } else if (o.decoder == LmDecoder::kPf) {
      y = ref::SamplePfNoise(filtered, o.temperature, o.seed, stream);
    } else {
      y = ref::SampleSoftmaxGumbel(filtered, o.temperature, o.seed, stream);
    }
    out.nll.push_back(Nll(u, y));
    out.entropy.push_back(Entropy(filtered, o.temperature));
    out.tokens.push_back(static_cast<int32_t>(y));
    // Keep the text within max_position_embeddings, so the same model can
    // score all of it (claimbench lm score refuses longer sequences).
    if (step + 1 == o.max_new_tokens ||
        static_cast<int>(out.tokens.size()) >= cfg.max_position_embeddings)
      break;
    const int next[1] = {static_cast<int>(y)};
    row = lm.Extend(next, *cache);
  }
  return out;
}

}  // namespace cb::pf
