// File: reference/lm/kn_lm.cpp
// Interpolated modified Kneser-Ney n-gram model; the contract is in kn_lm.h.
#include "reference/lm/kn_lm.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "harness/hash.h"
#include "harness/atomic_file.h"

namespace cb::ref::lm {
namespace {

constexpr uint64_t kEmpty = ~uint64_t{0};
constexpr char kMagic[8] = {'C', 'B', 'K', 'N', 'L', 'M', '0', '1'};

uint64_t Mix(uint64_t x) {  // splitmix64 finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

template <class T>
void Put(std::string& out, T v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

struct Reader {
  std::string_view in;
  size_t pos = 0;
  template <class T>
  T Get() {
    if (pos + sizeof(T) > in.size()) throw std::runtime_error("KneserNeyLm: truncated model file");
    T v;
    std::memcpy(&v, in.data() + pos, sizeof v);
    pos += sizeof v;
    return v;
  }
};

}  // namespace

// ---------------------------------------------------------------------------
// FlatIndex

FlatIndex::FlatIndex() : keys_(16, kEmpty), values_(16, 0), mask_(15) {}

int64_t FlatIndex::Find(uint64_t key) const {
  for (uint64_t i = Mix(key) & mask_;; i = (i + 1) & mask_) {
    if (keys_[i] == key) return values_[i];
    if (keys_[i] == kEmpty) return -1;
  }
}

int64_t FlatIndex::Insert(uint64_t key, bool* inserted) {
  if (2 * (size_ + 1) > static_cast<int64_t>(keys_.size())) Grow();
  for (uint64_t i = Mix(key) & mask_;; i = (i + 1) & mask_) {
    if (keys_[i] == key) {
      *inserted = false;
      return values_[i];
    }
    if (keys_[i] == kEmpty) {
      keys_[i] = key;
      values_[i] = static_cast<uint32_t>(size_);
      *inserted = true;
      return size_++;
    }
  }
}

void FlatIndex::Grow() {
  std::vector<uint64_t> old_keys = std::move(keys_);
  std::vector<uint32_t> old_values = std::move(values_);
  keys_.assign(old_keys.size() * 2, kEmpty);
  values_.assign(old_keys.size() * 2, 0);
  mask_ = keys_.size() - 1;
  for (size_t j = 0; j < old_keys.size(); ++j) {
    if (old_keys[j] == kEmpty) continue;
    uint64_t i = Mix(old_keys[j]) & mask_;
    while (keys_[i] != kEmpty) i = (i + 1) & mask_;
    keys_[i] = old_keys[j];
    values_[i] = old_values[j];
  }
}

// ---------------------------------------------------------------------------
// KneserNeyLm: construction and counting

KneserNeyLm::KneserNeyLm(int order, int vocab_size) : order_(order), vocab_(vocab_size) {
  if (order < 1 || order > kMaxOrder) {
    throw std::invalid_argument("KneserNeyLm: order " + std::to_string(order) + " not in [1, 5]");
  }
  if (vocab_size < 2 || vocab_size > (1 << 24)) {
    throw std::invalid_argument("KneserNeyLm: vocab_size " + std::to_string(vocab_size) +
                                " not in [2, 2^24]");
  }
  for (auto& d : discounts_) d = {0.5, 1.0, 1.5};
  node_parent_.push_back(0);  // root: the empty context
  node_token_.push_back(-1);
  node_depth_.push_back(0);
  Finalize();
}

uint64_t KneserNeyLm::NodeKey(uint32_t parent, int32_t token) const {
  return uint64_t{parent} * uint64_t(vocab_ + 1) + uint64_t(token);
}
uint64_t KneserNeyLm::NgramKey(uint32_t ctx, int32_t word) const {
  return uint64_t{ctx} * uint64_t(vocab_) + uint64_t(word);
}

uint32_t KneserNeyLm::NodeFor(uint32_t parent, int32_t token) {
  bool inserted = false;
  const int64_t id = node_index_.Insert(NodeKey(parent, token), &inserted);
  if (inserted) {
    node_parent_.push_back(parent);
    node_token_.push_back(token);
    node_depth_.push_back(static_cast<uint8_t>(node_depth_[parent] + 1));
  }
  return static_cast<uint32_t>(id + 1);  // node ids: root 0, then index + 1
}

int64_t KneserNeyLm::FindNode(uint32_t parent, int32_t token) const {
  const int64_t id = node_index_.Find(NodeKey(parent, token));
  return id < 0 ? -1 : id + 1;
}

void KneserNeyLm::Count(std::span<const Document> docs) {
  const int n = order_;
  uint32_t nodes[kMaxOrder];
  for (size_t d = 0; d < docs.size(); ++d) {
    const Document& doc = docs[d];
    for (size_t t = 0; t < doc.size(); ++t) {
      if (doc[t] < 0 || doc[t] >= vocab_) {
        throw std::invalid_argument("KneserNeyLm: document " + std::to_string(d) + " position " +
                                    std::to_string(t) + ": token " + std::to_string(doc[t]) +
                                    " not in [0, " + std::to_string(vocab_) + ")");
      }
    }
    for (size_t t = 0; t < doc.size(); ++t) {
      const int32_t w = doc[t];
      nodes[0] = 0;
      for (int j = 1; j < n; ++j) {
        const int32_t u = t >= size_t(j) ? doc[t - j] : vocab_;  // BOS padding
        nodes[j] = NodeFor(nodes[j - 1], u);
      }
      // Highest order: raw count. Lower orders: +1 when the n-gram one order
      // up, (u h w), was seen for the first time (a new left extension).
      double add = 1.0;
      for (int j = n - 1; j >= 0; --j) {
        bool inserted = false;
        const int64_t id = ngram_index_.Insert(NgramKey(nodes[j], w), &inserted);
        if (inserted) {
          ngram_ctx_.push_back(nodes[j]);
          ngram_word_.push_back(w);
          count_.push_back(0.0);
        }
        count_[id] += add;
        add = inserted ? 1.0 : 0.0;
      }
    }
  }
}

void KneserNeyLm::AddCounts(const KneserNeyLm& other, double weight) {
  std::vector<uint32_t> map(other.node_parent_.size(), 0);  // other's node -> ours
  for (size_t id = 1; id < other.node_parent_.size(); ++id) {  // parents precede children
    map[id] = NodeFor(map[other.node_parent_[id]], other.node_token_[id]);
  }
  for (size_t g = 0; g < other.count_.size(); ++g) {
    bool inserted = false;
    const uint32_t ctx = map[other.ngram_ctx_[g]];
    const int64_t id = ngram_index_.Insert(NgramKey(ctx, other.ngram_word_[g]), &inserted);
    if (inserted) {
      ngram_ctx_.push_back(ctx);
      ngram_word_.push_back(other.ngram_word_[g]);
      count_.push_back(0.0);
    }
    count_[id] += weight * other.count_[g];
  }
}

void KneserNeyLm::Train(std::span<const Document> docs) {
  if (fine_tuned_) throw std::logic_error("KneserNeyLm::Train after FineTune");
  Count(docs);
  ComputeDiscounts();
  Finalize();
}

void KneserNeyLm::FineTune(std::span<const Document> docs, double weight) {
  if (!(weight > 0) || !std::isfinite(weight)) {
    throw std::invalid_argument("KneserNeyLm::FineTune: weight must be finite and > 0");
  }
  KneserNeyLm other(order_, vocab_);
  other.Count(docs);
  AddCounts(other, weight);
  fine_tuned_ = true;
  Finalize();
}

void KneserNeyLm::ComputeDiscounts() {
  for (int k = 1; k <= order_; ++k) {
    double n[5] = {0, 0, 0, 0, 0};  // n[r] = n-grams of order k with count r
    for (size_t g = 0; g < count_.size(); ++g) {
      if (node_depth_[ngram_ctx_[g]] != k - 1) continue;
      const double a = count_[g];
      if (a >= 1 && a <= 4 && a == std::floor(a)) n[int(a)] += 1;
    }
    const double fallback[3] = {0.5, 1.0, 1.5};
    for (int r = 1; r <= 3; ++r) {
      double d = fallback[r - 1];
      if (n[1] > 0 && n[2] > 0 && n[r] > 0 && n[r + 1] > 0) {
        const double y = n[1] / (n[1] + 2 * n[2]);
        const double est = r - (r + 1) * y * n[r + 1] / n[r];
        if (est > 0 && est <= r) d = est;
      }
      discounts_[k - 1][r - 1] = d;
    }
  }
}

double KneserNeyLm::Discount(int depth, double a) const {
  if (a <= 0) return 0.0;
  const auto& d = discounts_[depth];
  return std::min(a, a <= 1 ? d[0] : a <= 2 ? d[1] : d[2]);
}

void KneserNeyLm::SetPruning(double min_count) {
  if (!(min_count >= 0) || !std::isfinite(min_count)) {
    throw std::invalid_argument("KneserNeyLm::SetPruning: min_count must be finite and >= 0");
  }
  min_count_ = min_count;
  Finalize();
}

void KneserNeyLm::Finalize() {
  const size_t nodes = node_parent_.size(), grams = count_.size();
  // The count each n-gram contributes: 0 when pruned (order >= 2 only).
  auto kept = [&](size_t g) {
    return node_depth_[ngram_ctx_[g]] >= 1 && count_[g] < min_count_ ? 0.0 : count_[g];
  };
  total_.assign(nodes, 0.0);
  gamma_.assign(nodes, 0.0);
  std::vector<double> dmass(nodes, 0.0);
  succ_begin_.assign(nodes + 1, 0);
  for (size_t g = 0; g < grams; ++g) {
    const uint32_t c = ngram_ctx_[g];
    const double a = kept(g);
    if (a == 0) continue;
    total_[c] += a;
    dmass[c] += Discount(node_depth_[c], a);
    ++succ_begin_[c + 1];
  }
  for (size_t i = 0; i < nodes; ++i) {
    gamma_[i] = total_[i] > 0 ? dmass[i] / total_[i] : 0.0;
    succ_begin_[i + 1] += succ_begin_[i];
  }
  discounted_.assign(grams, 0.0);
  succ_.assign(grams, 0);  // trimmed to the kept n-grams below
  std::vector<int64_t> fill(succ_begin_.begin(), succ_begin_.end() - 1);
  for (size_t g = 0; g < grams; ++g) {
    const uint32_t c = ngram_ctx_[g];
    const double a = kept(g);
    if (a == 0) continue;
    discounted_[g] = std::max(a - Discount(node_depth_[c], a), 0.0) / total_[c];
    succ_[fill[c]++] = static_cast<int64_t>(g);
  }
  succ_.resize(succ_begin_[nodes]);
  for (size_t i = 0; i < nodes; ++i) {
    std::sort(succ_.begin() + succ_begin_[i], succ_.begin() + succ_begin_[i + 1],
              [&](int64_t a, int64_t b) { return ngram_word_[a] < ngram_word_[b]; });
  }
  // Dense unigram level over the uniform floor.
  unigram_.assign(vocab_, 1.0 / vocab_);
  if (total_[0] > 0) {
    for (double& p : unigram_) p *= gamma_[0];
    for (int64_t s = succ_begin_[0]; s < succ_begin_[1]; ++s) {
      unigram_[ngram_word_[succ_[s]]] += discounted_[succ_[s]];
    }
  }
  uni_sum_ = uni_l_ = uni_q_ = 0;
  for (double u : unigram_) {
    const double l = std::log(u);
    uni_sum_ += u;
    uni_l_ += u * l;
    uni_q_ += u * l * l;
  }
}

std::array<double, 3> KneserNeyLm::Discounts(int k) const {
  if (k < 1 || k > order_) throw std::invalid_argument("KneserNeyLm::Discounts: bad order");
  return discounts_[k - 1];
}

// ---------------------------------------------------------------------------
// Scoring

double KneserNeyLm::LogProb(std::span<const Token> doc, size_t t) const {
  if (t >= doc.size()) throw std::invalid_argument("KneserNeyLm::LogProb: t out of range");
  const int32_t w = doc[t];
  if (w < 0 || w >= vocab_) {
    throw std::invalid_argument("KneserNeyLm::LogProb: token " + std::to_string(w) +
                                " at position " + std::to_string(t) + " not in [0, V)");
  }
  double p = unigram_[w];
  uint32_t node = 0;
  for (int j = 1; j < order_; ++j) {
    const int32_t u = t >= size_t(j) ? doc[t - j] : vocab_;
    if (u < 0 || u > vocab_) throw std::invalid_argument("KneserNeyLm::LogProb: bad context token");
    const int64_t next = FindNode(node, u);
    if (next < 0) break;  // longer contexts extend this one: unseen as well
    node = static_cast<uint32_t>(next);
    if (total_[node] > 0) {
      const int64_t g = ngram_index_.Find(NgramKey(node, w));
      p = gamma_[node] * p + (g >= 0 ? discounted_[g] : 0.0);
    }
  }
  return std::log(p);
}

void KneserNeyLm::LogProbs(std::span<const Token> doc, std::span<double> out) const {
  if (out.size() != doc.size()) throw std::invalid_argument("KneserNeyLm::LogProbs: out size");
  for (size_t t = 0; t < doc.size(); ++t) out[t] = LogProb(doc, t);
}

void KneserNeyLm::Distribution(std::span<const Token> doc, size_t t,
                               std::span<double> out) const {
  if (out.size() != size_t(vocab_)) throw std::invalid_argument("KneserNeyLm::Distribution: out size");
  if (t > doc.size()) throw std::invalid_argument("KneserNeyLm::Distribution: t out of range");
  std::copy(unigram_.begin(), unigram_.end(), out.begin());
  uint32_t node = 0;
  for (int j = 1; j < order_; ++j) {
    const int32_t u = t >= size_t(j) ? doc[t - j] : vocab_;
    if (u < 0 || u > vocab_) throw std::invalid_argument("KneserNeyLm::Distribution: bad context token");
    const int64_t next = FindNode(node, u);
    if (next < 0) break;
    node = static_cast<uint32_t>(next);
    if (total_[node] > 0) {
      const double g = gamma_[node];
      for (double& p : out) p *= g;
      for (int64_t s = succ_begin_[node]; s < succ_begin_[node + 1]; ++s) {
        out[ngram_word_[succ_[s]]] += discounted_[succ_[s]];
      }
    }
  }
}

KneserNeyLm::Moments KneserNeyLm::NextTokenMoments(std::span<const Token> doc, size_t t) const {
  if (t >= doc.size()) throw std::invalid_argument("KneserNeyLm::NextTokenMoments: t out of range");
  const int32_t target = doc[t];
  if (target < 0 || target >= vocab_) {
    throw std::invalid_argument("KneserNeyLm::NextTokenMoments: token " + std::to_string(target) +
                                " at position " + std::to_string(t) + " not in [0, V)");
  }
  // Context nodes with A(h) > 0 on the path, shortest first.
  uint32_t path[kMaxOrder];
  int levels = 0;
  uint32_t node = 0;
  for (int j = 1; j < order_; ++j) {
    const int32_t u = t >= size_t(j) ? doc[t - j] : vocab_;
    if (u < 0 || u > vocab_) throw std::invalid_argument("KneserNeyLm::NextTokenMoments: bad context token");
    const int64_t next = FindNode(node, u);
    if (next < 0) break;
    node = static_cast<uint32_t>(next);
    if (total_[node] > 0) path[levels++] = node;
  }
  // suffix[j] = product of the gammas of the levels after j; c = all of them.
  double suffix[kMaxOrder + 1];
  suffix[levels] = 1.0;
  for (int j = levels - 1; j >= 0; --j) suffix[j] = suffix[j + 1] * gamma_[path[j]];
  const double c = suffix[0];
  // acc[w]: sum over levels of discounted(w) x suffix gamma product, for the
  // words in S (listed once each in `touched`). Scratch is per thread.
  thread_local std::vector<double> acc;
  thread_local std::vector<uint8_t> seen;
  thread_local std::vector<int32_t> touched;
  if (acc.size() != size_t(vocab_)) {
    acc.assign(vocab_, 0.0);
    seen.assign(vocab_, 0);
  }
  touched.clear();
  for (int j = 0; j < levels; ++j) {
    const double g = suffix[j + 1];
    for (int64_t s = succ_begin_[path[j]]; s < succ_begin_[path[j] + 1]; ++s) {
      const int32_t w = ngram_word_[succ_[s]];
      if (!seen[w]) {
        seen[w] = 1;
        touched.push_back(w);
      }
      acc[w] += discounted_[succ_[s]] * g;
    }
  }
  Moments m;
  double rest_u = uni_sum_, rest_l = uni_l_, rest_q = uni_q_;
  bool target_done = false;
  for (const int32_t w : touched) {
    const double u = unigram_[w], lu = std::log(u);
    rest_u -= u;
    rest_l -= u * lu;
    rest_q -= u * lu * lu;
    const double p = c * u + acc[w], lp = std::log(p);
    m.mu += p * lp;
    m.second += p * lp * lp;
    if (w == target) {
      m.log_prob = lp;
      target_done = true;
    }
    acc[w] = 0.0;
    seen[w] = 0;
  }
  if (c > 0) {
    const double lc = std::log(c);
    m.mu += c * (lc * rest_u + rest_l);
    m.second += c * (lc * lc * rest_u + 2 * lc * rest_l + rest_q);
  }
  if (!target_done) m.log_prob = std::log(c * unigram_[target]);
  return m;
}

// ---------------------------------------------------------------------------
// Persistence

std::string KneserNeyLm::Serialize() const {
  std::string out(kMagic, sizeof kMagic);
  Put<int32_t>(out, order_);
  Put<int32_t>(out, vocab_);
  Put<uint8_t>(out, fine_tuned_ ? 1 : 0);
  Put<double>(out, min_count_);
  for (int k = 0; k < order_; ++k) {
    for (double d : discounts_[k]) Put<double>(out, d);
  }
  Put<uint64_t>(out, node_parent_.size());
  for (size_t i = 1; i < node_parent_.size(); ++i) {
    Put<uint32_t>(out, node_parent_[i]);
    Put<int32_t>(out, node_token_[i]);
  }
  Put<uint64_t>(out, count_.size());
  for (size_t g = 0; g < count_.size(); ++g) {
    Put<uint32_t>(out, ngram_ctx_[g]);
    Put<int32_t>(out, ngram_word_[g]);
    Put<double>(out, count_[g]);
  }
  return out;
}

KneserNeyLm KneserNeyLm::Deserialize(std::string_view bytes) {
  if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) {
    throw std::runtime_error("KneserNeyLm: not a claimbench KN model (bad magic)");
  }
  Reader r{bytes, sizeof kMagic};
  const int order = r.Get<int32_t>(), vocab = r.Get<int32_t>();
  if (order < 1 || order > kMaxOrder || vocab < 2 || vocab > (1 << 24)) {
    throw std::runtime_error("KneserNeyLm: bad order or vocabulary in model file");
  }
  KneserNeyLm lm(order, vocab);
  lm.fine_tuned_ = r.Get<uint8_t>() != 0;
  lm.min_count_ = r.Get<double>();
  if (!(lm.min_count_ >= 0) || !std::isfinite(lm.min_count_)) throw std::runtime_error("KneserNeyLm: bad pruning threshold");
  for (int k = 0; k < order; ++k) {
    for (double& d : lm.discounts_[k]) d = r.Get<double>();
  }
  const uint64_t nodes = r.Get<uint64_t>();
  if (nodes == 0 || nodes > bytes.size()) throw std::runtime_error("KneserNeyLm: bad node count");
  for (uint64_t i = 1; i < nodes; ++i) {
    const uint32_t parent = r.Get<uint32_t>();
    const int32_t token = r.Get<int32_t>();
    if (parent >= i || token < 0 || token > vocab || lm.node_depth_[parent] + 1 >= order) {
      throw std::runtime_error("KneserNeyLm: bad context node " + std::to_string(i));
    }
    if (lm.NodeFor(parent, token) != i) throw std::runtime_error("KneserNeyLm: duplicate node");
  }
  const uint64_t grams = r.Get<uint64_t>();
  if (grams > bytes.size()) throw std::runtime_error("KneserNeyLm: bad n-gram count");
  for (uint64_t g = 0; g < grams; ++g) {
    const uint32_t ctx = r.Get<uint32_t>();
    const int32_t word = r.Get<int32_t>();
    const double count = r.Get<double>();
    if (ctx >= nodes || word < 0 || word >= vocab || !(count >= 0) || !std::isfinite(count)) {
      throw std::runtime_error("KneserNeyLm: bad n-gram " + std::to_string(g));
    }
    bool inserted = false;
    lm.ngram_index_.Insert(lm.NgramKey(ctx, word), &inserted);
    if (!inserted) throw std::runtime_error("KneserNeyLm: duplicate n-gram " + std::to_string(g));
    lm.ngram_ctx_.push_back(ctx);
    lm.ngram_word_.push_back(word);
    lm.count_.push_back(count);
  }
  if (r.pos != bytes.size()) throw std::runtime_error("KneserNeyLm: trailing bytes in model file");
  lm.Finalize();
  return lm;
}

void KneserNeyLm::Save(const std::string& path) const {
  const std::string bytes = Serialize();
  try {
    cb::harness::WriteFileAtomically(path, bytes);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string("KneserNeyLm::Save: ") + e.what());
  }
}

KneserNeyLm KneserNeyLm::Load(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("KneserNeyLm::Load: cannot open " + path);
  std::stringstream ss;
  ss << f.rdbuf();
  return Deserialize(ss.str());
}

std::string KneserNeyLm::ContentHash() const { return cb::harness::Xxh3_128(Serialize()).Hex(); }

}  // namespace cb::ref::lm
