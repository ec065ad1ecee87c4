// File: suites/mia/neural_dataset.cpp
// A dataset scored under a checkpoint, for `eval mia --checkpoint`; see
// neural_dataset.h.
#include "suites/mia/neural_dataset.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "harness/hash.h"
#include "harness/interrupt.h"
#include "reference/lm/bpe_tokenizer.h"
#include "reference/lm/hf_checkpoint.h"
#include "suites/lm/cpu_transformer.h"
#include "suites/mia/neural_stats.h"

namespace cb::mia {
namespace {

namespace fs = std::filesystem;

struct Line {
  int label = -1;
  std::vector<int> ids;
  std::string text;
};

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot read");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every line of `path`, checked; `tok` may be null (then "text" alone is refused).
std::vector<Line> ReadLines(const std::string& path, const std::string& bytes, bool labelled,
                            const std::optional<cb::ref::lm::BpeTokenizer>& tok,
                            const cb::ref::lm::TransformerConfig& config) {
  std::vector<Line> out;
  std::istringstream in(bytes);
  std::string text;
  for (int n = 1; std::getline(in, text); ++n) {
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = path + ":" + std::to_string(n) + ": ";
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) throw std::runtime_error(where + "not a JSON object");
    Line line;
    if (labelled) {
      const auto l = j.find("label");
      if (l == j.end() || !l->is_number_integer() || (*l != 0 && *l != 1))
        throw std::runtime_error(where + "needs \"label\": 0 or 1");
      line.label = l->get<int>();
    }
    auto t = j.find("text");
    if (t == j.end()) t = j.find("input");  // WikiMIA's field name
    const bool has_text = t != j.end();
    if (has_text) {
      if (!t->is_string()) throw std::runtime_error(where + "\"" + t.key() + "\" is not a string");
      line.text = t->get<std::string>();
    }
    if (const auto ids = j.find("ids"); ids != j.end()) {
      if (!ids->is_array()) throw std::runtime_error(where + "\"ids\" is not an array");
      for (const auto& v : *ids) {
        if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() >= config.vocab_size)
          throw std::runtime_error(where + "id " + v.dump() + " is not an integer in [0, " +
                                   std::to_string(config.vocab_size) + ")");
        line.ids.push_back(v.get<int>());
      }
    } else if (has_text) {
      if (!tok)
        throw std::runtime_error(where + "\"text\" without \"ids\", but the checkpoint has no claimbench "
                                         "tokenizer (merges.txt, vocab.json); pass your tokenizer's ids");
      line.ids = tok->Encode(labelled ? line.text : line.text + "\n");
    } else {
      throw std::runtime_error(where + "needs \"ids\" or \"text\" (or \"input\")");
    }
    if (labelled && line.ids.size() < 2)
      throw std::runtime_error(where + std::to_string(line.ids.size()) + " tokens: need >= 2 to score one");
    if (static_cast<int>(line.ids.size()) > config.max_position_embeddings)
      throw std::runtime_error(where + std::to_string(line.ids.size()) + " tokens, more than the checkpoint's " +
                               "max_position_embeddings " + std::to_string(config.max_position_embeddings));
    out.push_back(std::move(line));
  }
  if (out.empty()) throw std::runtime_error(path + ": no text");
  return out;
}

}  // namespace

StatsFile StatsFromCheckpoint(const std::string& dir, const std::string& dataset_path,
                              const std::string& finetune_path, cb::harness::Backend backend,
                              const FsdFineTuneOptions& options, CheckpointEvalReport* report) {
  const auto t0 = std::chrono::steady_clock::now();
  const cb::ref::lm::HfCheckpoint ck = cb::ref::lm::LoadCheckpoint(dir);
  std::optional<cb::ref::lm::BpeTokenizer> tok;
  if (fs::exists(fs::path(dir) / "merges.txt") && fs::exists(fs::path(dir) / "vocab.json"))
    tok = cb::ref::lm::BpeTokenizer::Load(dir);
  const std::string bytes = ReadBytes(dataset_path);
  const std::vector<Line> data = ReadLines(dataset_path, bytes, true, tok, ck.config);
  int members = 0;
  for (const Line& l : data) members += l.label;
  if (members == 0 || members == static_cast<int>(data.size()))
    throw std::runtime_error(dataset_path + ": needs both members (label 1) and non-members (label 0)");
  std::string ft_bytes;
  std::vector<Line> ft;
  if (!finetune_path.empty()) {
    ft_bytes = ReadBytes(finetune_path);
    ft = ReadLines(finetune_path, ft_bytes, false, tok, ck.config);
  }

  const cb::lm_suite::CpuTransformer model(ck.config, ck.tensors);
  StatsFile file;
  file.path = dataset_path;
  file.content_hash =
      cb::harness::Xxh3_128(bytes + "\n--finetune--\n" + ft_bytes + "\n--config--\n" + ReadBytes(dir + "/config.json"))
          .Hex();
  CheckpointEvalReport rep;
  rep.parameters = static_cast<int64_t>(model.num_params());
  {
    const NeuralScorer scorer(model, backend);
    for (const Line& l : data) {
      cb::harness::ThrowIfInterrupted("after scoring " + std::to_string(file.texts.size()) + " of " +
                                      std::to_string(data.size()) + " texts");  // the check point: one per text
      TokenStats st = scorer.Score(l.ids);
      cb::ref::mia::TextStats s;
      s.label = l.label;
      s.text = l.text;
      s.ll = std::move(st.ll);
      s.mu = std::move(st.mu);
      s.sigma2 = std::move(st.sigma2);
      rep.positions += static_cast<int64_t>(s.ll.size());
      file.texts.push_back(std::move(s));
    }
  }
  if (!ft.empty()) {
    std::vector<std::vector<int>> texts;
    for (const Line& l : ft) texts.push_back(l.ids);
    const auto tuned = FineTuneLora(model, texts, options, &rep.finetune);
    const NeuralScorer scorer(tuned, backend);
    for (size_t i = 0; i < data.size(); ++i) {
      cb::harness::ThrowIfInterrupted("after scoring " + std::to_string(i) + " of " + std::to_string(data.size()) +
                                      " texts under the fine-tuned model");
      file.texts[i].ll_ft = scorer.LogProbs(data[i].ids);
    }
    rep.finetuned = true;
  }
  // Zlib needs every text; drop partial texts so the field is all or none.
  bool all_text = true;
  for (const auto& s : file.texts) all_text = all_text && !s.text.empty();
  if (!all_text)
    for (auto& s : file.texts) s.text.clear();
  rep.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (report) *report = rep;
  return file;
}

}  // namespace cb::mia
