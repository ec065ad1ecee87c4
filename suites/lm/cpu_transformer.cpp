// File: suites/lm/cpu_transformer.cpp
// -----------------------------------------------------------------------------
// The fp32 CPU transformer (cpu_transformer.h): forward, KV cache and backward
// with OpenBLAS sgemm; the element-wise steps (RMSNorm, RoPE, softmax, SwiGLU)
// are plain loops. Shapes: M = B*T rows, D hidden, H query heads, KV key/value
// heads of dim d, I intermediate, V vocabulary, S keys visible (T, or the
// cache length + T).
#include "suites/lm/cpu_transformer.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace cb::lm_suite {

namespace ref = cb::ref::lm;

namespace {

// C[M, N] = alpha A[M, K] B[N, K]^T + beta C   (y = x W^T with W [out, in])
void GemmNT(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
            float beta, float* C, int ldc) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}
// C[M, N] = alpha A[M, K] B[K, N] + beta C
void GemmNN(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
            float beta, float* C, int ldc) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, alpha, A, lda, B, ldb, beta, C,
              ldc);
}
// C[M, N] = alpha A[K, M]^T B[K, N] + beta C
void GemmTN(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
            float beta, float* C, int ldc) {
  cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

// y [M, D] = w * x / sqrt(mean(x^2) + eps) per row; r [M] = the row's 1/rms.
void RmsNorm(const float* x, const float* w, int M, int D, double eps, float* y, float* r) {
  for (int t = 0; t < M; ++t) {
    const float* xt = x + static_cast<size_t>(t) * D;
    double ms = 0;
    for (int i = 0; i < D; ++i) ms += double(xt[i]) * xt[i];
    const float rt = static_cast<float>(1.0 / std::sqrt(ms / D + eps));
    r[t] = rt;
    float* yt = y + static_cast<size_t>(t) * D;
    for (int i = 0; i < D; ++i) yt[i] = w[i] * (xt[i] * rt);
  }
}

// The reference's RmsNormBackward (transformer_ops.h), fp32 with fp64 row sums:
//   dx_j += r w_j dy_j - r^3 x_j (sum_i w_i dy_i x_i) / D,  dw_i += dy_i x_i r.
void RmsNormBackward(const float* dy, const float* x, const float* w, const float* r, int M, int D,
                     float* dx, float* dw) {
  for (int t = 0; t < M; ++t) {
    const float* dyt = dy + static_cast<size_t>(t) * D;
    const float* xt = x + static_cast<size_t>(t) * D;
    float* dxt = dx + static_cast<size_t>(t) * D;
    const float rt = r[t];
    double gx = 0;
    for (int i = 0; i < D; ++i) gx += double(w[i]) * dyt[i] * xt[i];
    const float c = static_cast<float>(double(rt) * rt * rt * gx / D);
    for (int i = 0; i < D; ++i) {
      dxt[i] += rt * w[i] * dyt[i] - c * xt[i];
      dw[i] += dyt[i] * xt[i] * rt;
    }
  }
}

// cos/sin of pos * theta^(-2i/d), i < d/2, for positions pos0..pos0+T-1,
// formed in fp64 and rounded once. [T, d/2] each.
void RopeTables(int pos0, int T, int d, double theta, std::vector<float>& cs, std::vector<float>& sn) {
  const int half = d / 2;
  cs.resize(static_cast<size_t>(T) * half);
  sn.resize(cs.size());
  for (int t = 0; t < T; ++t)
    for (int i = 0; i < half; ++i) {
      const double f = (pos0 + t) * std::pow(theta, -2.0 * i / d);
      cs[static_cast<size_t>(t) * half + i] = static_cast<float>(std::cos(f));
      sn[static_cast<size_t>(t) * half + i] = static_cast<float>(std::sin(f));
    }
}

// Rotates every head of rows [M, heads*d] (row r at table row r % T) by
// sign * angle: the pairs (v_i, v_{i+d/2}), HF's rotate_half layout. sign = -1
// is the transpose (the backward).
void Rope(float* v, int M, int T, int heads, int d, const std::vector<float>& cs,
          const std::vector<float>& sn, float sign) {
  const int half = d / 2;
  for (int r = 0; r < M; ++r) {
    const float* c = &cs[static_cast<size_t>(r % T) * half];
    const float* s = &sn[static_cast<size_t>(r % T) * half];
    for (int hd = 0; hd < heads; ++hd) {
      float* x = v + (static_cast<size_t>(r) * heads + hd) * d;
      for (int i = 0; i < half; ++i) {
        const float a = x[i], b = x[i + half], si = sign * s[i];
        x[i] = a * c[i] - b * si;
        x[i + half] = b * c[i] + a * si;
      }
    }
  }
}

float Sigmoid(float z) { return 1.0f / (1.0f + std::exp(-z)); }

// Weighted mean cross-entropy of logits [M, V] (fp64 sums); with `dlogits`
// also d loss / d logits = w_t / W (softmax - onehot).
double CrossEntropy(const std::vector<float>& logits, int M, int V, const Batch& b,
                    std::vector<float>* dlogits) {
  double wsum = 0;
  for (int t = 0; t < M; ++t) {
    if (!(b.weights[t] >= 0))
      throw std::invalid_argument("batch: weight " + std::to_string(t) + " is negative");
    if (b.weights[t] > 0 && (b.targets[t] < 0 || b.targets[t] >= V))
      throw std::invalid_argument("batch: target " + std::to_string(b.targets[t]) +
                                  " at position " + std::to_string(t) + " outside [0, " +
                                  std::to_string(V) + ")");
    wsum += b.weights[t];
  }
  if (!(wsum > 0)) throw std::invalid_argument("batch: all weights are zero");
  if (dlogits) dlogits->assign(static_cast<size_t>(M) * V, 0.0f);
  double loss = 0;
  for (int t = 0; t < M; ++t) {
    if (b.weights[t] == 0) continue;
    const float* z = &logits[static_cast<size_t>(t) * V];
    const float mx = *std::max_element(z, z + V);
    double se = 0;
    for (int c = 0; c < V; ++c) se += std::exp(double(z[c]) - mx);
    const double lse = mx + std::log(se);
    loss += b.weights[t] * (lse - z[b.targets[t]]);
    if (dlogits) {
      float* dz = &(*dlogits)[static_cast<size_t>(t) * V];
      const double scale = b.weights[t] / wsum;
      for (int c = 0; c < V; ++c) dz[c] = static_cast<float>(scale * std::exp(double(z[c]) - lse));
      dz[b.targets[t]] -= static_cast<float>(scale);
    }
  }
  return loss / wsum;
}

}  // namespace

// -----------------------------------------------------------------------------
// Layout

// The nine weights of a layer, in the order of LayerParams.
struct CpuTransformer::LayerView {
  const float *input_norm, *wq, *wk, *wv, *wo, *post_norm, *w_gate, *w_up, *w_down;
};

struct CpuTransformer::LayerActs {
  std::vector<float> x, r1, n;   // [M, D], [M], [M, D]
  std::vector<float> q, k, v;    // [M, H*d], [M, KV*d] x 2 (q, k after RoPE)
  std::vector<float> p;          // [B, H, T, S] probabilities (0 where masked)
  std::vector<float> att;        // [M, H*d]
  std::vector<float> h, r2, m;   // [M, D], [M], [M, D]
  std::vector<float> gate, up, a;  // [M, I]
};

struct CpuTransformer::Acts {
  std::vector<LayerActs> layers;
  std::vector<float> xL, rf, xf;  // [M, D], [M], [M, D]
};

CpuTransformer::CpuTransformer(const ref::TransformerConfig& config,
                               const ref::NamedTensors& weights, const ref::Architecture& arch)
    : CpuTransformer(ref::Transformer(config, weights, arch)) {}

CpuTransformer::CpuTransformer(const ref::Transformer& reference)
    : config_(reference.config()), arch_(reference.arch()) {
  const ref::NamedTensors named = reference.ToNamedTensors();  // validated by the reference
  size_t offset = 0;
  for (const auto& [name, t] : named) {
    slots_.push_back(ParamSlot{name, t.shape, offset, t.data.size()});
    offset += t.data.size();
  }
  params_.resize(offset);
  for (const ParamSlot& s : slots_) {
    const std::vector<double>& src = named.at(s.name).data;
    for (size_t i = 0; i < s.size; ++i) params_[s.offset + i] = static_cast<float>(src[i]);
  }
  static const char* kLayerTensors[9] = {
      "input_layernorm.weight", "self_attn.q_proj.weight", "self_attn.k_proj.weight",
      "self_attn.v_proj.weight", "self_attn.o_proj.weight", "post_attention_layernorm.weight",
      "mlp.gate_proj.weight", "mlp.up_proj.weight", "mlp.down_proj.weight"};
  for (int l = 0; l < config_.num_hidden_layers; ++l) {
    std::vector<size_t> offs;
    for (const char* t : kLayerTensors)
      offs.push_back(slot("model.layers." + std::to_string(l) + "." + t).offset);
    layer_offsets_.push_back(offs);
  }
  final_norm_ = slot("model.norm.weight").offset;
  if (arch_.Patches()) {
    patch_w_ = slot("model.patch_embed.weight").offset;
    patch_b_ = slot("model.patch_embed.bias").offset;
    cls_ = slot("model.cls_token").offset;
    pos_ = slot("model.pos_embed").offset;
    cls_w_ = slot("classifier.weight").offset;
    cls_b_ = slot("classifier.bias").offset;
  } else {
    embed_ = slot("model.embed_tokens.weight").offset;
    head_ = config_.tie_word_embeddings ? embed_ : slot("lm_head.weight").offset;
  }
}

const ParamSlot& CpuTransformer::slot(const std::string& name) const {
  for (const ParamSlot& s : slots_)
    if (s.name == name) return s;
  throw std::invalid_argument("cpu transformer: no tensor named " + name);
}

CpuTransformer::LayerView CpuTransformer::Layer(int l, const float* base) const {
  const std::vector<size_t>& o = layer_offsets_[l];
  return LayerView{base + o[0], base + o[1], base + o[2], base + o[3], base + o[4],
                   base + o[5], base + o[6], base + o[7], base + o[8]};
}

ref::NamedTensors CpuTransformer::Named(std::span<const float> flat) const {
  if (flat.size() != params_.size())
    throw std::invalid_argument("cpu transformer: buffer of " + std::to_string(flat.size()) +
                                " values for " + std::to_string(params_.size()) + " parameters");
  ref::NamedTensors out;
  for (const ParamSlot& s : slots_)
    out[s.name] = ref::Tensor{s.shape, std::vector<double>(flat.begin() + s.offset,
                                                           flat.begin() + s.offset + s.size)};
  return out;
}

void CpuTransformer::CheckTokens(std::span<const int> tokens, int pos_end) const {
  if (tokens.empty()) throw std::invalid_argument("cpu transformer: empty token sequence");
  if (pos_end > config_.max_position_embeddings)
    throw std::invalid_argument("cpu transformer: position " + std::to_string(pos_end - 1) +
                                " past max_position_embeddings " +
                                std::to_string(config_.max_position_embeddings));
  for (size_t t = 0; t < tokens.size(); ++t)
    if (tokens[t] < 0 || tokens[t] >= config_.vocab_size)
      throw std::invalid_argument("cpu transformer: token id " + std::to_string(tokens[t]) +
                                  " at position " + std::to_string(t) + " outside [0, " +
                                  std::to_string(config_.vocab_size) + ")");
}

// -----------------------------------------------------------------------------
// Forward

std::vector<float> CpuTransformer::Run(std::span<const int> tokens, int B, int T, Acts* acts,
                                       CpuKvCache* cache) const {
  if (arch_.Patches()) throw std::invalid_argument("cpu transformer: token input to a patch-mode model");
  const int D = config_.hidden_size, V = config_.vocab_size, M = B * T;
  if (static_cast<int>(tokens.size()) != M)
    throw std::invalid_argument("cpu transformer: " + std::to_string(tokens.size()) +
                                " tokens for a batch of " + std::to_string(B) + " x " +
                                std::to_string(T));
  CheckTokens(tokens, (cache ? cache->length : 0) + T);
  std::vector<float> x(static_cast<size_t>(M) * D);  // [M, D] = embed[tokens]
  for (int t = 0; t < M; ++t)
    std::copy_n(&params_[embed_ + static_cast<size_t>(tokens[t]) * D], D, &x[size_t(t) * D]);
  const std::vector<float> xf = RunBlocks(std::move(x), B, T, acts, cache);
  std::vector<float> logits(size_t(M) * V);  // [M, V] = xf head^T
  GemmNT(M, V, D, 1, xf.data(), D, &params_[head_], D, 0, logits.data(), V);
  return logits;
}

std::vector<float> CpuTransformer::RunBlocks(std::vector<float> x, int B, int T, Acts* acts,
                                             CpuKvCache* cache) const {
  const ref::TransformerConfig& c = config_;
  const int D = c.hidden_size, I = c.intermediate_size, d = c.HeadDim();
  const int H = c.num_attention_heads, KV = c.num_key_value_heads, rep = H / KV;
  const int M = B * T, Hd = H * d, KVd = KV * d;
  const int pos0 = cache ? cache->length : 0;
  const int S = pos0 + T;  // keys visible to the last row of a sequence
  const bool rope = !arch_.Patches();
  const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(d)));
  std::vector<float> cs, sn;
  if (rope) RopeTables(pos0, T, d, c.rope_theta, cs, sn);

  LayerActs scratch;
  if (acts) acts->layers.assign(c.num_hidden_layers, {});
  for (int l = 0; l < c.num_hidden_layers; ++l) {
    const LayerView W = Layer(l, params_.data());
    LayerActs& A = acts ? acts->layers[l] : scratch;
    A.x = x;
    A.n.resize(size_t(M) * D);
    A.r1.resize(M);
    RmsNorm(x.data(), W.input_norm, M, D, c.rms_norm_eps, A.n.data(), A.r1.data());
    A.q.resize(size_t(M) * Hd);
    A.k.resize(size_t(M) * KVd);
    A.v.resize(size_t(M) * KVd);
    GemmNT(M, Hd, D, 1, A.n.data(), D, W.wq, D, 0, A.q.data(), Hd);
    GemmNT(M, KVd, D, 1, A.n.data(), D, W.wk, D, 0, A.k.data(), KVd);
    GemmNT(M, KVd, D, 1, A.n.data(), D, W.wv, D, 0, A.v.data(), KVd);
    if (rope) {
      Rope(A.q.data(), M, T, H, d, cs, sn, +1);
      Rope(A.k.data(), M, T, KV, d, cs, sn, +1);
    }
    const float* keys = A.k.data();  // rows of sequence b start at b*T (or 0 with a cache)
    const float* vals = A.v.data();
    if (cache) {
      std::vector<float>& ck = cache->keys[l];
      std::vector<float>& cv = cache->values[l];
      ck.insert(ck.end(), A.k.begin(), A.k.end());
      cv.insert(cv.end(), A.v.begin(), A.v.end());
      keys = ck.data();
      vals = cv.data();
    }
    A.p.assign(size_t(B) * H * T * S, 0.0f);
    A.att.resize(size_t(M) * Hd);
    for (int b = 0; b < B; ++b)
      for (int h = 0; h < H; ++h) {
        const int g = h / rep;
        const float* Q = &A.q[size_t(b) * T * Hd + size_t(h) * d];          // [T, d], ld Hd
        const float* K = keys + (cache ? 0 : size_t(b) * T * KVd) + size_t(g) * d;  // [S, d], ld KVd
        const float* Vv = vals + (cache ? 0 : size_t(b) * T * KVd) + size_t(g) * d;
        float* P = &A.p[(size_t(b) * H + h) * T * S];                        // [T, S]
        GemmNT(T, S, d, scale, Q, Hd, K, KVd, 0, P, S);
        for (int t = 0; t < T; ++t) {
          float* pt = P + size_t(t) * S;
          const int visible = arch_.causal ? pos0 + t + 1 : S;
          const float mx = *std::max_element(pt, pt + visible);
          float z = 0;
          for (int u = 0; u < visible; ++u) z += (pt[u] = std::exp(pt[u] - mx));
          const float inv = 1.0f / z;
          for (int u = 0; u < visible; ++u) pt[u] *= inv;
          std::fill(pt + visible, pt + S, 0.0f);
        }
        GemmNN(T, d, S, 1, P, S, Vv, KVd, 0, &A.att[size_t(b) * T * Hd + size_t(h) * d], Hd);
      }
    A.h = x;  // h = x + att Wo^T
    GemmNT(M, D, Hd, 1, A.att.data(), Hd, W.wo, Hd, 1, A.h.data(), D);
    A.m.resize(size_t(M) * D);
    A.r2.resize(M);
    RmsNorm(A.h.data(), W.post_norm, M, D, c.rms_norm_eps, A.m.data(), A.r2.data());
    A.gate.resize(size_t(M) * I);
    A.up.resize(size_t(M) * I);
    A.a.resize(size_t(M) * I);
    GemmNT(M, I, D, 1, A.m.data(), D, W.w_gate, D, 0, A.gate.data(), I);
    GemmNT(M, I, D, 1, A.m.data(), D, W.w_up, D, 0, A.up.data(), I);
    for (size_t j = 0; j < A.a.size(); ++j) A.a[j] = A.gate[j] * Sigmoid(A.gate[j]) * A.up[j];
    x = A.h;  // x = h + a Wd^T
    GemmNT(M, D, I, 1, A.a.data(), I, W.w_down, I, 1, x.data(), D);
    if (acts) HookLayer(A, l, D, I);  // the forward is done with this layer's tensors
  }
  if (cache) cache->length = S;
  std::vector<float> rf(M), xf(size_t(M) * D);
  RmsNorm(x.data(), &params_[final_norm_], M, D, c.rms_norm_eps, xf.data(), rf.data());
  if (acts) {
    acts->xL = std::move(x);
    acts->rf = std::move(rf);
    acts->xf = xf;
    HookFinal(*acts, D);
  }
  return xf;
}

void CpuTransformer::HookLayer(LayerActs& A, int l, int D, int I) const {
  if (!activation_hook_) return;
  const ref::TransformerConfig& c = config_;
  const int Hd = c.num_attention_heads * c.HeadDim(), KVd = c.num_key_value_heads * c.HeadDim();
  const size_t M = A.x.size() / D;  // rows: B*T
  const int S = static_cast<int>(A.p.size() / (M * c.num_attention_heads));  // keys per query row
  struct Entry { SavedRole role; const char* name; std::vector<float>* v; int cols; };
  const Entry entries[] = {
      {SavedRole::kNonLinearInput, "x", &A.x, D},    {SavedRole::kStatistic, "r1", &A.r1, 1},
      {SavedRole::kLinearInput, "n", &A.n, D},       {SavedRole::kAttentionCore, "q", &A.q, Hd},
      {SavedRole::kAttentionCore, "k", &A.k, KVd},   {SavedRole::kAttentionCore, "v", &A.v, KVd},
      {SavedRole::kAttentionCore, "p", &A.p, S},     {SavedRole::kLinearInput, "att", &A.att, Hd},
      {SavedRole::kNonLinearInput, "h", &A.h, D},    {SavedRole::kStatistic, "r2", &A.r2, 1},
      {SavedRole::kLinearInput, "m", &A.m, D},       {SavedRole::kNonLinearInput, "gate", &A.gate, I},
      {SavedRole::kNonLinearInput, "up", &A.up, I},  {SavedRole::kLinearInput, "a", &A.a, I}};
  for (const Entry& e : entries) activation_hook_(SavedTensor{e.role, e.name, l, e.cols}, *e.v);
}

void CpuTransformer::HookFinal(Acts& acts, int D) const {
  if (!activation_hook_) return;
  activation_hook_(SavedTensor{SavedRole::kNonLinearInput, "xL", -1, D}, acts.xL);
  activation_hook_(SavedTensor{SavedRole::kStatistic, "rf", -1, 1}, acts.rf);
  activation_hook_(SavedTensor{SavedRole::kHeadInput, "xf", -1, D}, acts.xf);
}

std::vector<float> CpuTransformer::Forward(std::span<const int> tokens) const {
  return Run(tokens, 1, static_cast<int>(tokens.size()), nullptr, nullptr);
}

std::vector<float> CpuTransformer::ForwardBatch(std::span<const int> tokens, int batch,
                                                int seq) const {
  if (batch <= 0 || seq <= 0) throw std::invalid_argument("cpu transformer: empty batch");
  return Run(tokens, batch, seq, nullptr, nullptr);
}

std::vector<float> CpuTransformer::Prefill(std::span<const int> tokens, CpuKvCache& cache) const {
  if (!arch_.causal || arch_.Patches()) throw std::invalid_argument("cpu transformer: a KV cache needs a causal model");
  cache = CpuKvCache{};
  cache.keys.assign(config_.num_hidden_layers, {});
  cache.values.assign(config_.num_hidden_layers, {});
  return Run(tokens, 1, static_cast<int>(tokens.size()), nullptr, &cache);
}

std::vector<float> CpuTransformer::Extend(std::span<const int> tokens, CpuKvCache& cache) const {
  if (!arch_.causal || arch_.Patches()) throw std::invalid_argument("cpu transformer: a KV cache needs a causal model");
  if (cache.length == 0 || static_cast<int>(cache.keys.size()) != config_.num_hidden_layers)
    throw std::invalid_argument("cpu transformer: Extend before Prefill");
  if (tokens.empty()) throw std::invalid_argument("cpu transformer: Extend by no tokens");
  return Run(tokens, 1, static_cast<int>(tokens.size()), nullptr, &cache);
}

CpuKvCache CpuKvCache::Truncated(int n) const {
  if (n <= 0 || n > length)
    throw std::invalid_argument("cpu kv cache: cannot truncate " + std::to_string(length) +
                                " positions to " + std::to_string(n));
  CpuKvCache out;
  out.length = n;
  for (size_t l = 0; l < keys.size(); ++l) {
    const size_t row = keys[l].size() / static_cast<size_t>(length);  // KV*d
    out.keys.emplace_back(keys[l].begin(), keys[l].begin() + n * row);
    out.values.emplace_back(values[l].begin(), values[l].begin() + n * row);
  }
  return out;
}

// The fused decode step: the same math as Run() at T = 1, as matrix-vector
// products on the cache in place (no [T, S] buffers, no activations kept).
std::vector<float> CpuTransformer::DecodeStep(int token, CpuKvCache& cache) const {
  if (!arch_.causal || arch_.Patches()) throw std::invalid_argument("cpu transformer: a KV cache needs a causal model");
  if (cache.length == 0 || static_cast<int>(cache.keys.size()) != config_.num_hidden_layers)
    throw std::invalid_argument("cpu transformer: DecodeStep before Prefill");
  const ref::TransformerConfig& c = config_;
  const int D = c.hidden_size, I = c.intermediate_size, d = c.HeadDim(), V = c.vocab_size;
  const int H = c.num_attention_heads, KV = c.num_key_value_heads, rep = H / KV;
  const int Hd = H * d, KVd = KV * d, pos = cache.length, S = pos + 1;
  const int tok[1] = {token};
  CheckTokens(tok, S);
  const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(d)));
  std::vector<float> cs, sn;
  RopeTables(pos, 1, d, c.rope_theta, cs, sn);
  auto matvec = [](const float* W, int out, int in, const float* x, float beta, float* y) {
    cblas_sgemv(CblasRowMajor, CblasNoTrans, out, in, 1.0f, W, in, x, 1, beta, y, 1);  // y = W x
  };
  std::vector<float> x(&params_[embed_ + size_t(token) * D], &params_[embed_ + size_t(token) * D] + D);
  std::vector<float> n(D), q(Hd), k(KVd), v(KVd), p(S), att(Hd), gate(I), up(I);
  float r;
  for (int l = 0; l < c.num_hidden_layers; ++l) {
    const LayerView W = Layer(l, params_.data());
    RmsNorm(x.data(), W.input_norm, 1, D, c.rms_norm_eps, n.data(), &r);
    matvec(W.wq, Hd, D, n.data(), 0, q.data());
    matvec(W.wk, KVd, D, n.data(), 0, k.data());
    matvec(W.wv, KVd, D, n.data(), 0, v.data());
    Rope(q.data(), 1, 1, H, d, cs, sn, +1);
    Rope(k.data(), 1, 1, KV, d, cs, sn, +1);
    std::vector<float>& K = cache.keys[l];  // [S, KVd]
    std::vector<float>& Vc = cache.values[l];
    K.insert(K.end(), k.begin(), k.end());
    Vc.insert(Vc.end(), v.begin(), v.end());
    if (decode_attention_hook_) {
      decode_attention_hook_({.layer = l, .t = S, .heads = H, .kv_heads = KV, .head_dim = d, .q = q.data(),
                              .keys = K.data(), .values = Vc.data(), .out = att.data()});
    }
    for (int h = 0; h < H && !decode_attention_hook_; ++h) {
      const int g = h / rep;
      // p [S] = K_g q_h * scale; softmax; att_h [d] = V_g^T p
      cblas_sgemv(CblasRowMajor, CblasNoTrans, S, d, scale, K.data() + size_t(g) * d, KVd,
                  &q[size_t(h) * d], 1, 0.0f, p.data(), 1);
      const float mx = *std::max_element(p.begin(), p.end());
      float z = 0;
      for (float& pu : p) z += (pu = std::exp(pu - mx));
      cblas_sgemv(CblasRowMajor, CblasTrans, S, d, 1.0f / z, Vc.data() + size_t(g) * d, KVd,
                  p.data(), 1, 0.0f, &att[size_t(h) * d], 1);
    }
    matvec(W.wo, D, Hd, att.data(), 1, x.data());  // x = h = x + Wo att
    RmsNorm(x.data(), W.post_norm, 1, D, c.rms_norm_eps, n.data(), &r);
    matvec(W.w_gate, I, D, n.data(), 0, gate.data());
    matvec(W.w_up, I, D, n.data(), 0, up.data());
    for (int j = 0; j < I; ++j) gate[j] = gate[j] * Sigmoid(gate[j]) * up[j];
    matvec(W.w_down, D, I, gate.data(), 1, x.data());
  }
  cache.length = S;
  RmsNorm(x.data(), &params_[final_norm_], 1, D, c.rms_norm_eps, n.data(), &r);
  std::vector<float> logits(V);
  matvec(&params_[head_], V, D, n.data(), 0, logits.data());
  return logits;
}

// B independent decode steps, one per cache (MTAD's draft beams): the
// projections and the MLP as [B, D] GEMMs (each weight read once for all
// rows), RoPE and attention per row at its own position.
std::vector<float> CpuTransformer::DecodeBatch(std::span<const int> tokens, std::span<CpuKvCache* const> caches) const {
  if (!arch_.causal || arch_.Patches()) throw std::invalid_argument("cpu transformer: a KV cache needs a causal model");
  if (tokens.size() != caches.size() || tokens.empty())
    throw std::invalid_argument("cpu transformer: DecodeBatch needs one token per cache (" +
                                std::to_string(tokens.size()) + " tokens, " + std::to_string(caches.size()) +
                                " caches)");
  const ref::TransformerConfig& c = config_;
  const int B = static_cast<int>(tokens.size());
  for (int b = 0; b < B; ++b) {
    if (!caches[b] || caches[b]->length == 0 || static_cast<int>(caches[b]->keys.size()) != c.num_hidden_layers)
      throw std::invalid_argument("cpu transformer: DecodeBatch before Prefill");
    for (int a = 0; a < b; ++a)
      if (caches[a] == caches[b]) throw std::invalid_argument("cpu transformer: DecodeBatch given one cache twice");
    const int tok[1] = {tokens[b]};
    CheckTokens(tok, caches[b]->length + 1);
  }
  const int D = c.hidden_size, I = c.intermediate_size, d = c.HeadDim(), V = c.vocab_size;
  const int H = c.num_attention_heads, KV = c.num_key_value_heads, rep = H / KV, Hd = H * d, KVd = KV * d;
  const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(d)));
  std::vector<std::vector<float>> cs(B), sn(B);
  for (int b = 0; b < B; ++b) RopeTables(caches[b]->length, 1, d, c.rope_theta, cs[b], sn[b]);
  std::vector<float> x(size_t(B) * D);  // [B, D]
  for (int b = 0; b < B; ++b) std::copy_n(&params_[embed_ + size_t(tokens[b]) * D], D, &x[size_t(b) * D]);
  std::vector<float> n(size_t(B) * D), q(size_t(B) * Hd), k(size_t(B) * KVd), v(size_t(B) * KVd),
      att(size_t(B) * Hd), gate(size_t(B) * I), up(size_t(B) * I), r(B), p;
  for (int l = 0; l < c.num_hidden_layers; ++l) {
    const LayerView W = Layer(l, params_.data());
    RmsNorm(x.data(), W.input_norm, B, D, c.rms_norm_eps, n.data(), r.data());
    GemmNT(B, Hd, D, 1, n.data(), D, W.wq, D, 0, q.data(), Hd);
    GemmNT(B, KVd, D, 1, n.data(), D, W.wk, D, 0, k.data(), KVd);
    GemmNT(B, KVd, D, 1, n.data(), D, W.wv, D, 0, v.data(), KVd);
    for (int b = 0; b < B; ++b) {
      Rope(&q[size_t(b) * Hd], 1, 1, H, d, cs[b], sn[b], +1);
      Rope(&k[size_t(b) * KVd], 1, 1, KV, d, cs[b], sn[b], +1);
      std::vector<float>& K = caches[b]->keys[l];  // [S, KVd]
      std::vector<float>& Vc = caches[b]->values[l];
      K.insert(K.end(), &k[size_t(b) * KVd], &k[size_t(b + 1) * KVd]);
      Vc.insert(Vc.end(), &v[size_t(b) * KVd], &v[size_t(b + 1) * KVd]);
      const int S = caches[b]->length + 1;
      p.resize(S);
      for (int h = 0; h < H; ++h) {  // DecodeStep's attention, row b
        const int g = h / rep;
        cblas_sgemv(CblasRowMajor, CblasNoTrans, S, d, scale, K.data() + size_t(g) * d, KVd,
                    &q[size_t(b) * Hd + size_t(h) * d], 1, 0.0f, p.data(), 1);
        const float mx = *std::max_element(p.begin(), p.end());
        float z = 0;
        for (float& pu : p) z += (pu = std::exp(pu - mx));
        cblas_sgemv(CblasRowMajor, CblasTrans, S, d, 1.0f / z, Vc.data() + size_t(g) * d, KVd, p.data(), 1,
                    0.0f, &att[size_t(b) * Hd + size_t(h) * d], 1);
      }
    }
    GemmNT(B, D, Hd, 1, att.data(), Hd, W.wo, Hd, 1, x.data(), D);  // x = h = x + att Wo^T
    RmsNorm(x.data(), W.post_norm, B, D, c.rms_norm_eps, n.data(), r.data());
    GemmNT(B, I, D, 1, n.data(), D, W.w_gate, D, 0, gate.data(), I);
    GemmNT(B, I, D, 1, n.data(), D, W.w_up, D, 0, up.data(), I);
    for (size_t j = 0; j < gate.size(); ++j) gate[j] = gate[j] * Sigmoid(gate[j]) * up[j];
    GemmNT(B, D, I, 1, gate.data(), I, W.w_down, I, 1, x.data(), D);
  }
  for (int b = 0; b < B; ++b) ++caches[b]->length;
  RmsNorm(x.data(), &params_[final_norm_], B, D, c.rms_norm_eps, n.data(), r.data());
  std::vector<float> logits(size_t(B) * V);  // [B, V]
  GemmNT(B, V, D, 1, n.data(), D, &params_[head_], D, 0, logits.data(), V);
  return logits;
}

namespace {
void CheckBatch(const Batch& b) {
  const size_t M = static_cast<size_t>(b.batch) * b.seq;
  if (b.batch <= 0 || b.seq <= 0 || b.tokens.size() != M || b.targets.size() != M ||
      b.weights.size() != M)
    throw std::invalid_argument("batch: tokens/targets/weights must each hold batch x seq = " +
                                std::to_string(M) + " entries");
}
}  // namespace

double CpuTransformer::Loss(const Batch& b) const {
  CheckBatch(b);
  const std::vector<float> logits = Run(b.tokens, b.batch, b.seq, nullptr, nullptr);
  return CrossEntropy(logits, b.batch * b.seq, config_.vocab_size, b, nullptr);
}

// -----------------------------------------------------------------------------
// Backward

double CpuTransformer::LossAndGrad(const Batch& b, std::span<float> grad) const {
  CheckBatch(b);
  CheckGradBuffer(grad);
  const int M = b.batch * b.seq, V = config_.vocab_size;
  Acts acts;
  const std::vector<float> logits = Run(b.tokens, b.batch, b.seq, &acts, nullptr);
  std::vector<float> dlogits;  // [M, V]
  const double loss = CrossEntropy(logits, M, V, b, &dlogits);
  BackwardFromLogits(acts, b.tokens, b.batch, b.seq, dlogits, grad);
  return loss;
}

double CpuTransformer::LogitLossAndGrad(std::span<const int> tokens, int batch, int seq,
                                        const LogitLoss& loss_fn, std::span<float> grad) const {
  const size_t M = static_cast<size_t>(batch) * seq;
  if (batch <= 0 || seq <= 0 || tokens.size() != M)
    throw std::invalid_argument("logit loss: tokens must hold batch x seq = " + std::to_string(M) +
                                " entries");
  CheckGradBuffer(grad);
  Acts acts;
  const std::vector<float> logits = Run(tokens, batch, seq, &acts, nullptr);
  std::vector<float> dlogits(logits.size(), 0.0f);  // [M, V]
  const double loss = loss_fn(logits, dlogits);
  BackwardFromLogits(acts, tokens, batch, seq, dlogits, grad);
  return loss;
}

void CpuTransformer::BackwardFromLogits(const Acts& acts, std::span<const int> tokens, int batch,
                                        int seq, const std::vector<float>& dlogits,
                                        std::span<float> grad) const {
  const int M = batch * seq, D = config_.hidden_size, V = config_.vocab_size;
  std::fill(grad.begin(), grad.end(), 0.0f);
  float* G = grad.data();
  // logits = xf head^T: dhead += dlogits^T xf, dxf = dlogits head (tied: head = embed).
  GemmTN(V, D, M, 1, dlogits.data(), V, acts.xf.data(), D, 1, G + head_, D);
  std::vector<float> dxf(size_t(M) * D);
  GemmNN(M, D, V, 1, dlogits.data(), V, &params_[head_], D, 0, dxf.data(), D);
  BackwardFromHidden(acts, tokens, batch, seq, dxf, G);
}

void CpuTransformer::BackwardFromHidden(const Acts& acts, std::span<const int> tokens, int batch,
                                        int seq, const std::vector<float>& dxf, float* G) const {
  const int M = batch * seq, D = config_.hidden_size;
  const std::vector<float> dx = BackwardBlocks(acts, dxf, batch, seq, G);
  // x0 = embed[tokens]: rows of repeated tokens add up (in position order).
  for (int t = 0; t < M; ++t) {
    float* ge = G + embed_ + size_t(tokens[t]) * D;
    const float* dxt = &dx[size_t(t) * D];
    for (int i = 0; i < D; ++i) ge[i] += dxt[i];
  }
}

double CpuTransformer::HiddenLossAndGrad(std::span<const int> tokens, int batch, int seq,
                                         const HiddenLoss& loss_fn, std::span<float> grad) const {
  const size_t M = static_cast<size_t>(batch) * seq;
  if (arch_.Patches()) throw std::invalid_argument("hidden loss: a token model only (this one reads images)");
  if (batch <= 0 || seq <= 0 || tokens.size() != M)
    throw std::invalid_argument("hidden loss: tokens must hold batch x seq = " + std::to_string(M) +
                                " entries");
  CheckGradBuffer(grad);
  Acts acts;
  Run(tokens, batch, seq, &acts, nullptr);  // keeps xf; the logits are not needed
  std::vector<float> dxf(acts.xf.size(), 0.0f);  // [M, D]
  const double loss = loss_fn(acts.xf, dxf);
  std::fill(grad.begin(), grad.end(), 0.0f);
  BackwardFromHidden(acts, tokens, batch, seq, dxf, grad.data());
  return loss;
}

// REQUIRES (checked): a token model, x0 of batch x seq x D values.
static void CheckEmbedded(bool patches, size_t got, int batch, int seq, int D) {
  if (patches) throw std::invalid_argument("embedded input: a token model only (this one reads images)");
  if (batch <= 0 || seq <= 0 || got != size_t(batch) * seq * D)
    throw std::invalid_argument("embedded input: x0 must hold batch x seq x hidden = " +
                                std::to_string(size_t(std::max(batch, 0)) * std::max(seq, 0) * D) +
                                " values, got " + std::to_string(got));
}

std::vector<float> CpuTransformer::ForwardEmbedded(std::span<const float> x0, int batch, int seq) const {
  CheckEmbedded(arch_.Patches(), x0.size(), batch, seq, config_.hidden_size);
  if (seq > config_.max_position_embeddings)
    throw std::invalid_argument("embedded input: " + std::to_string(seq) + " positions past max_position_embeddings");
  return RunBlocks(std::vector<float>(x0.begin(), x0.end()), batch, seq, nullptr, nullptr);
}

double CpuTransformer::EmbeddedLossAndGrad(std::span<const float> x0, int batch, int seq,
                                           const HiddenLoss& loss_fn, std::span<float> grad,
                                           std::span<float> dx0) const {
  CheckEmbedded(arch_.Patches(), x0.size(), batch, seq, config_.hidden_size);
  if (seq > config_.max_position_embeddings)
    throw std::invalid_argument("embedded input: " + std::to_string(seq) + " positions past max_position_embeddings");
  CheckGradBuffer(grad);
  if (dx0.size() != x0.size())
    throw std::invalid_argument("embedded input: dx0 must hold as many values as x0 (" +
                                std::to_string(x0.size()) + "), got " + std::to_string(dx0.size()));
  Acts acts;
  RunBlocks(std::vector<float>(x0.begin(), x0.end()), batch, seq, &acts, nullptr);
  std::vector<float> dxf(acts.xf.size(), 0.0f);  // [M, D]
  const double loss = loss_fn(acts.xf, dxf);
  std::fill(grad.begin(), grad.end(), 0.0f);
  const std::vector<float> dx = BackwardBlocks(acts, dxf, batch, seq, grad.data());
  std::copy(dx.begin(), dx.end(), dx0.begin());
  return loss;
}

void CpuTransformer::CheckGradBuffer(std::span<float> grad) const {
  if (grad.size() != params_.size())
    throw std::invalid_argument("cpu transformer: gradient buffer of " +
                                std::to_string(grad.size()) + " values for " +
                                std::to_string(params_.size()) + " parameters");
}

std::vector<float> CpuTransformer::BackwardBlocks(const Acts& acts, const std::vector<float>& dxf,
                                                  int B, int T, float* G, int score_layer,
                                                  const float* dscores) const {
  const ref::TransformerConfig& c = config_;
  const int M = B * T;
  const int D = c.hidden_size, I = c.intermediate_size, d = c.HeadDim();
  const int H = c.num_attention_heads, KV = c.num_key_value_heads, rep = H / KV;
  const int Hd = H * d, KVd = KV * d;
  const bool rope = !arch_.Patches();
  const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(d)));

  std::vector<float> dx(size_t(M) * D, 0.0f);  // d loss / d residual stream
  RmsNormBackward(dxf.data(), acts.xL.data(), &params_[final_norm_], acts.rf.data(), M, D,
                  dx.data(), G + final_norm_);

  std::vector<float> cs, sn;
  if (rope) RopeTables(0, T, d, c.rope_theta, cs, sn);
  std::vector<float> dh, da(size_t(M) * I), dgate(size_t(M) * I), dup(size_t(M) * I);
  std::vector<float> dm(size_t(M) * D), datt(size_t(M) * Hd), dq(size_t(M) * Hd);
  std::vector<float> dk(size_t(M) * KVd), dv(size_t(M) * KVd), dn(size_t(M) * D);
  std::vector<float> dP(size_t(T) * T);
  for (int l = c.num_hidden_layers - 1; l >= 0; --l) {
    const LayerView W = Layer(l, params_.data());
    const std::vector<size_t>& o = layer_offsets_[l];
    float *g_in = G + o[0], *g_q = G + o[1], *g_k = G + o[2], *g_v = G + o[3], *g_o = G + o[4];
    float *g_post = G + o[5], *g_gate = G + o[6], *g_up = G + o[7], *g_down = G + o[8];
    const LayerActs& A = acts.layers[l];

    // x_out = h + a Wd^T
    dh = dx;
    GemmNN(M, I, D, 1, dx.data(), D, W.w_down, I, 0, da.data(), I);
    GemmTN(D, I, M, 1, dx.data(), D, A.a.data(), I, 1, g_down, I);
    // a = silu(gate) * up
    for (size_t j = 0; j < da.size(); ++j) {
      const float s = Sigmoid(A.gate[j]);
      dup[j] = da[j] * A.gate[j] * s;
      dgate[j] = da[j] * A.up[j] * s * (1.0f + A.gate[j] * (1.0f - s));
    }
    GemmNN(M, D, I, 1, dgate.data(), I, W.w_gate, D, 0, dm.data(), D);
    GemmNN(M, D, I, 1, dup.data(), I, W.w_up, D, 1, dm.data(), D);
    GemmTN(I, D, M, 1, dgate.data(), I, A.m.data(), D, 1, g_gate, D);
    GemmTN(I, D, M, 1, dup.data(), I, A.m.data(), D, 1, g_up, D);
    RmsNormBackward(dm.data(), A.h.data(), W.post_norm, A.r2.data(), M, D, dh.data(), g_post);

    // h = x + att Wo^T
    dx = dh;
    GemmNN(M, Hd, D, 1, dh.data(), D, W.wo, Hd, 0, datt.data(), Hd);
    GemmTN(D, Hd, M, 1, dh.data(), D, A.att.data(), Hd, 1, g_o, Hd);

    // attention, per sequence and query head (S = T: no cache in training)
    std::fill(dk.begin(), dk.end(), 0.0f);
    std::fill(dv.begin(), dv.end(), 0.0f);
    for (int bb = 0; bb < B; ++bb)
      for (int h = 0; h < H; ++h) {
        const int g = h / rep;
        const size_t qo = size_t(bb) * T * Hd + size_t(h) * d;   // [T, d] in rows of Hd
        const size_t ko = size_t(bb) * T * KVd + size_t(g) * d;  // [T, d] in rows of KVd
        const float* P = &A.p[(size_t(bb) * H + h) * T * T];      // [T, T]
        GemmNT(T, T, d, 1, &datt[qo], Hd, &A.v[ko], KVd, 0, dP.data(), T);  // dP = dOut V^T
        GemmTN(T, d, T, 1, P, T, &datt[qo], Hd, 1, &dv[ko], KVd);           // dV += P^T dOut
        for (int t = 0; t < T; ++t) {  // dS = P * (dP - rowsum(P * dP)), in dP
          float* dpt = &dP[size_t(t) * T];
          const float* pt = P + size_t(t) * T;
          double dot = 0;
          for (int u = 0; u < T; ++u) dot += double(pt[u]) * dpt[u];
          for (int u = 0; u < T; ++u) dpt[u] = pt[u] * (dpt[u] - static_cast<float>(dot));
        }
        if (dscores && l == score_layer) {
          const float* ds = dscores + (size_t(bb) * H + h) * T * T;
          for (size_t j = 0; j < size_t(T) * T; ++j) dP[j] += ds[j];
        }
        GemmNN(T, d, T, scale, dP.data(), T, &A.k[ko], KVd, 0, &dq[qo], Hd);  // dQ = dS K
        GemmTN(T, d, T, scale, dP.data(), T, &A.q[qo], Hd, 1, &dk[ko], KVd);  // dK += dS^T Q
      }
    if (rope) {
      Rope(dq.data(), M, T, H, d, cs, sn, -1);
      Rope(dk.data(), M, T, KV, d, cs, sn, -1);
    }
    GemmNN(M, D, Hd, 1, dq.data(), Hd, W.wq, D, 0, dn.data(), D);
    GemmNN(M, D, KVd, 1, dk.data(), KVd, W.wk, D, 1, dn.data(), D);
    GemmNN(M, D, KVd, 1, dv.data(), KVd, W.wv, D, 1, dn.data(), D);
    GemmTN(Hd, D, M, 1, dq.data(), Hd, A.n.data(), D, 1, g_q, D);
    GemmTN(KVd, D, M, 1, dk.data(), KVd, A.n.data(), D, 1, g_k, D);
    GemmTN(KVd, D, M, 1, dv.data(), KVd, A.n.data(), D, 1, g_v, D);
    RmsNormBackward(dn.data(), A.x.data(), W.input_norm, A.r1.data(), M, D, dx.data(), g_in);
  }
  return dx;
}

// -----------------------------------------------------------------------------
// Patch (ViT) input

// images [B, C*Hi*Wi] -> patches [B*N, C*P*P] (the reference's Patchify per
// image: row-major patch grid, each patch in (c, y, x) order).
std::vector<float> CpuTransformer::Patchify(std::span<const float> images, int B) const {
  const int C = arch_.num_channels, Hi = arch_.image_height, Wi = arch_.image_width;
  const int P = arch_.patch_size, N = arch_.NumPatches(), F = C * P * P, pw = Wi / P;
  const size_t pixels = size_t(C) * Hi * Wi;
  if (B <= 0 || images.size() != size_t(B) * pixels)
    throw std::invalid_argument("cpu transformer: " + std::to_string(images.size()) +
                                " pixel values for " + std::to_string(B) + " images of " +
                                std::to_string(pixels));
  std::vector<float> patches(size_t(B) * N * F);
  for (int b = 0; b < B; ++b)
    for (int n = 0; n < N; ++n) {
      const int py = n / pw, px = n % pw;
      float* out = &patches[(size_t(b) * N + n) * F];
      for (int ch = 0; ch < C; ++ch)
        for (int y = 0; y < P; ++y)
          for (int x = 0; x < P; ++x)
            out[(ch * P + y) * P + x] =
                images[b * pixels + (size_t(ch) * Hi + py * P + y) * Wi + px * P + x];
    }
  return patches;
}

// Class logits [B, num_labels]; `acts` and `patches` kept for the backward.
std::vector<float> CpuTransformer::RunImages(std::span<const float> images, int B, Acts* acts,
                                             std::vector<float>* patches_out) const {
  if (!arch_.Patches()) throw std::invalid_argument("cpu transformer: image input to a token model");
  const int D = config_.hidden_size, N = arch_.NumPatches(), T = N + 1, L = arch_.num_labels;
  const int F = arch_.num_channels * arch_.patch_size * arch_.patch_size;
  const std::vector<float> patches = Patchify(images, B);  // [B*N, F]
  std::vector<float> proj(size_t(B) * N * D);               // [B*N, D] = patches W_patch^T
  GemmNT(B * N, D, F, 1, patches.data(), F, &params_[patch_w_], F, 0, proj.data(), D);
  std::vector<float> x(size_t(B) * T * D);  // [B, N+1, D]
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T; ++t) {
      float* xt = &x[(size_t(b) * T + t) * D];
      const float* pos = &params_[pos_ + size_t(t) * D];
      for (int i = 0; i < D; ++i)
        xt[i] = pos[i] + (t == 0 ? params_[cls_ + i]
                                 : proj[(size_t(b) * N + t - 1) * D + i] + params_[patch_b_ + i]);
    }
  const std::vector<float> xf = RunBlocks(std::move(x), B, T, acts, nullptr);
  std::vector<float> logits(size_t(B) * L);  // [B, L] = xf[CLS] W_cls^T + b_cls
  for (int b = 0; b < B; ++b) std::copy_n(&params_[cls_b_], L, &logits[size_t(b) * L]);
  GemmNT(B, L, D, 1, xf.data(), T * D, &params_[cls_w_], D, 1, logits.data(), L);
  if (patches_out) *patches_out = patches;
  return logits;
}

std::vector<float> CpuTransformer::ForwardImages(std::span<const float> images, int batch) const {
  return RunImages(images, batch, nullptr, nullptr);
}

namespace {
// Mean cross-entropy of class logits [B, L] against labels; dlogits when asked.
double ClassCrossEntropy(const std::vector<float>& logits, int B, int L, std::span<const int> labels,
                         std::vector<float>* dlogits) {
  if (static_cast<int>(labels.size()) != B)
    throw std::invalid_argument("cpu transformer: " + std::to_string(labels.size()) +
                                " labels for " + std::to_string(B) + " images");
  Batch b{.batch = B, .seq = 1};
  b.targets.assign(labels.begin(), labels.end());
  b.weights.assign(B, 1.0f);
  return CrossEntropy(logits, B, L, b, dlogits);
}
}  // namespace

double CpuTransformer::ImageLoss(std::span<const float> images, std::span<const int> labels) const {
  const int B = static_cast<int>(labels.size());
  return ClassCrossEntropy(RunImages(images, B, nullptr, nullptr), B, arch_.num_labels, labels,
                           nullptr);
}

double CpuTransformer::ImageLossAndGrad(std::span<const float> images, std::span<const int> labels,
                                        std::span<float> grad) const {
  CheckGradBuffer(grad);
  const int B = static_cast<int>(labels.size()), D = config_.hidden_size, L = arch_.num_labels;
  const int T = arch_.NumPatches() + 1;
  Acts acts;
  std::vector<float> patches;
  const std::vector<float> logits = RunImages(images, B, &acts, &patches);
  std::vector<float> dlogits;  // [B, L]
  const double loss = ClassCrossEntropy(logits, B, L, labels, &dlogits);

  std::fill(grad.begin(), grad.end(), 0.0f);
  float* G = grad.data();
  // logits = xf[CLS] W_cls^T + b: dW_cls += dlogits^T xf[CLS], db += sum_b, dxf[CLS] = dlogits W_cls.
  GemmTN(L, D, B, 1, dlogits.data(), L, acts.xf.data(), T * D, 1, G + cls_w_, D);
  for (int b = 0; b < B; ++b)
    for (int k = 0; k < L; ++k) G[cls_b_ + k] += dlogits[size_t(b) * L + k];
  std::vector<float> dxf(size_t(B) * T * D, 0.0f);
  GemmNN(B, D, L, 1, dlogits.data(), L, &params_[cls_w_], D, 0, dxf.data(), T * D);
  const std::vector<float> dx = BackwardBlocks(acts, dxf, B, T, G);  // [B, N+1, D]
  BackwardPatchInput(dx, patches, B, G);
  return loss;
}

void CpuTransformer::BackwardPatchInput(const std::vector<float>& dx, const std::vector<float>& patches,
                                        int B, float* G) const {
  const int D = config_.hidden_size, N = arch_.NumPatches(), T = N + 1;
  const int F = arch_.num_channels * arch_.patch_size * arch_.patch_size;
  // x0[0] = cls + pos[0]; x0[1+n] = W_patch patch_n + b_patch + pos[1+n].
  std::vector<float> dproj(size_t(B) * N * D);
  for (int b = 0; b < B; ++b)
    for (int t = 0; t < T; ++t) {
      const float* g = &dx[(size_t(b) * T + t) * D];
      for (int i = 0; i < D; ++i) {
        G[pos_ + size_t(t) * D + i] += g[i];
        if (t == 0) {
          G[cls_ + i] += g[i];
        } else {
          G[patch_b_ + i] += g[i];
          dproj[(size_t(b) * N + t - 1) * D + i] = g[i];
        }
      }
    }
  GemmTN(D, F, B * N, 1, dproj.data(), D, patches.data(), F, 1, G + patch_w_, F);
}

double CpuTransformer::ImageHiddenLossAndGrad(std::span<const float> images, int B, const HiddenLoss& loss,
                                              std::span<float> grad) const {
  CheckGradBuffer(grad);
  const int D = config_.hidden_size, T = arch_.NumPatches() + 1;
  Acts acts;
  std::vector<float> patches;
  RunImages(images, B, &acts, &patches);  // keeps xf [B*T, D]; the class logits are not needed
  std::vector<float> dxf(size_t(B) * T * D, 0.0f);
  const double value = loss(acts.xf, dxf);
  std::fill(grad.begin(), grad.end(), 0.0f);
  const std::vector<float> dx = BackwardBlocks(acts, dxf, B, T, grad.data());
  BackwardPatchInput(dx, patches, B, grad.data());
  return value;
}

double CpuTransformer::ImageScoreLossAndGrad(std::span<const float> images, int B, int layer,
                                             const ScoreLoss& loss, std::span<float> grad) const {
  CheckGradBuffer(grad);
  const ref::TransformerConfig& c = config_;
  if (layer < 0 || layer >= c.num_hidden_layers)
    throw std::invalid_argument("cpu transformer: attention layer " + std::to_string(layer) + " of " +
                                std::to_string(c.num_hidden_layers));
  const int D = c.hidden_size, T = arch_.NumPatches() + 1, d = c.HeadDim();
  const int H = c.num_attention_heads, rep = H / c.num_key_value_heads;
  const int Hd = H * d, KVd = c.num_key_value_heads * d;
  const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(d)));
  Acts acts;
  std::vector<float> patches;
  RunImages(images, B, &acts, &patches);
  const LayerActs& A = acts.layers[layer];
  std::vector<float> scores(size_t(B) * H * T * T), dscores(scores.size(), 0.0f);
  for (int b = 0; b < B; ++b)
    for (int h = 0; h < H; ++h)
      GemmNT(T, T, d, scale, &A.q[size_t(b) * T * Hd + size_t(h) * d], Hd,
             &A.k[size_t(b) * T * KVd + size_t(h / rep) * d], KVd, 0, &scores[(size_t(b) * H + h) * T * T], T);
  const double value = loss(scores, dscores);
  std::fill(grad.begin(), grad.end(), 0.0f);
  const std::vector<float> dxf(size_t(B) * T * D, 0.0f);
  const std::vector<float> dx = BackwardBlocks(acts, dxf, B, T, grad.data(), layer, dscores.data());
  BackwardPatchInput(dx, patches, B, grad.data());
  return value;
}

}  // namespace cb::lm_suite
