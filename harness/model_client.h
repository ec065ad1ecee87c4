// File: harness/model_client.h
// -----------------------------------------------------------------------------
// The model-endpoint client (DESIGN §1 "the model-endpoint client"; brief
// generators-videoniah-sgp-cbplm.md §5): OpenAI-compatible
// `POST <endpoint>/v1/chat/completions` over libcurl, for every benchmark that
// queries a model (VNBench here, SGP-Bench next). Works with vLLM, SGLang,
// llama.cpp's server, Ollama and OpenAI.
//
//   ModelClient client({.endpoint = "http://127.0.0.1:8000", .concurrency = 4}, &cache);
//   ChatRequest req{.model = "llava", .max_tokens = 5};
//   req.messages.push_back(ChatMessage::User({ChatPart::Image(url), ChatPart::Text(prompt)}));
//   std::vector<ChatOutcome> out = client.CompleteAll({req, ...});
//
// - The API key is read from the environment variable named by
//   `api_key_env` (default OPENAI_API_KEY) and sent as a Bearer token; it is
//   never part of a cache key, an error message or a log line. An endpoint
//   that echoes it (or the Authorization header) gets it back as "[REDACTED]":
//   every response body, cached or not, and every error passes through a
//   Redactor (harness/redact.h) before anything keeps it, so it never reaches
//   the cache, a ledger row, stderr or a file. Keys shorter than 8 characters
//   are placeholders ("EMPTY") and are not redacted.
// - Retries: 429 (honouring Retry-After in seconds), 5xx, connection errors,
//   timeouts and unparseable bodies are retried up to `max_retries` times with
//   exponential backoff, base * 2^attempt capped at `backoff_max_s`, times a
//   jitter factor in [0.5, 1) from a seeded Philox stream. Other 4xx fail at once.
//   Errors end with what the body said (its error message, or its start).
// - Every request that reaches the wire is counted (libcurl's debug callback
//   sees its headers go out) and only the retry policy sends one again:
//   libcurl's own silent re-send of a POST on a reused connection that the
//   server closed is refused (the body is given through a read callback whose
//   rewind fails), so it becomes a failed attempt, backed off and bounded by
//   `max_retries` like any other. Connections are still kept alive.
// - Concurrency: at most `concurrency` requests in flight (curl multi).
// - Cache: a successful response body is stored under CacheKey(request): the
//   XXH3-128 of the canonical JSON {endpoint URL, request body}; a hit costs no
//   request, so an interrupted evaluation resumes where it stopped and a
//   repeated one is free. Failures are never cached.
// - Interrupts: CompleteAll is the check point of every endpoint evaluation;
//   after SIGINT/SIGTERM it stops sending, aborts what is in flight and
//   throws harness::Interrupted (harness/interrupt.h).
#ifndef CB_HARNESS_MODEL_CLIENT_H_
#define CB_HARNESS_MODEL_CLIENT_H_

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace cb::harness {

struct ChatPart {
  bool is_image = false;
  std::string value;  // the text, or the image URL (e.g. a data: URL)
  static ChatPart Text(std::string t) { return {false, std::move(t)}; }
  static ChatPart Image(std::string url) { return {true, std::move(url)}; }
};

struct ChatMessage {
  std::string role;  // "system" | "user" | "assistant"
  std::vector<ChatPart> parts;
  static ChatMessage System(std::string text) { return {"system", {ChatPart::Text(std::move(text))}}; }
  static ChatMessage User(std::vector<ChatPart> parts) { return {"user", std::move(parts)}; }
};

struct ChatRequest {
  std::string model;
  std::vector<ChatMessage> messages;
  double temperature = 0.0;
  int max_tokens = 16;
  std::optional<uint64_t> seed;  // sent when set (vLLM, OpenAI honour it)
  // The JSON body: text-only messages use a plain string content, others the
  // list form with {"type": "image_url", "image_url": {"url": ...}} parts.
  nlohmann::json Body() const;
};

// Where cached responses live; the ledger's http_cache implements it
// (ledger::Ledger::CacheGet/CachePut), tests use a map.
class ResponseCache {
 public:
  virtual ~ResponseCache() = default;
  virtual std::optional<std::string> Get(const std::string& key) = 0;
  virtual void Put(const std::string& key, std::string_view response) = 0;
};

// A ResponseCache in memory (tests, benchmarks); `entries` is open to inspect.
class MemoryCache : public ResponseCache {
 public:
  std::optional<std::string> Get(const std::string& key) override {
    const auto it = entries.find(key);
    if (it == entries.end()) return std::nullopt;
    return it->second;
  }
  void Put(const std::string& key, std::string_view response) override {
    entries[key] = std::string(response);
  }
  std::map<std::string, std::string> entries;
};

struct ClientOptions {
  std::string endpoint;                      // "http://host:port" (or ending in /chat/completions)
  std::string api_key_env = "OPENAI_API_KEY";
  double timeout_s = 120;                    // per attempt, whole transfer
  double connect_timeout_s = 10;
  int max_retries = 5;
  double backoff_base_s = 0.5, backoff_max_s = 30;
  int concurrency = 4;
  uint64_t jitter_seed = 20250101;
};

struct ChatOutcome {
  bool ok = false;
  std::string text;       // choices[0].message.content
  std::string raw;        // the response body
  bool from_cache = false;
  // Tries (0 for a cache hit): each counts once, even when it never reached
  // the server (connection refused), and once per request it put on the wire.
  int attempts = 0;
  std::string error;      // why, when !ok: last status (and the body's message) or curl error
};

class ModelClient {
 public:
  // REQUIRES: options.endpoint is an http:// or https:// URL; throws
  // std::invalid_argument otherwise. `cache` may be null; it must outlive the client.
  explicit ModelClient(ClientOptions options, ResponseCache* cache = nullptr);

  // All requests, at most `concurrency` at once; outcomes in request order.
  // `on_done(i, outcome)` is called as each finishes (in this thread), e.g. to
  // record results as they arrive. Never throws for an endpoint's failures:
  // they are outcomes with ok = false. After SIGINT/SIGTERM
  // (harness/interrupt.h) it sends nothing more, aborts the requests in
  // flight and throws Interrupted; every answer received before is already
  // in the cache, so a rerun asks only the rest.
  std::vector<ChatOutcome> CompleteAll(const std::vector<ChatRequest>& requests,
                                       const std::function<void(size_t, const ChatOutcome&)>& on_done = {});
  ChatOutcome Complete(const ChatRequest& request);

  std::string CacheKey(const ChatRequest& request) const;
  const std::string& url() const { return url_; }
  // Requests this client put on the wire (retries included; a connection
  // that was refused sent none): what the server can have seen.
  int64_t requests_sent() const { return requests_sent_; }

 private:
  ClientOptions o_;
  ResponseCache* cache_;
  std::string url_;
  int64_t requests_sent_ = 0;
};

// Extracts choices[0].message.content; nullopt when the body is not that shape.
std::optional<std::string> ParseChatContent(std::string_view body);

// RFC 4648 base64 (with padding).
std::string Base64(std::string_view bytes);

}  // namespace cb::harness

#endif  // CB_HARNESS_MODEL_CLIENT_H_
