// File: suites/cbplm/cb_mlm.cpp
// -----------------------------------------------------------------------------
// The tiny CB-pLM, its conditional baseline and the unconstrained masked LM
// (cb_mlm.h): fp32 encoder blocks (CpuTransformer::EmbeddedLossAndGrad), the
// fp64 head, Adam, attribution and intervention as lobster@0ac6932
// src/lobster/model/_cbmlm.py (intervene_on_sequences, _create_intervene_mask,
// _mask_inputs).
#include "suites/cbplm/cb_mlm.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <stdexcept>

#include "harness/random.h"
#include "reference/protparam/protparam.h"
#include "reference/protparam/tables.h"

namespace cb::cbplm {
namespace {

namespace pp = cb::ref::protparam;
namespace ref = cb::ref::lm;
namespace hd = cb::ref::cbplm;
constexpr int kC = kNumCbConcepts;

ref::TransformerConfig EncoderConfig(const CbShape& s) {
  if (s.hidden < 8 || s.layers < 1 || s.heads < 1 || s.hidden % s.heads != 0 || s.seq < 3)
    throw std::invalid_argument("cb mlm: shape needs hidden >= 8 divisible by heads, layers >= 1, seq >= 3");
  ref::TransformerConfig c;
  c.vocab_size = kCbVocab;
  c.hidden_size = s.hidden;
  c.intermediate_size = s.intermediate;
  c.num_hidden_layers = s.layers;
  c.num_attention_heads = s.heads;
  c.num_key_value_heads = s.heads;
  c.max_position_embeddings = s.seq;
  c.rms_norm_eps = 1e-6;
  c.tie_word_embeddings = true;
  return c;
}

ref::Architecture Encoder() {
  ref::Architecture a;
  a.causal = false;
  return a;
}

// Position of concept `name` in protparam's order.
int ProtparamIndex(std::string_view name) {
  const auto& names = pp::ConceptNames();
  return static_cast<int>(std::find(names.begin(), names.end(), name) - names.begin());
}

}  // namespace

const char* ConditioningName(Conditioning c) {
  switch (c) {
    case Conditioning::kCbm: return "cbm";
    case Conditioning::kPreEncoder: return "pre_encoder";
    case Conditioning::kNone: return "none";
  }
  return "?";
}

std::vector<int> EncodeProtein(std::string_view residues) {
  std::vector<int> tokens = {kClsToken};
  for (char ch : residues) {
    const auto i = pp::StandardIndex(ch);
    if (!i) throw std::invalid_argument(std::string("cb mlm: residue '") + ch + "' is not one of the 20 standard residues");
    tokens.push_back(static_cast<int>(*i));
  }
  return tokens;
}

std::array<double, kNumCbConcepts> NormalizedCbConcepts(std::string_view residues) {
  const pp::ConceptValues v = pp::ComputeConcepts(residues);
  std::array<double, kC> out{};
  for (int c = 0; c < kC; ++c) {
    const int i = ProtparamIndex(kCbConcepts[c]);
    out[c] = pp::LobsterNormalize(v.value[i], i);
  }
  return out;
}

CbExample MakeExample(std::string residues) {
  CbExample e;
  e.tokens = EncodeProtein(residues);
  e.concepts = NormalizedCbConcepts(residues);
  e.residues = std::move(residues);
  return e;
}

CbMlm::CbMlm(Conditioning conditioning, const CbShape& shape, uint64_t seed)
    : conditioning_(conditioning),
      shape_(shape),
      encoder_(ref::RandomInit(EncoderConfig(shape), seed, 0.02, Encoder())) {
  if (conditioning == Conditioning::kCbm)
    head_.emplace(hd::CbHeadConfig{.hidden = shape.hidden, .concepts = kC, .concept_emb = 2, .vocab = kCbVocab},
                  seed ^ 0x9e3779b97f4a7c15ULL);
  if (conditioning == Conditioning::kPreEncoder && shape.hidden <= kC)
    throw std::invalid_argument("cb mlm: pre_encoder needs hidden > the concept count");
}

size_t CbMlm::num_params() const { return encoder_.num_params() + (head_ ? head_->params().size() : 0); }

std::vector<float> CbMlm::Embed(std::span<const int> tokens, int batch, std::span<const double> concepts) const {
  const int D = shape_.hidden, T = shape_.seq;
  if (batch < 1 || tokens.size() != size_t(batch) * T)
    throw std::invalid_argument("cb mlm: tokens must hold batch x " + std::to_string(T) + " ids");
  const bool pre = conditioning_ == Conditioning::kPreEncoder;
  if (pre && concepts.size() != size_t(batch) * kC)
    throw std::invalid_argument("cb mlm: pre_encoder needs batch x " + std::to_string(kC) + " concept values");
  const lm_suite::ParamSlot& E = encoder_.slot("model.embed_tokens.weight");
  std::vector<float> x0(tokens.size() * D);  // [B*T, D]
  for (size_t m = 0; m < tokens.size(); ++m) {
    if (tokens[m] < 0 || tokens[m] >= kCbVocab) throw std::invalid_argument("cb mlm: token id outside [0, 22)");
    std::copy_n(&encoder_.params()[E.offset + size_t(tokens[m]) * D], D, &x0[m * D]);
    if (pre)  // lobster: hidden_states[:, :, -n_concepts_size:] = concepts
      for (int c = 0; c < kC; ++c) x0[m * D + D - kC + c] = static_cast<float>(concepts[(m / T) * kC + c]);
  }
  return x0;
}

std::vector<double> CbMlm::TiedLogits(std::span<const float> xf) const {
  const int D = shape_.hidden, V = kCbVocab;
  const float* E = &encoder_.params()[encoder_.slot("model.embed_tokens.weight").offset];
  const size_t M = xf.size() / D;
  std::vector<double> logits(M * V);
  for (size_t m = 0; m < M; ++m)
    for (int v = 0; v < V; ++v) {
      double s = 0;
      for (int d = 0; d < D; ++d) s += double(xf[m * D + d]) * E[size_t(v) * D + d];
      logits[m * V + v] = s;
    }
  return logits;
}

std::vector<float> CbMlm::Hidden(std::span<const int> tokens, int batch, std::span<const double> concepts) const {
  return encoder_.ForwardEmbedded(Embed(tokens, batch, concepts), batch, shape_.seq);
}

std::vector<double> CbMlm::PredictConcepts(std::span<const int> tokens, int batch) const {
  if (!head_) throw std::invalid_argument("cb mlm: only the CB model has concept neurons");
  const std::vector<float> xf = Hidden(tokens, batch, {});
  return head_->Concepts(std::vector<double>(xf.begin(), xf.end()), batch, shape_.seq);
}

std::vector<double> CbMlm::Logits(std::span<const int> tokens, int batch, std::span<const double> c_in) const {
  const std::vector<float> xf = Hidden(tokens, batch, c_in);
  if (!head_) return TiedLogits(xf);
  const std::vector<double> xd(xf.begin(), xf.end());
  if (!c_in.empty()) return head_->Logits(xd, batch, shape_.seq, c_in);
  return head_->Logits(xd, batch, shape_.seq, head_->Concepts(xd, batch, shape_.seq));
}

std::vector<double> CbMlm::Train(std::span<const CbExample> data, const CbTrainOptions& o) {
  const int B = o.batch, T = shape_.seq, D = shape_.hidden, V = kCbVocab;
  if (data.empty() || o.steps < 1 || B < 1 || !(o.mask_rate > 0 && o.mask_rate < 1) || !(o.lr > 0))
    throw std::invalid_argument("cb mlm: train needs data, steps >= 1, batch >= 1, mask_rate in (0, 1), lr > 0");
  for (const CbExample& e : data)
    if (static_cast<int>(e.tokens.size()) != T)
      throw std::invalid_argument("cb mlm: an example of " + std::to_string(e.tokens.size()) + " tokens, the model reads " +
                                  std::to_string(T));
  const bool pre = conditioning_ == Conditioning::kPreEncoder;
  const size_t embed = encoder_.slot("model.embed_tokens.weight").offset;
  const size_t P32 = encoder_.num_params(), P64 = head_ ? head_->params().size() : 0;
  std::vector<float> g32(P32), dx0(size_t(B) * T * D), m32(P32, 0), v32(P32, 0);
  std::vector<double> g64(P64), m64(P64, 0), v64(P64, 0), tied_grad;
  const int warmup = std::max(1, o.steps / 20);
  const double b1 = 0.9, b2 = 0.98, eps = 1e-8;
  std::vector<double> losses;
  for (int s = 0; s < o.steps; ++s) {
    harness::Rng rng(o.seed, 1000 + uint64_t(s));
    std::vector<int> tokens(size_t(B) * T), targets(size_t(B) * T, 0);
    std::vector<double> weights(size_t(B) * T, 0.0), concepts(size_t(B) * kC);
    int masked = 0;
    for (int b = 0; b < B; ++b) {
      const CbExample& e = data[rng.UniformInt(0, data.size() - 1)];
      for (int c = 0; c < kC; ++c) concepts[size_t(b) * kC + c] = e.concepts[c];
      for (int t = 0; t < T; ++t) {
        const size_t m = size_t(b) * T + t;
        tokens[m] = e.tokens[t];
        if (t > 0 && rng.Uniform() < o.mask_rate) tokens[m] = kMaskToken, targets[m] = e.tokens[t], weights[m] = 1, ++masked;
      }
    }
    if (masked == 0) tokens[1] = kMaskToken, targets[1] = data[0].tokens[1], weights[1] = 1;  // never an empty loss
    const std::vector<float> x0 = Embed(tokens, B, concepts);
    tied_grad.assign(head_ ? 0 : size_t(V) * D, 0.0);
    const lm_suite::CpuTransformer::HiddenLoss loss = [&](std::span<const float> xf, std::span<float> dxf) {
      if (head_) {
        const std::vector<double> xd(xf.begin(), xf.end());
        std::vector<double> dxd(xd.size());
        const hd::HeadLoss l = head_->LossAndGrad(xd, B, T, concepts, concepts, targets, weights, {}, dxd, g64);
        for (size_t i = 0; i < dxd.size(); ++i) dxf[i] = static_cast<float>(dxd[i]);
        return l.total;
      }
      // Tied MLM head: cross-entropy over the masked rows.
      const std::vector<double> logits = TiedLogits(xf);
      const float* E = &encoder_.params()[embed];
      double wsum = 0, total = 0;
      for (double w : weights) wsum += w;
      std::vector<double> dl(V);
      for (size_t m = 0; m < weights.size(); ++m) {
        if (weights[m] == 0) continue;
        const double* row = &logits[m * V];
        const double mx = *std::max_element(row, row + V);
        double z = 0;
        for (int v = 0; v < V; ++v) z += std::exp(row[v] - mx);
        total += (mx + std::log(z) - row[targets[m]]) / wsum;
        for (int v = 0; v < V; ++v) dl[v] = std::exp(row[v] - mx) / z / wsum;
        dl[targets[m]] -= 1.0 / wsum;
        for (int v = 0; v < V; ++v)
          for (int d = 0; d < D; ++d) {
            dxf[m * D + d] += static_cast<float>(dl[v] * E[size_t(v) * D + d]);
            tied_grad[size_t(v) * D + d] += dl[v] * xf[m * D + d];
          }
      }
      return total;
    };
    losses.push_back(encoder_.EmbeddedLossAndGrad(x0, B, T, loss, g32, dx0));
    // The input rows' share of the embedding gradient (not the overwritten concept dimensions).
    const int Din = pre ? D - kC : D;
    for (size_t m = 0; m < tokens.size(); ++m)
      for (int d = 0; d < Din; ++d) g32[embed + size_t(tokens[m]) * D + d] += dx0[m * D + d];
    for (size_t i = 0; i < tied_grad.size(); ++i) g32[embed + i] += static_cast<float>(tied_grad[i]);
    // Clip, schedule, Adam.
    double norm = 0;
    for (float g : g32) norm += double(g) * g;
    for (double g : g64) norm += g * g;
    norm = std::sqrt(norm);
    const double scale = (o.clip > 0 && norm > o.clip) ? o.clip / norm : 1.0;
    const double p = s < warmup ? 0 : double(s - warmup) / std::max(1, o.steps - warmup);
    const double lr = s < warmup ? o.lr * (s + 1) / warmup : o.lr * (0.1 + 0.9 * 0.5 * (1 + std::cos(std::numbers::pi * p)));
    const double c1 = 1 - std::pow(b1, s + 1), c2 = 1 - std::pow(b2, s + 1);
    std::vector<float>& w32 = encoder_.params();
    for (size_t i = 0; i < P32; ++i) {
      const double g = g32[i] * scale;
      m32[i] = float(b1 * m32[i] + (1 - b1) * g);
      v32[i] = float(b2 * v32[i] + (1 - b2) * g * g);
      w32[i] -= float(lr * (m32[i] / c1) / (std::sqrt(v32[i] / c2) + eps));
    }
    if (head_) {
      std::vector<double>& w64 = head_->params();
      for (size_t i = 0; i < P64; ++i) {
        const double g = g64[i] * scale;
        m64[i] = b1 * m64[i] + (1 - b1) * g;
        v64[i] = b2 * v64[i] + (1 - b2) * g * g;
        w64[i] -= lr * (m64[i] / c1) / (std::sqrt(v64[i] / c2) + eps);
      }
    }
  }
  return losses;
}

std::vector<double> CbMlm::Attribution(std::span<const int> tokens, int j) const {
  if (!head_) throw std::invalid_argument("cb mlm: attribution needs the CB model's concept neurons");
  if (j < 0 || j >= kC) throw std::invalid_argument("cb mlm: concept index " + std::to_string(j) + " outside [0, 6)");
  const int T = shape_.seq, D = shape_.hidden;
  const std::vector<float> x0 = Embed(tokens, 1, {});
  std::vector<float> g32(encoder_.num_params()), dx0(x0.size());
  encoder_.EmbeddedLossAndGrad(x0, 1, T,
                               [&](std::span<const float> xf, std::span<float> dxf) {
                                 const std::vector<double> xd(xf.begin(), xf.end());
                                 std::vector<double> dxd(xd.size());
                                 head_->ConceptGradient(xd, 1, T, j, dxd);
                                 for (size_t i = 0; i < dxd.size(); ++i) dxf[i] = static_cast<float>(dxd[i]);
                                 return head_->Concepts(xd, 1, T)[j];
                               },
                               g32, dx0);
  const float* mask_emb = &encoder_.params()[encoder_.slot("model.embed_tokens.weight").offset + size_t(kMaskToken) * D];
  std::vector<double> attribution(T - 1);  // residue positions 1..T-1
  for (int t = 1; t < T; ++t) {
    double s = 0;
    for (int d = 0; d < D; ++d) s += double(dx0[size_t(t) * D + d]) * (double(x0[size_t(t) * D + d]) - mask_emb[d]);
    attribution[t - 1] = s;
  }
  return attribution;
}

Intervention CbMlm::Intervene(const CbExample& ex, int j, bool raise, int k, uint64_t seed) const {
  const int T = shape_.seq, L = T - 1, V = kCbVocab;
  if (j < 0 || j >= kC) throw std::invalid_argument("cb mlm: concept index " + std::to_string(j) + " outside [0, 6)");
  if (k < 0 || k > L) throw std::invalid_argument("cb mlm: edits k = " + std::to_string(k) + " outside [0, L]");
  if (static_cast<int>(ex.tokens.size()) != T) throw std::invalid_argument("cb mlm: example length differs from the model's");
  Intervention out;
  std::vector<int> order(L);
  std::iota(order.begin(), order.end(), 0);
  if (head_) {
    out.attribution = Attribution(ex.tokens, j);
    // torch.sort ascending (raise) / descending (lower); stable for ties.
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return raise ? out.attribution[a] < out.attribution[b] : out.attribution[a] > out.attribution[b];
    });
  } else {
    harness::Rng rng(seed, 0);
    for (int i = L - 1; i > 0; --i) std::swap(order[i], order[rng.UniformInt(0, uint64_t(i))]);
  }
  out.positions.assign(order.begin(), order.begin() + k);
  std::sort(out.positions.begin(), out.positions.end());
  std::vector<int> masked = ex.tokens;
  for (int p : out.positions) masked[p + 1] = kMaskToken;
  std::vector<double> c_in;
  if (head_) {
    c_in = PredictConcepts(masked, 1);  // the masked sequence's own neurons
  } else if (conditioning_ == Conditioning::kPreEncoder) {
    c_in.assign(ex.concepts.begin(), ex.concepts.end());
  }
  if (!c_in.empty()) c_in[j] = raise ? 1.0 : 0.0;
  const std::vector<double> logits = Logits(masked, 1, c_in);
  out.edited = ex.residues;
  for (int p : out.positions) {
    const double* row = &logits[size_t(p + 1) * V];
    out.edited[p] = pp::kStandardResidues[std::max_element(row, row + 20) - row];
  }
  return out;
}

}  // namespace cb::cbplm
