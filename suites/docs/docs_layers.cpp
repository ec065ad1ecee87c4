// File: suites/docs/docs_layers.cpp
// The layer-structure analysis of a checkpoint (see docs_layers.h).
#include "suites/docs/docs_layers.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <numeric>
#include <regex>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "generators/tensors.h"
#include "harness/hash.h"
#include "harness/random.h"
#include "harness/safetensors.h"
#include "harness/stats.h"

namespace cb::docs {
namespace {

namespace fs = std::filesystem;
namespace h = cb::harness;

constexpr int kResamples = 2000;
constexpr int kExactPermutationsUpTo = 8;  // 8! = 40320 relabellings
constexpr int kRandomPermutations = 20000;

double SampleSd(const std::vector<double>& x) {
  if (x.size() < 2) return 0;
  const double mean = h::Mean(x);
  double ss = 0;
  for (const double v : x) ss += (v - mean) * (v - mean);
  return std::sqrt(ss / static_cast<double>(x.size() - 1));
}

// Mean of `v` resampled with replacement (same size).
double ResampledMean(const std::vector<double>& v, h::Rng& rng) {
  double sum = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    sum += v[static_cast<size_t>(rng.UniformInt(0, v.size() - 1))];
  }
  return sum / static_cast<double>(v.size());
}

// Percentile-bootstrap interval of mean(a) - mean(b), a and b resampled separately.
h::Interval TwoSampleGapCi(const std::vector<double>& a, const std::vector<double>& b,
                           uint64_t seed, uint64_t stream) {
  h::Rng rng(seed, stream);
  std::vector<double> replicates;
  replicates.reserve(kResamples);
  for (int r = 0; r < kResamples; ++r) replicates.push_back(ResampledMean(a, rng) - ResampledMean(b, rng));
  return h::PercentileInterval(replicates, 0.95);
}

// Adjacent - non-adjacent gap when tensor i sits at position rank[i] of the
// layer order (adjacent: |rank_i - rank_j| = 1).
double GapUnder(const std::vector<int>& rank, const SimilarityMatrix& sim) {
  double adj = 0, far = 0;
  int n_adj = 0, n_far = 0;
  const size_t n = rank.size();
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      if (std::abs(rank[i] - rank[j]) == 1) {
        adj += sim.at(i, j);
        ++n_adj;
      } else {
        far += sim.at(i, j);
        ++n_far;
      }
    }
  }
  return adj / n_adj - far / n_far;
}

}  // namespace

const std::vector<ProjectionType>& LlamaProjections() {
  static const std::vector<ProjectionType> kTypes = {
      {"q_proj", R"(^model\.layers\.([0-9]+)\.self_attn\.q_proj\.weight$)"},
      {"k_proj", R"(^model\.layers\.([0-9]+)\.self_attn\.k_proj\.weight$)"},
      {"v_proj", R"(^model\.layers\.([0-9]+)\.self_attn\.v_proj\.weight$)"},
      {"o_proj", R"(^model\.layers\.([0-9]+)\.self_attn\.o_proj\.weight$)"},
      {"gate_proj", R"(^model\.layers\.([0-9]+)\.mlp\.gate_proj\.weight$)"},
      {"up_proj", R"(^model\.layers\.([0-9]+)\.mlp\.up_proj\.weight$)"},
      {"down_proj", R"(^model\.layers\.([0-9]+)\.mlp\.down_proj\.weight$)"},
  };
  return kTypes;
}

std::vector<std::string> CheckpointFiles(const std::string& dir) {
  if (!fs::is_directory(dir)) throw std::runtime_error("checkpoint " + dir + ": not a folder");
  const fs::path single = fs::path(dir) / "model.safetensors";
  const fs::path index = fs::path(dir) / "model.safetensors.index.json";
  const bool has_single = fs::exists(single), has_index = fs::exists(index);
  if (has_single && has_index) {
    throw std::runtime_error("checkpoint " + dir +
                             ": both model.safetensors and model.safetensors.index.json (ambiguous)");
  }
  if (has_single) return {single.string()};
  if (!has_index) {
    throw std::runtime_error("checkpoint " + dir +
                             ": no model.safetensors or model.safetensors.index.json (Hugging Face layout)");
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(std::ifstream(index));
  } catch (const nlohmann::json::exception&) {
    throw std::runtime_error(index.string() + ": not JSON");
  }
  if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object() || j["weight_map"].empty()) {
    throw std::runtime_error(index.string() + ": no non-empty \"weight_map\" object");
  }
  std::set<std::string> shards;
  for (const auto& [name, file] : j["weight_map"].items()) {
    const std::string f = file.is_string() ? file.get<std::string>() : "";
    if (f.empty() || f == "." || f == ".." || f.find('/') != std::string::npos ||
        f.find('\\') != std::string::npos) {
      throw std::runtime_error(index.string() + ": weight_map[\"" + name +
                               "\"] is not a file name in the checkpoint folder");
    }
    shards.insert(f);
  }
  std::vector<std::string> out;
  for (const auto& f : shards) out.push_back((fs::path(dir) / f).string());
  return out;
}

std::vector<int> ScanProjection(const std::vector<std::string>& files, const ProjectionType& type) {
  const std::regex re(type.regex);
  std::vector<std::pair<int, std::string>> found;  // (layer, name)
  std::vector<int64_t> shape;
  std::string first;
  for (const auto& f : files) {
    const h::SafetensorsFile file = h::SafetensorsFile::Open(f);
    for (const auto& t : file.tensors()) {
      std::smatch m;
      if (t.shape.size() != 2 || !std::regex_search(t.name, m, re)) continue;
      if (shape.empty()) {
        shape = t.shape;
        first = t.name;
      } else if (t.shape != shape) {
        throw std::runtime_error(std::string(type.name) + ": '" + t.name + "' is " +
                                 std::to_string(t.shape[0]) + "x" + std::to_string(t.shape[1]) + ", '" + first +
                                 "' is " + std::to_string(shape[0]) + "x" + std::to_string(shape[1]) +
                                 "; every layer's matrix must have one shape");
      }
      found.push_back({std::stoi(m[1].str()), t.name});
    }
  }
  if (found.size() < 2) {
    throw std::runtime_error(std::string(type.name) + ": " + std::to_string(found.size()) +
                             " layer(s) found (2-D model.layers.N..." + type.name +
                             ".weight); the layer analysis needs at least two");
  }
  std::sort(found.begin(), found.end());
  std::vector<int> layers;
  for (size_t k = 0; k < found.size(); ++k) {
    if (k > 0 && found[k].first == found[k - 1].first) {
      throw std::runtime_error(std::string(type.name) + ": layer " + std::to_string(found[k].first) +
                               " appears twice ('" + found[k].second + "')");
    }
    layers.push_back(found[k].first);
  }
  return layers;
}

ProjectionLayers LoadProjection(const std::vector<std::string>& files, const ProjectionType& type) {
  ProjectionLayers out;
  out.proj = type.name;
  out.layer = ScanProjection(files, type);
  std::vector<NamedTensor> loaded = LoadMatchingTensors(files, type.regex);
  // Shards may split the layers in any order: order by the layer number.
  const std::regex re(type.regex);
  std::map<int, NamedTensor> by_layer;
  for (auto& t : loaded) {
    std::smatch m;
    std::regex_search(t.name, m, re);
    const int layer = std::stoi(m[1].str());
    by_layer.emplace(layer, std::move(t));
  }
  for (auto& [layer, t] : by_layer) out.tensors.push_back(std::move(t));
  return out;
}

ProjectionLayers Transposed(const ProjectionLayers& layers) {
  ProjectionLayers out;
  out.proj = layers.proj;
  out.layer = layers.layer;
  for (const NamedTensor& t : layers.tensors) {
    NamedTensor tt;
    tt.file = t.file;
    tt.name = t.name;
    tt.rows = t.cols;
    tt.cols = t.rows;
    tt.data.resize(t.data.size());
    for (int64_t r = 0; r < t.rows; ++r) {
      for (int64_t c = 0; c < t.cols; ++c) tt.data[c * t.rows + r] = t.data[r * t.cols + c];
    }
    h::Hasher hasher;
    const int64_t shape[2] = {tt.rows, tt.cols};
    hasher.Update({reinterpret_cast<const char*>(shape), sizeof shape});
    hasher.Update({reinterpret_cast<const char*>(tt.data.data()), tt.data.size() * sizeof(float)});
    tt.content_hash = hasher.Digest().Hex();
    out.tensors.push_back(std::move(tt));
  }
  return out;
}

ChanceFloor ChanceFloorOf(h::Backend backend, int64_t rows, int64_t cols, int draws, uint64_t seed) {
  if (draws < 1) throw std::invalid_argument("chance floor: draws must be >= 1");
  ChanceFloor out;
  out.rows = rows;
  out.cols = cols;
  for (int d = 0; d < draws; ++d) {
    const auto x = cb::gen::GaussianMatrix(rows, cols, seed, 2 * d).matrix.data;
    const auto y = cb::gen::GaussianMatrix(rows, cols, seed, 2 * d + 1).matrix.data;
    const std::vector<float> xf(x.begin(), x.end()), yf(y.begin(), y.end());
    out.scores.push_back(Docs(backend, {xf.data(), rows, cols, "chance X"}, {yf.data(), rows, cols, "chance Y"}).score);
  }
  out.mean = h::Mean(out.scores);
  out.sd = SampleSd(out.scores);
  out.max = *std::max_element(out.scores.begin(), out.scores.end());
  out.ci = h::MeanBootstrapCi(out.scores, seed);
  return out;
}

Adjacency Summarise(const std::vector<int>& layer, const SimilarityMatrix& sim, const ChanceFloor& chance,
                    uint64_t seed) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> adjacent, far;
  const size_t n = layer.size();
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      (std::abs(layer[i] - layer[j]) == 1 ? adjacent : far).push_back(sim.at(i, j));
    }
  }
  if (adjacent.empty()) throw std::invalid_argument("no two tensors sit on adjacent layers");
  Adjacency out;
  out.adjacent_pairs = static_cast<int>(adjacent.size());
  out.non_adjacent_pairs = static_cast<int>(far.size());
  out.adjacent_mean = h::Mean(adjacent);
  out.gap_chance = out.adjacent_mean - chance.mean;
  out.gap_chance_ci = TwoSampleGapCi(adjacent, chance.scores, seed, 1);
  if (far.empty()) {
    out.non_adjacent_mean = out.gap_far = out.permutation_p = kNaN;
    out.gap_far_ci = {kNaN, kNaN};
    return out;
  }
  out.non_adjacent_mean = h::Mean(far);
  out.gap_far = out.adjacent_mean - out.non_adjacent_mean;
  out.gap_far_ci = TwoSampleGapCi(adjacent, far, seed, 2);

  // Permutation test over the layer order. The observed order is ranked by
  // layer number (gaps in the numbering, e.g. a pruned layer, are closed up:
  // only the order is permuted, and adjacency under a relabelling is by rank).
  std::vector<int> rank(n);
  std::iota(rank.begin(), rank.end(), 0);
  const bool numbering_has_gaps = [&] {
    for (size_t i = 1; i < n; ++i) {
      if (layer[i] != layer[i - 1] + 1) return true;
    }
    return false;
  }();
  // With gaps, the observed statistic (adjacency by layer number) and the
  // relabelled ones (by rank) differ in kind: no p-value then.
  if (numbering_has_gaps) {
    out.permutation_p = kNaN;
    return out;
  }
  const double observed = GapUnder(rank, sim);
  const double tol = 1e-12 * std::max(1.0, std::abs(observed));  // ties from reversed orders
  int at_least = 0, total = 0;
  if (static_cast<int>(n) <= kExactPermutationsUpTo) {
    std::vector<int> perm = rank;
    do {
      at_least += GapUnder(perm, sim) >= observed - tol;
      ++total;
    } while (std::next_permutation(perm.begin(), perm.end()));
  } else {
    h::Rng rng(seed, 3);
    std::vector<int> perm = rank;
    at_least = 1;  // the identity
    total = 1;
    for (int p = 1; p < kRandomPermutations; ++p) {
      rng.Shuffle(std::span<int>(perm));
      at_least += GapUnder(perm, sim) >= observed - tol;
      ++total;
    }
  }
  out.permutation_p = static_cast<double>(at_least) / total;
  out.permutations = total;
  return out;
}

}  // namespace cb::docs
