// File: suites/vlmbias/vlmbias_endpoint.cpp
// The study on a VLM endpoint; see vlmbias_endpoint.h.
#include "suites/vlmbias/vlmbias_endpoint.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "harness/jsonl.h"
#include "reference/vlmbias/artelingo.h"

namespace cb::vlmbias {

namespace h = cb::harness;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The MIME type by magic bytes, "" when none of the four.
std::string Mime(std::string_view b) {
  if (b.substr(0, 8) == std::string_view("\x89PNG\r\n\x1a\n", 8)) return "image/png";
  if (b.substr(0, 3) == "\xFF\xD8\xFF") return "image/jpeg";
  if (b.substr(0, 6) == "GIF87a" || b.substr(0, 6) == "GIF89a") return "image/gif";
  if (b.size() >= 12 && b.substr(0, 4) == "RIFF" && b.substr(8, 4) == "WEBP") return "image/webp";
  return "";
}

std::string Field(const json& o, const char* key, const std::string& where) {
  if (!o.contains(key)) throw std::runtime_error(where + "missing field '" + key + "'");
  if (o[key].is_string()) return o[key].get<std::string>();
  if (o[key].is_number_integer()) return std::to_string(o[key].get<int64_t>());
  throw std::runtime_error(where + "'" + key + "' must be a string");
}

}  // namespace

std::vector<Item> ParseItems(std::string_view text, const std::string& source, const std::string& base_dir) {
  std::vector<Item> items;
  h::ForEachJsonlObject(text, source, [&](const json& o, const std::string& where) {
    Item it;
    it.line = std::stoi(where.substr(source.size() + 1));
    it.task = Field(o, "task", where);
    it.id = Field(o, "id", where);
    const std::string region = Field(o, "region", where);
    if (region == "west") it.region = rv::Region::kWest;
    else if (region == "east_asia") it.region = rv::Region::kEastAsia;
    else throw std::runtime_error(where + "'region' must be \"west\" or \"east_asia\", not \"" + region + "\"");
    it.split = o.contains("split") ? Field(o, "split", where) : region;
    const std::string image = Field(o, "image", where);
    it.image_path = (fs::path(image).is_absolute() ? fs::path(image) : fs::path(base_dir) / image).string();
    if (!fs::is_regular_file(it.image_path)) throw std::runtime_error(where + "image " + image + ": no such file");
    it.image_mime = Mime(ReadBytes(it.image_path).substr(0, 16));
    if (it.image_mime.empty()) throw std::runtime_error(where + "image " + image + ": not PNG, JPEG, GIF or WebP");
    if (!o.contains("prompt") || !o["prompt"].is_object() || o["prompt"].empty())
      throw std::runtime_error(where + "'prompt' must be an object {\"en\": text, \"zh\": text}");
    for (auto p = o["prompt"].begin(); p != o["prompt"].end(); ++p) {
      if (!p.value().is_string()) throw std::runtime_error(where + "'prompt' values must be strings");
      it.prompt[p.key()] = p.value().get<std::string>();
    }
    it.question_en = o.contains("question_en") ? Field(o, "question_en", where) : it.prompt.begin()->second;
    if (o.contains("options")) {
      if (!o["options"].is_array() || o["options"].empty())
        throw std::runtime_error(where + "'options' must be a non-empty list of strings");
      for (const auto& c : o["options"]) {
        if (!c.is_string()) throw std::runtime_error(where + "'options' must be a non-empty list of strings");
        it.options.push_back(c.get<std::string>());
      }
    } else if (it.task == "artelingo") {
      it.options = rv::ArtelingoCandidates();
    } else {
      throw std::runtime_error(where + "missing field 'options'");
    }
    if (!o.contains("label")) throw std::runtime_error(where + "missing field 'label'");
    if (o["label"].is_number_integer()) {
      it.label = o["label"].get<int>();
      if (it.label < 0 || it.label >= static_cast<int>(it.options.size()))
        throw std::runtime_error(where + "'label' is not an option index");
    } else if (o["label"].is_string()) {
      for (size_t i = 0; i < it.options.size(); ++i)
        if (it.options[i] == o["label"].get<std::string>()) it.label = static_cast<int>(i);
    } else {
      throw std::runtime_error(where + "'label' must be an option index or text");
    }
    items.push_back(std::move(it));
  });
  if (items.empty()) throw std::runtime_error(source + ": no items");
  return items;
}

std::string MapperPrompt(const Item& item, const std::string& generation) {
  if (item.task == "artelingo" || item.task == "allartelingo") {
    std::string list;
    for (const auto& c : rv::ArtelingoCandidates()) list += (list.empty() ? "" : ", ") + c;
    return "\"" + generation + "\" Which of the following emotions is closest to the one in the previous text: " +
           list + ". Answer in a single word.";
  }
  if (item.options.size() != 4)
    throw std::runtime_error("item " + item.id + ": the mapper's QA_PROMPT takes exactly 4 options, not " +
                             std::to_string(item.options.size()));
  const auto& o = item.options;
  return "\"Question: " + item.question_en + ", Answer: " + generation +
         "\" Which of the following answers is closest to the one in the previous text? 1) " + o[0] + " 2) " + o[1] +
         " 3) " + o[2] + " or 4) " + o[3] + ". Respond concisely with a single number.";
}

EndpointOutput EvaluateEndpoint(const EndpointConfig& c, const std::vector<Item>& items, h::ResponseCache* cache,
                                const std::function<void(int, int)>& progress) {
  h::ModelClient client(c.client, cache);
  struct Ask {
    const Item* item;
    std::string lang;
  };
  std::vector<Ask> asks;
  std::vector<h::ChatRequest> requests;
  for (const Item& it : items) {
    const std::string url = "data:" + it.image_mime + ";base64," + h::Base64(ReadBytes(it.image_path));
    for (const auto& lang : c.prompt_langs) {
      const auto p = it.prompt.find(lang);
      if (p == it.prompt.end()) continue;
      h::ChatRequest r{.model = c.model, .temperature = 0, .max_tokens = c.max_tokens, .seed = c.seed};
      r.messages.push_back(h::ChatMessage::User({h::ChatPart::Image(url), h::ChatPart::Text(p->second)}));
      requests.push_back(std::move(r));
      asks.push_back({&it, lang});
    }
  }
  const int total = static_cast<int>(requests.size()) * (c.mapper_model.empty() ? 1 : 2);
  int done = 0;
  auto tick = [&](size_t, const h::ChatOutcome&) {
    if (progress) progress(++done, total);
  };
  EndpointOutput out;
  out.asked = static_cast<int>(asks.size());
  const auto answers = client.CompleteAll(requests, tick);
  std::vector<h::ChatRequest> mapper;
  std::vector<size_t> mapped_from;
  for (size_t i = 0; i < answers.size(); ++i) {
    out.cache_hits += answers[i].from_cache;
    if (!answers[i].ok) {
      ++out.failed;
      if (out.errors.size() < 5) out.errors.push_back(asks[i].item->id + " (" + asks[i].lang + "): " + answers[i].error);
      continue;
    }
    if (c.mapper_model.empty()) {
      mapped_from.push_back(i);
      continue;
    }
    h::ChatRequest r{.model = c.mapper_model, .temperature = 0, .max_tokens = c.mapper_max_tokens, .seed = c.seed};
    r.messages.push_back(h::ChatMessage::User({h::ChatPart::Text(MapperPrompt(*asks[i].item, answers[i].text))}));
    mapper.push_back(std::move(r));
    mapped_from.push_back(i);
  }
  std::vector<h::ChatOutcome> mapped;
  if (!mapper.empty()) mapped = client.CompleteAll(mapper, tick);
  for (size_t k = 0; k < mapped_from.size(); ++k) {
    const size_t i = mapped_from[k];
    const Item& it = *asks[i].item;
    std::string text = answers[i].text;
    if (!c.mapper_model.empty()) {
      out.cache_hits += mapped[k].from_cache;
      if (!mapped[k].ok) {
        ++out.failed;
        if (out.errors.size() < 5) out.errors.push_back(it.id + " (" + asks[i].lang + ", mapper): " + mapped[k].error);
        continue;
      }
      text = mapped[k].text;
    }
    Row r;
    r.task = it.task;
    r.id = it.id;
    r.split = it.split;
    r.prompt_lang = asks[i].lang;
    r.model = c.model;
    r.region = it.region;
    r.text = text;
    r.options = it.options;
    r.label = it.label;
    r.line = it.line;
    out.rows.push_back(std::move(r));
  }
  out.requests_sent = client.requests_sent();
  return out;
}

}  // namespace cb::vlmbias
