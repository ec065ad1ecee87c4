// File: suites/vlmbias/vlmbias_endpoint.h
// -----------------------------------------------------------------------------
// The study on a VLM endpoint (harness/model_client.h): for each item of an
// items file (README "Items file") and each prompt language it has a prompt
// for, the image (a data: URL of the file's bytes) and the prompt are sent to
// the VLM; optionally a text-only mapper model then maps the free-form
// answer to an option with the authors' mapper prompt (QA_PROMPT or
// ARTELINGO_PROMPT, 2_extract_mcvqa_artelingo_selections.py at
// af9710436956f141f1b3354d8e5cf39c93ff1e64, lines 18-21), and the answers
// become generation-file rows (vlmbias_eval.h) that are scored like a file.
// Responses are cached (the ledger's http_cache), so a rerun resumes.
#ifndef CB_SUITES_VLMBIAS_VLMBIAS_ENDPOINT_H_
#define CB_SUITES_VLMBIAS_VLMBIAS_ENDPOINT_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "harness/model_client.h"
#include "suites/vlmbias/vlmbias_eval.h"

namespace cb::vlmbias {

struct Item {
  std::string task, id, split;
  rv::Region region = rv::Region::kWest;
  std::string image_path;                   // resolved against the items file's folder
  std::string image_mime;                   // from the file's magic bytes
  std::map<std::string, std::string> prompt;  // prompt language -> text sent with the image
  std::string question_en;                  // for the mapper's QA_PROMPT
  std::vector<std::string> options;         // English options (parse_selection's choices)
  int label = -1;
  int line = 0;
};

// Parses an items file; every image must exist and be PNG, JPEG, GIF or
// WebP by its first bytes. Throws std::runtime_error "SOURCE:LINE: what".
std::vector<Item> ParseItems(std::string_view text, const std::string& source, const std::string& base_dir);

// The authors' mapper prompts (without Mistral's [INST] wrapper: the chat
// endpoint applies the model's template). QA_PROMPT needs exactly 4 options.
std::string MapperPrompt(const Item& item, const std::string& generation);

struct EndpointConfig {
  cb::harness::ClientOptions client;
  std::string model;         // the VLM
  std::string mapper_model;  // "" : parse_selection reads the VLM's answer itself
  std::vector<std::string> prompt_langs = {"en", "zh"};
  int max_tokens = 200;      // the authors' max_new_tokens default
  int mapper_max_tokens = 250;
  uint64_t seed = 0;         // request seed (temperature 0)
};

struct EndpointOutput {
  std::vector<Row> rows;  // answered (item, prompt language) pairs
  int asked = 0, failed = 0;
  int64_t requests_sent = 0, cache_hits = 0;
  std::vector<std::string> errors;
};

EndpointOutput EvaluateEndpoint(const EndpointConfig& c, const std::vector<Item>& items,
                                cb::harness::ResponseCache* cache, const std::function<void(int, int)>& progress = {});

}  // namespace cb::vlmbias

#endif  // CB_SUITES_VLMBIAS_VLMBIAS_ENDPOINT_H_
