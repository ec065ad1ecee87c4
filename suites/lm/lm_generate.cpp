// File: suites/lm/lm_generate.cpp
// -----------------------------------------------------------------------------
// `claimbench lm generate --checkpoint DIR (--prompt TEXT | --prompt-ids IDS)
//  [--max-new-tokens N] [--temperature T] [--top-k K] [--seed S] [--json]`:
// samples a continuation with a KV cache (prefill, then one decode step per
// token; sampling.h) on the fp32 CPU path or, with --backend cuda, the CUDA
// path (refused with the reason where CUDA is not available). With the checkpoint's own tokenizer
// (merges.txt + vocab.json beside it, as `claimbench train` writes) the prompt
// is text and the output is text; a user's checkpoint without ours takes
// --prompt-ids (comma-separated ids of the user's tokenizer) and prints ids.
// Token u of the continuation is drawn with Rng(seed, 0)'s u-th uniform.
// Stops after N tokens or at max_position_embeddings. Text goes out as the
// decoded bytes; in --json, bytes that are not valid UTF-8 become U+FFFD. Exit 3 with one line on
// bad input, before anything is computed.
#include "suites/lm/lm_generate.h"

#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/backend.h"
#include "harness/cli/commands.h"
#include "harness/interrupt.h"
#include "harness/random.h"
#include "reference/lm/bpe_tokenizer.h"
#include "reference/lm/hf_checkpoint.h"
#include "suites/lm/cpu_transformer.h"
#include "suites/lm/cuda_transformer.h"
#include "suites/lm/sampling.h"

namespace cb::lm_suite {
namespace {

namespace fs = std::filesystem;
namespace ref = cb::ref::lm;
using cb::cli::UsageError;

struct GenerateOptions {
  std::string checkpoint;
  std::string prompt;
  std::string prompt_ids;
  std::string backend = "cpu";
  int max_new_tokens = 64;
  double temperature = 1.0;
  int top_k = 0;
  uint64_t seed = 1;
  bool json = false;
};

std::vector<int> ParseIds(const std::string& text, int vocab) {
  std::vector<int> ids;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    size_t used = 0;
    int id = -1;
    try {
      id = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || item.find_first_not_of(" 0123456789") != std::string::npos)
      throw UsageError("lm generate --prompt-ids: '" + item + "' is not a token id");
    if (id < 0 || id >= vocab)
      throw UsageError("lm generate --prompt-ids: id " + std::to_string(id) + " outside [0, " +
                       std::to_string(vocab) + ")");
    ids.push_back(id);
  }
  return ids;
}

int RunGenerate(const GenerateOptions& o) {
  if (o.backend != "cpu" && o.backend != "cuda")
    throw UsageError("lm generate --backend " + o.backend + ": expected cpu or cuda");
  if (o.backend == "cuda") {
    const cb::harness::BackendStatus st = cb::harness::Availability(cb::harness::Backend::kCuda);
    if (!st.ok) throw UsageError("lm generate --backend cuda: " + st.reason);
  }
  if (o.prompt.empty() == o.prompt_ids.empty())
    throw UsageError("lm generate: give exactly one of --prompt and --prompt-ids");
  if (o.max_new_tokens < 1) throw UsageError("lm generate --max-new-tokens must be >= 1");
  if (!(o.temperature >= 0)) throw UsageError("lm generate --temperature must be >= 0");
  ref::HfCheckpoint ck;
  try {
    ck = ref::LoadCheckpoint(o.checkpoint);
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
  std::optional<ref::BpeTokenizer> tok;
  if (fs::exists(fs::path(o.checkpoint) / ref::kBpeMergesFile)) {
    try {
      tok = ref::BpeTokenizer::Load(o.checkpoint);
    } catch (const std::exception& e) {
      throw UsageError(e.what());
    }
    if (tok->vocab_size() != ck.config.vocab_size)
      throw UsageError(o.checkpoint + ": tokenizer has " + std::to_string(tok->vocab_size()) +
                       " tokens, config.json vocab_size is " + std::to_string(ck.config.vocab_size));
  }
  std::vector<int> prompt;
  if (!o.prompt.empty()) {
    if (!tok)
      throw UsageError("lm generate --prompt: " + o.checkpoint +
                       " has no claimbench tokenizer (merges.txt); pass --prompt-ids instead");
    prompt = tok->Encode(o.prompt);
  } else {
    prompt = ParseIds(o.prompt_ids, ck.config.vocab_size);
  }
  if (prompt.empty()) throw UsageError("lm generate: the prompt is empty");
  if (static_cast<int>(prompt.size()) >= ck.config.max_position_embeddings)
    throw UsageError("lm generate: the prompt has " + std::to_string(prompt.size()) +
                     " tokens, max_position_embeddings is " +
                     std::to_string(ck.config.max_position_embeddings));

  const CpuTransformer model(ck.config, ck.tensors);
  // The backend's prefill and decode step, behind one pair of functions.
  std::function<std::vector<float>(std::span<const int>)> prefill;
  std::function<std::vector<float>(int)> decode;
  std::function<int()> cached;
  CpuKvCache cpu_cache;
#if CB_HAVE_CUDA
  std::optional<CudaTransformer> gpu;
  CudaKvCache gpu_cache;
  if (o.backend == "cuda") {
    gpu.emplace(model);
    prefill = [&](std::span<const int> t) { return gpu->Prefill(t, gpu_cache); };
    decode = [&](int t) { return gpu->DecodeStep(t, gpu_cache); };
    cached = [&] { return gpu_cache.length(); };
  }
#endif
  if (!prefill) {
    prefill = [&](std::span<const int> t) { return model.Prefill(t, cpu_cache); };
    decode = [&](int t) { return model.DecodeStep(t, cpu_cache); };
    cached = [&] { return cpu_cache.length; };
  }
  cb::harness::Rng rng(o.seed, 0);
  const std::vector<float> logits = prefill(prompt);
  std::vector<float> row(logits.end() - ck.config.vocab_size, logits.end());
  std::vector<int> generated;
  while (static_cast<int>(generated.size()) < o.max_new_tokens) {
    cb::harness::ThrowIfInterrupted("after " + std::to_string(generated.size()) + " tokens");  // nothing printed
    const int next = SampleToken(row, o.temperature, o.top_k, rng.Uniform());
    generated.push_back(next);
    if (cached() >= ck.config.max_position_embeddings ||
        static_cast<int>(generated.size()) == o.max_new_tokens)
      break;
    row = decode(next);
  }
  if (o.json) {
    nlohmann::json j = {{"prompt_ids", prompt}, {"ids", generated}};
    if (tok) j["text"] = tok->Decode(generated);
    // Sampled byte tokens need not form valid UTF-8: such bytes become U+FFFD in JSON.
    std::cout << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else if (tok) {
    std::cout << o.prompt << tok->Decode(generated) << "\n";
  } else {
    for (size_t i = 0; i < generated.size(); ++i) std::cout << (i ? "," : "") << generated[i];
    std::cout << "\n";
  }
  return cb::cli::kExitOk;
}

}  // namespace

void AddGenerateSubcommand(CLI::App* lm, int* exit_code) {
  auto o = std::make_shared<GenerateOptions>();
  CLI::App* g = lm->add_subcommand("generate", "Sample a continuation from a Llama checkpoint");
  g->add_option("--checkpoint", o->checkpoint, "Hugging Face folder (config.json + safetensors)")
      ->required();
  g->add_option("--prompt", o->prompt, "Prompt text (needs the checkpoint's claimbench tokenizer)");
  g->add_option("--prompt-ids", o->prompt_ids, "Prompt as comma-separated token ids");
  g->add_option("--max-new-tokens", o->max_new_tokens, "Tokens to generate")->capture_default_str();
  g->add_option("--temperature", o->temperature, "0: greedy")->capture_default_str();
  g->add_option("--top-k", o->top_k, "Sample among the k most likely (0: all)")->capture_default_str();
  g->add_option("--seed", o->seed, "Philox seed of the draws")->capture_default_str();
  g->add_option("--backend", o->backend, "cpu (fp32, OpenBLAS) or cuda (fp32, cuBLAS)")->capture_default_str();
  g->add_flag("--json", o->json, "One JSON object: prompt_ids, ids (and text)");
  g->callback([o, exit_code] { *exit_code = RunGenerate(*o); });
}

}  // namespace cb::lm_suite
