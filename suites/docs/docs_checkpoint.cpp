// File: suites/docs/docs_checkpoint.cpp
// Loading a checkpoint's matching weight matrices and their DOCS matrix.
#include "suites/docs/docs_checkpoint.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <regex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "harness/hash.h"
#include "harness/safetensors.h"

namespace cb::docs {
namespace {

namespace h = cb::harness;

std::string Shape(int64_t rows, int64_t cols) {
  return std::to_string(rows) + "x" + std::to_string(cols);
}

std::string HashOf(int64_t rows, int64_t cols, const std::vector<float>& data) {
  h::Hasher hasher;
  const int64_t shape[2] = {rows, cols};  // little-endian on every platform we build for
  hasher.Update({reinterpret_cast<const char*>(shape), sizeof shape});
  hasher.Update({reinterpret_cast<const char*>(data.data()), data.size() * sizeof(float)});
  return hasher.Digest().Hex();
}

NamedTensor Load(const h::SafetensorsFile& file, const h::SafetensorsTensor& t) {
  NamedTensor out;
  out.file = file.path();
  out.name = t.name;
  out.rows = t.shape[0];
  out.cols = t.shape[1];
  const std::vector<double> values = file.ReadAsDouble(t.name);  // (rows, cols)
  out.data.assign(values.begin(), values.end());  // F64 rounds to fp32: the fast paths' precision
  for (const float v : out.data) {
    if (!std::isfinite(v)) {
      // Also catches an F64 value beyond the fp32 range.
      throw std::runtime_error(file.path() + ": tensor '" + t.name +
                               "' has a non-finite entry (in fp32)");
    }
  }
  out.content_hash = HashOf(out.rows, out.cols, out.data);
  return out;
}

}  // namespace

bool LayerOrderLess(const std::string& a, const std::string& b) {
  size_t i = 0, j = 0;
  auto digit = [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; };
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      size_t i_end = i, j_end = j;
      while (i_end < a.size() && digit(a[i_end])) ++i_end;
      while (j_end < b.size() && digit(b[j_end])) ++j_end;
      // Compare as numbers without parsing: strip leading zeros, then length, then digits.
      std::string_view x(a.data() + i, i_end - i), y(b.data() + j, j_end - j);
      x.remove_prefix(std::min(x.find_first_not_of('0'), x.size()));
      y.remove_prefix(std::min(y.find_first_not_of('0'), y.size()));
      if (x.size() != y.size()) return x.size() < y.size();
      if (x != y) return x < y;
      i = i_end;
      j = j_end;
    } else {
      if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
      ++i;
      ++j;
    }
  }
  if ((a.size() - i) != (b.size() - j)) return (a.size() - i) < (b.size() - j);
  return a < b;  // equal up to leading zeros: any fixed tie-break
}

std::vector<NamedTensor> LoadMatchingTensors(const std::vector<std::string>& files,
                                             const std::string& pattern) {
  std::regex re;
  try {
    re = std::regex(pattern);
  } catch (const std::regex_error&) {
    throw std::runtime_error("--match '" + pattern + "': not a valid regular expression");
  }
  // Headers first, so a bad file or a bad selection fails before any data is read.
  std::vector<h::SafetensorsFile> opened;
  std::vector<std::vector<const h::SafetensorsTensor*>> selected;
  for (const std::string& path : files) {
    opened.push_back(h::SafetensorsFile::Open(path));
  }
  std::string first_name, first_file;
  int64_t first_rows = -1, first_cols = -1;
  size_t count = 0;
  for (const auto& file : opened) {
    std::vector<const h::SafetensorsTensor*> picks;
    for (const auto& t : file.tensors()) {
      if (t.shape.size() != 2 || !std::regex_search(t.name, re)) continue;
      if (first_rows < 0) {
        first_rows = t.shape[0];
        first_cols = t.shape[1];
        first_name = t.name;
        first_file = file.path();
      } else if (t.shape[0] != first_rows) {
        throw std::runtime_error(
            "tensors '" + first_name + "' (" + Shape(first_rows, first_cols) + ", " + first_file +
            ") and '" + t.name + "' (" + Shape(t.shape[0], t.shape[1]) + ", " + file.path() +
            ") have different row counts; narrow --match to one kind of matrix");
      }
      picks.push_back(&t);
    }
    std::sort(picks.begin(), picks.end(),
              [](const auto* a, const auto* b) { return LayerOrderLess(a->name, b->name); });
    count += picks.size();
    selected.push_back(std::move(picks));
  }
  if (count < 2) {
    std::string files;
    for (const auto& file : opened) files += (files.empty() ? "" : ", ") + file.path();
    throw std::runtime_error("--match '" + pattern + "' selects " + std::to_string(count) + " 2-D tensor(s) in " +
                             files + "; DOCS needs at least two");
  }
  std::vector<NamedTensor> out;
  out.reserve(count);
  for (size_t f = 0; f < opened.size(); ++f) {
    for (const auto* t : selected[f]) {
      out.push_back(Load(opened[f], *t));
      try {
        CheckDocsInput(out.back().view(), out.back().view());
      } catch (const std::invalid_argument& e) {
        throw std::runtime_error(opened[f].path() + ": tensor '" + t->name + "': " + e.what());
      }
    }
  }
  return out;
}

SimilarityMatrix LayerSimilarity(
    h::Backend backend, const std::vector<NamedTensor>& tensors,
    const std::function<void(size_t, size_t, const cb::ref::docs::DocsResult&)>& on_pair) {
  const size_t n = tensors.size();
  SimilarityMatrix out;
  for (const auto& t : tensors) out.names.push_back(t.name);
  out.score.assign(n * n, 1.0);
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      const auto r = Docs(backend, tensors[i].view(), tensors[j].view());
      out.score[i * n + j] = out.score[j * n + i] = r.score;
      if (on_pair) on_pair(i, j, r);
    }
  }
  return out;
}

}  // namespace cb::docs
