// File: suites/pf/pf_lm_command.cpp
// -----------------------------------------------------------------------------
// `claimbench gen text --checkpoint DIR (--prompt-ids IDS | --prompts FILE)`:
// PF / softmax / greedy decoding and the PF / Gumbel / KGW watermarks on a
// Llama-family checkpoint in Hugging Face layout (config.json +
// model.safetensors; reference/lm/hf_checkpoint.h), fp32 with a KV cache on
// --backend cpu (default) or cuda (lm_decoding.h). Token ids in and out, so a user's checkpoint with
// its own tokenizer works: --prompt-ids "1,2,3" gives --count texts from one
// prompt (text i uses noise stream i); --prompts FILE.jsonl gives one text
// per line's "prompt" id array (--count is then ignored). Each text is
// --length new tokens, fewer when max_position_embeddings is reached.
// Output lines are the n-gram path's format, {"prompt": [...], "tokens":
// [...]} (tokens include the prompt), plus "text" when the checkpoint has
// claimbench's tokenizer (merges.txt + vocab.json), so `claimbench detect`
// reads them unchanged. Note: detect scores every position with a full
// context, prompt tokens included (as upstream's detector does).
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/atomic_file.h"
#include "harness/interrupt.h"
#include "harness/backend.h"
#include "harness/cli/commands.h"
#include "reference/lm/bpe_tokenizer.h"
#include "reference/lm/hf_checkpoint.h"
#include "suites/lm/cpu_transformer.h"
#include "suites/lm/incremental_lm.h"
#include "suites/pf/lm_decoding.h"
#include "suites/pf/pf_command_util.h"

namespace cb::cli {
namespace {

namespace fs = std::filesystem;
namespace ref = cb::ref::pf;

std::vector<int> ParseIdList(const std::string& text, int vocab) {
  std::vector<int> ids;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const size_t b = item.find_first_not_of(' '), e = item.find_last_not_of(' ');
    const std::string digits = b == std::string::npos ? "" : item.substr(b, e - b + 1);
    if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos)
      throw UsageError("--prompt-ids: '" + item + "' is not a token id");
    const int id = std::stoi(digits);
    if (id >= vocab)
      throw UsageError("--prompt-ids: id " + digits + " outside [0, " + std::to_string(vocab) + ")");
    ids.push_back(id);
  }
  return ids;
}

std::vector<std::vector<int>> ReadPrompts(const std::string& path, int vocab) {
  std::ifstream f(path);
  if (!f) throw UsageError("--prompts " + path + ": cannot open");
  std::vector<std::vector<int>> prompts;
  std::string line;
  for (int ln = 1; std::getline(f, line); ++ln) {
    if (line.empty()) continue;
    const std::string where = path + ":" + std::to_string(ln);
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const std::exception&) {
      throw UsageError(where + ": not JSON");
    }
    if (!j.is_object() || !j.contains("prompt") || !j["prompt"].is_array() || j["prompt"].empty())
      throw UsageError(where + ": expected a non-empty \"prompt\" array of token ids");
    std::vector<int> p;
    for (const auto& x : j["prompt"]) {
      if (!x.is_number_integer() || x.get<int64_t>() < 0 || x.get<int64_t>() >= vocab)
        throw UsageError(where + ": prompt ids must be integers in [0, " + std::to_string(vocab) + ")");
      p.push_back(x.get<int>());
    }
    prompts.push_back(std::move(p));
  }
  if (prompts.empty()) throw UsageError("--prompts " + path + ": no prompts");
  return prompts;
}

}  // namespace

int RunGenTextCheckpoint(const GenTextCheckpointOptions& o) {
  const ref::Watermark w = PfParseWatermark(o.watermark, true);
  cb::pf::LmDecoder decoder;
  try {
    decoder = cb::pf::ParseLmDecoder(o.decoder);
  } catch (const std::exception& e) {
    throw UsageError(std::string("--") + e.what());
  }
  if ((w == ref::Watermark::kPf && decoder != cb::pf::LmDecoder::kPf) ||
      ((w == ref::Watermark::kGumbel || w == ref::Watermark::kKgw) && decoder != cb::pf::LmDecoder::kSoftmax))
    throw UsageError("--watermark " + o.watermark + " needs --decoder " +
                     (w == ref::Watermark::kPf ? "pf" : "softmax"));
  const uint64_t key = PfParseKey(o.key);
  if (!(o.temperature > 0) || !std::isfinite(o.temperature)) throw UsageError("--temperature must be > 0");
  if (!(o.top_p > 0 && o.top_p <= 1)) throw UsageError("--top-p must lie in (0, 1]");
  if (o.m < 1 || o.m > 64) throw UsageError("--m must be in [1, 64]");
  if (o.count < 1 || o.length < 1) throw UsageError("--count and --length must be >= 1");
  if (o.prompt_ids.empty() == o.prompts.empty())
    throw UsageError("gen text --checkpoint: give exactly one of --prompt-ids and --prompts");
  if (o.out.empty()) throw UsageError("--out FILE is required");
  const std::optional<cb::harness::Backend> backend = cb::harness::ParseBackend(o.backend);
  if (!backend) throw UsageError("gen text --backend " + o.backend + ": expected cpu or cuda");
  if (const auto st = cb::harness::Availability(*backend); !st.ok)
    throw UsageError("gen text --backend " + o.backend + ": " + st.reason);
  const fs::path out(o.out);
  const fs::path parent = out.has_parent_path() ? out.parent_path() : fs::path(".");
  if (!fs::is_directory(parent)) throw UsageError("--out " + o.out + ": parent folder does not exist");
  cb::ref::lm::HfCheckpoint ck;
  try {
    ck = cb::ref::lm::LoadCheckpoint(o.checkpoint);
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
  const int vocab = ck.config.vocab_size;
  std::optional<cb::ref::lm::BpeTokenizer> tok;
  if (fs::exists(fs::path(o.checkpoint) / cb::ref::lm::kBpeMergesFile)) {
    try {
      tok = cb::ref::lm::BpeTokenizer::Load(o.checkpoint);
    } catch (const std::exception& e) {
      throw UsageError(e.what());
    }
    if (tok->vocab_size() != vocab)
      throw UsageError(o.checkpoint + ": tokenizer has " + std::to_string(tok->vocab_size()) +
                       " tokens, config.json vocab_size is " + std::to_string(vocab));
  }
  std::vector<std::vector<int>> prompts;
  if (!o.prompt_ids.empty()) prompts.assign(o.count, ParseIdList(o.prompt_ids, vocab));
  else prompts = ReadPrompts(o.prompts, vocab);
  for (const auto& p : prompts)
    if (static_cast<int>(p.size()) >= ck.config.max_position_embeddings)
      throw UsageError("gen text: a prompt has " + std::to_string(p.size()) +
                       " tokens, max_position_embeddings is " + std::to_string(ck.config.max_position_embeddings));

  const cb::lm_suite::CpuTransformer model(ck.config, ck.tensors);
  const std::unique_ptr<cb::lm_suite::IncrementalLm> lm = cb::lm_suite::MakeIncrementalLm(model, *backend);
  std::string lines;
  for (size_t i = 0; i < prompts.size(); ++i) {
    cb::harness::ThrowIfInterrupted("after " + std::to_string(i) + " of " + std::to_string(prompts.size()) +
                                    " texts");
    const cb::pf::LmDecoded d = cb::pf::DecodeLm(
        *lm, prompts[i],
        {.decoder = decoder, .watermark = w, .params = {.key = key, .context = o.m},
         .temperature = o.temperature, .top_p = o.top_p, .seed = o.seed, .text_index = i,
         .max_new_tokens = o.length});
    nlohmann::json row = {{"prompt", prompts[i]}, {"tokens", d.tokens}};
    if (tok) row["text"] = tok->Decode(std::vector<int>(d.tokens.begin(), d.tokens.end()));
    // Sampled byte tokens need not form valid UTF-8: such bytes become U+FFFD.
    lines += row.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  }
  cb::harness::WriteFileAtomically(out.string(), lines);
  std::printf("%s: %zu texts of up to %d new tokens from %s, decoder %s, watermark %s\n", o.out.c_str(),
              prompts.size(), o.length, o.checkpoint.c_str(), o.decoder.c_str(), o.watermark.c_str());
  return kExitOk;
}

}  // namespace cb::cli
