// File: suites/docs/docs_checkpoint.h
// -----------------------------------------------------------------------------
// The paper's analysis on a real checkpoint: pick the 2-D weight tensors of
// one kind (e.g. every layer's W_q) from safetensors files and compute the
// layer x layer DOCS matrix (Min & Wang, ICLR 2025, the heatmaps of §4).
// `claimbench docs --safetensors` (docs_command.cpp) is its command line.
#ifndef CB_SUITES_DOCS_DOCS_CHECKPOINT_H_
#define CB_SUITES_DOCS_DOCS_CHECKPOINT_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "harness/backend.h"
#include "suites/docs/docs.h"

namespace cb::docs {

// One weight matrix read from a checkpoint, converted to fp32.
struct NamedTensor {
  std::string file;
  std::string name;
  int64_t rows = 0, cols = 0;
  std::vector<float> data;   // (rows, cols), row-major, as stored
  std::string content_hash;  // XXH3-128 (hex) of the shape and the fp32 values

  MatrixView view() const { return {data.data(), rows, cols, name}; }
};

// LayerOrderLess()
//
// Orders tensor names the way layers are numbered: runs of digits compare as
// numbers ("layers.2." < "layers.10."), everything else byte-wise.
bool LayerOrderLess(const std::string& a, const std::string& b);

// LoadMatchingTensors()
//
// Every 2-D tensor of `files` whose name matches `pattern` (ECMAScript regex,
// std::regex_search; an empty pattern matches all), files in the order given
// and tensors by LayerOrderLess() within a file. Tensors of any other rank
// are skipped: a pattern like "q_proj" also matches biases.
// Throws std::runtime_error with one line (naming the file or tensor) when a
// file is unreadable or malformed (harness/safetensors.h), the pattern is not
// a regex, fewer than two 2-D tensors match, two matches have different row
// counts, a dtype is not F32/F16/BF16/F64, or a tensor fails CheckDocsInput()
// (non-finite entry, all-zero column). Nothing is computed before all checks pass.
std::vector<NamedTensor> LoadMatchingTensors(const std::vector<std::string>& files,
                                             const std::string& pattern);

// The symmetric (L, L) DOCS matrix of L tensors, row-major; the diagonal is
// 1 (reflexivity, claim docs.D1) and is not computed.
struct SimilarityMatrix {
  std::vector<std::string> names;  // (L)
  std::vector<double> score;       // (L, L)
  double at(size_t i, size_t j) const { return score[i * names.size() + j]; }
};

// LayerSimilarity()
//
// DOCS of every pair i < j on `backend`. `on_pair(i, j, result)` runs after
// each pair (the command records it in the ledger there and may throw to
// stop); pairs are visited row by row.
SimilarityMatrix LayerSimilarity(
    cb::harness::Backend backend, const std::vector<NamedTensor>& tensors,
    const std::function<void(size_t i, size_t j, const cb::ref::docs::DocsResult&)>& on_pair);

}  // namespace cb::docs

#endif  // CB_SUITES_DOCS_DOCS_CHECKPOINT_H_
