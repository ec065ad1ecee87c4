// File: harness/model_client.cpp
// The OpenAI-compatible chat client over curl multi; see model_client.h.
#include "harness/model_client.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <stdexcept>

#include <curl/curl.h>

#include "harness/hash.h"
#include "harness/interrupt.h"
#include "harness/random.h"
#include "harness/redact.h"

namespace cb::harness {
namespace {

using Clock = std::chrono::steady_clock;

size_t WriteBody(char* data, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

// Captures Retry-After (delta-seconds form; an HTTP date is ignored).
size_t ReadHeader(char* data, size_t size, size_t n, void* user) {
  std::string_view line(data, size * n);
  constexpr std::string_view kName = "retry-after:";
  if (line.size() > kName.size()) {
    std::string head(line.substr(0, kName.size()));
    for (char& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (head == kName) {
      const std::string v(line.substr(kName.size()));
      char* end = nullptr;
      const double s = std::strtod(v.c_str(), &end);
      if (end != v.c_str() && s >= 0) *static_cast<double*>(user) = s;
    }
  }
  return size * n;
}

struct CurlGlobal {
  CurlGlobal() { curl_global_init(CURL_GLOBAL_DEFAULT); }
};

struct Transfer {
  size_t index = 0;
  CURL* easy = nullptr;
  curl_slist* headers = nullptr;
  std::string body, response;
  size_t body_read = 0;  // bytes of `body` handed to libcurl
  int on_wire = 0;       // request header blocks sent (CountRequests)
  double retry_after = -1;
};

// Counts the requests this transfer put on the wire: libcurl reports each
// request's header block as CURLINFO_HEADER_OUT once it is sent
// (CURLOPT_DEBUGFUNCTION(3); needs CURLOPT_VERBOSE, whose text lands here,
// not on stderr). A request libcurl re-sends by itself is counted too.
int CountRequests(CURL*, curl_infotype type, char* data, size_t size, void* user) {
  if (type == CURLINFO_HEADER_OUT && std::string_view(data, size).substr(0, 5) == "POST ")
    ++static_cast<Transfer*>(user)->on_wire;
  return 0;
}

// Hands the request body to libcurl. A second request of one transfer is
// libcurl re-sending by itself (a reused connection was closed under the
// first before any of its body went out, so no rewind was needed): it is
// aborted before its body, so no unplanned request reaches the server whole.
size_t ReadBody(char* buffer, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  if (t->on_wire > 1) return CURL_READFUNC_ABORT;
  const size_t k = std::min(size * n, t->body.size() - t->body_read);
  std::memcpy(buffer, t->body.data() + t->body_read, k);
  t->body_read += k;
  return k;
}

// libcurl rewinds the body to re-send a POST by itself "when an existing HTTP
// connection is reused too late and the server closes the connection"
// (CURLOPT_SEEKFUNCTION(3)); the server then sees more requests than the
// client counted, with no backoff between them. Once any body was read the
// rewind is refused: the transfer fails (CURLE_SEND_FAIL_REWIND) and the retry
// policy decides whether to send again (counted, backed off, bounded).
int RefuseRewind(void* user, curl_off_t offset, int origin) {
  const auto* t = static_cast<const Transfer*>(user);
  return origin == SEEK_SET && offset == 0 && t->body_read == 0 ? CURL_SEEKFUNC_OK : CURL_SEEKFUNC_FAIL;
}

// What an error body says, on one line and short: the message of an
// OpenAI-style {"error": {"message": ...}} or {"error": "..."}, else the
// start of the body. `body` is already redacted, so cutting it cannot leave
// part of the key behind.
std::string BodySnippet(std::string_view body) {
  std::string s(body);
  const nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  if (!j.is_discarded() && j.is_object() && j.contains("error")) {
    const auto& e = j["error"];
    if (e.is_string()) {
      s = e.get<std::string>();
    } else if (e.is_object() && e.contains("message") && e["message"].is_string()) {
      s = e["message"].get<std::string>();
    }
  }
  for (char& c : s)
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  constexpr size_t kMax = 160;
  if (s.size() > kMax) s = s.substr(0, kMax) + "...";
  return s.empty() ? s : ": " + s;
}

}  // namespace

nlohmann::json ChatRequest::Body() const {
  nlohmann::json msgs = nlohmann::json::array();
  for (const auto& m : messages) {
    const bool text_only = std::none_of(m.parts.begin(), m.parts.end(), [](const ChatPart& p) { return p.is_image; });
    if (text_only) {
      std::string text;
      for (const auto& p : m.parts) text += p.value;
      msgs.push_back({{"role", m.role}, {"content", text}});
      continue;
    }
    nlohmann::json parts = nlohmann::json::array();
    for (const auto& p : m.parts) {
      if (p.is_image) {
        parts.push_back({{"type", "image_url"}, {"image_url", {{"url", p.value}}}});
      } else {
        parts.push_back({{"type", "text"}, {"text", p.value}});
      }
    }
    msgs.push_back({{"role", m.role}, {"content", parts}});
  }
  nlohmann::json body = {{"model", model}, {"messages", msgs}, {"temperature", temperature},
                         {"max_tokens", max_tokens}, {"stream", false}};
  if (seed) body["seed"] = *seed;
  return body;
}

std::optional<std::string> ParseChatContent(std::string_view body) {
  const nlohmann::json j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("choices") || !j["choices"].is_array() ||
      j["choices"].empty())
    return std::nullopt;
  const auto& c = j["choices"][0];
  if (!c.is_object() || !c.contains("message") || !c["message"].is_object()) return std::nullopt;
  const auto& content = c["message"].value("content", nlohmann::json());
  if (content.is_null()) return std::string();  // e.g. a refusal with no text
  if (!content.is_string()) return std::nullopt;
  return content.get<std::string>();
}

std::string Base64(std::string_view in) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const uint32_t v = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
    for (int k = 3; k >= 0; --k) out += kAlphabet[(v >> (6 * k)) & 63];
  }
  if (i < in.size()) {
    uint32_t v = uint8_t(in[i]) << 16;
    if (i + 1 < in.size()) v |= uint8_t(in[i + 1]) << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < in.size() ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

ModelClient::ModelClient(ClientOptions options, ResponseCache* cache) : o_(std::move(options)), cache_(cache) {
  static CurlGlobal global;
  std::string e = o_.endpoint;
  if (e.rfind("http://", 0) != 0 && e.rfind("https://", 0) != 0)
    throw std::invalid_argument("endpoint '" + e + "': expected an http:// or https:// URL");
  // user:password@ in the URL would be recorded with the run (its command
  // line and params) and echoed in errors: refused, without repeating it.
  const size_t authority = e.find("://") + 3;
  const size_t at = e.find('@', authority);
  if (at != std::string::npos && at < e.find_first_of("/?#", authority)) {
    throw std::invalid_argument("endpoint '" + e.substr(0, authority) + std::string(Redactor::kMarker) +
                                e.substr(at) + "': credentials in the URL would be recorded with the run; " +
                                "pass the key in $" + o_.api_key_env + " instead");
  }
  while (!e.empty() && e.back() == '/') e.pop_back();
  if (e.size() >= 17 && e.compare(e.size() - 17, 17, "/chat/completions") == 0) {
    url_ = e;
  } else if (e.size() >= 3 && e.compare(e.size() - 3, 3, "/v1") == 0) {
    url_ = e + "/chat/completions";
  } else {
    url_ = e + "/v1/chat/completions";
  }
  if (o_.concurrency < 1) throw std::invalid_argument("concurrency must be >= 1");
  if (o_.max_retries < 0) throw std::invalid_argument("max_retries must be >= 0");
}

std::string ModelClient::CacheKey(const ChatRequest& r) const {
  const nlohmann::json key = {{"url", url_}, {"body", r.Body()}};
  return Xxh3_128(key.dump()).Hex();  // nlohmann::json objects keep sorted keys: canonical
}

ChatOutcome ModelClient::Complete(const ChatRequest& request) { return CompleteAll({request})[0]; }

std::vector<ChatOutcome> ModelClient::CompleteAll(const std::vector<ChatRequest>& requests,
                                                  const std::function<void(size_t, const ChatOutcome&)>& on_done) {
  const std::string total = std::to_string(requests.size());
  ThrowIfInterrupted("before sending " + total + " requests");
  std::vector<ChatOutcome> out(requests.size());
  std::vector<std::string> keys(requests.size());
  size_t answered = 0;  // outcomes handed to on_done, cache hits included
  struct Pending {
    size_t index;
    Clock::time_point not_before;
  };
  std::deque<Pending> pending;
  const char* key_env = o_.api_key_env.empty() ? nullptr : std::getenv(o_.api_key_env.c_str());
  const std::string key = key_env ? key_env : "";
  const std::string auth = key.empty() ? "" : "Authorization: Bearer " + key;
  // Every body and error passes through it before anything keeps it.
  const Redactor redact(key);
  for (size_t i = 0; i < requests.size(); ++i) {
    keys[i] = CacheKey(requests[i]);
    if (cache_) {
      if (auto hit = cache_->Get(keys[i])) {
        // A row cached before bodies were redacted may hold the key.
        const std::string body = redact(*hit);
        if (auto text = ParseChatContent(body)) {
          out[i] = {true, *text, body, true, 0, ""};
          ++answered;
          if (on_done) on_done(i, out[i]);
          continue;
        }
      }
    }
    pending.push_back({i, Clock::now()});
  }
  if (pending.empty()) return out;

  Rng jitter(o_.jitter_seed, 0x6a17);
  CURLM* multi = curl_multi_init();
  std::vector<Transfer*> active;

  auto start = [&](size_t i) {
    auto* t = new Transfer;
    t->index = i;
    t->body = requests[i].Body().dump();
    t->easy = curl_easy_init();
    t->headers = curl_slist_append(t->headers, "Content-Type: application/json");
    t->headers = curl_slist_append(t->headers, "Expect:");  // no 100-continue round trip
    if (!auth.empty()) t->headers = curl_slist_append(t->headers, auth.c_str());
    curl_easy_setopt(t->easy, CURLOPT_URL, url_.c_str());
    curl_easy_setopt(t->easy, CURLOPT_POST, 1L);
    // The body through a read callback, not CURLOPT_POSTFIELDS, so that
    // libcurl has to ask before sending it a second time (RefuseRewind).
    curl_easy_setopt(t->easy, CURLOPT_READFUNCTION, ReadBody);
    curl_easy_setopt(t->easy, CURLOPT_READDATA, t);
    curl_easy_setopt(t->easy, CURLOPT_SEEKFUNCTION, RefuseRewind);
    curl_easy_setopt(t->easy, CURLOPT_SEEKDATA, t);
    curl_easy_setopt(t->easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(t->body.size()));
    curl_easy_setopt(t->easy, CURLOPT_VERBOSE, 1L);
    curl_easy_setopt(t->easy, CURLOPT_DEBUGFUNCTION, CountRequests);
    curl_easy_setopt(t->easy, CURLOPT_DEBUGDATA, t);
    curl_easy_setopt(t->easy, CURLOPT_HTTPHEADER, t->headers);
    curl_easy_setopt(t->easy, CURLOPT_WRITEFUNCTION, WriteBody);
    curl_easy_setopt(t->easy, CURLOPT_WRITEDATA, &t->response);
    curl_easy_setopt(t->easy, CURLOPT_HEADERFUNCTION, ReadHeader);
    curl_easy_setopt(t->easy, CURLOPT_HEADERDATA, &t->retry_after);
    curl_easy_setopt(t->easy, CURLOPT_TIMEOUT_MS, static_cast<long>(o_.timeout_s * 1000));
    curl_easy_setopt(t->easy, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(o_.connect_timeout_s * 1000));
    curl_easy_setopt(t->easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(t->easy, CURLOPT_PRIVATE, t);
    curl_multi_add_handle(multi, t->easy);
    active.push_back(t);
  };
  auto finish = [&](Transfer* t) {
    curl_multi_remove_handle(multi, t->easy);
    curl_easy_cleanup(t->easy);
    curl_slist_free_all(t->headers);
    active.erase(std::find(active.begin(), active.end(), t));
    delete t;
  };

  while (!pending.empty() || !active.empty()) {
    if (InterruptRequested()) {
      // The check point: nothing new is sent, the transfers in flight are
      // aborted (a slow endpoint would hold the stop for up to --timeout), and
      // every answer that came is already in the cache.
      while (!active.empty()) finish(active.back());
      curl_multi_cleanup(multi);
      throw Interrupted{"after " + std::to_string(answered) + " of " + total + " requests"};
    }
    const auto now = Clock::now();
    for (auto it = pending.begin(); it != pending.end() && static_cast<int>(active.size()) < o_.concurrency;) {
      if (it->not_before <= now) {
        start(it->index);
        it = pending.erase(it);
      } else {
        ++it;
      }
    }
    int running = 0;
    curl_multi_perform(multi, &running);
    int left = 0;
    while (CURLMsg* msg = curl_multi_info_read(multi, &left)) {
      if (msg->msg != CURLMSG_DONE) continue;
      Transfer* t = nullptr;
      curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, &t);
      long status = 0;
      curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
      ChatOutcome& o = out[t->index];
      // A try counts once even when nothing reached the server (connection
      // refused), and once per request sent should libcurl have sent more.
      // Should the debug callback not have seen a request that libcurl says
      // it sent (CURLINFO_REQUEST_SIZE), it still counts as one.
      long request_bytes = 0;
      curl_easy_getinfo(t->easy, CURLINFO_REQUEST_SIZE, &request_bytes);
      const int sent = t->on_wire > 0 ? t->on_wire : (request_bytes > 0 ? 1 : 0);
      o.attempts += std::max(1, sent);
      requests_sent_ += sent;
      const std::string response = redact(t->response);
      bool retry = false;
      const CURLcode result = msg->data.result;
      if (result == CURLE_SEND_FAIL_REWIND || result == CURLE_ABORTED_BY_CALLBACK) {
        o.error = "curl: the connection was closed before an answer came";  // a re-send refused above
        retry = true;
      } else if (result != CURLE_OK) {
        o.error = std::string("curl: ") + curl_easy_strerror(result);
        retry = true;
      } else if (status == 200) {
        if (auto text = ParseChatContent(response)) {
          o.ok = true;
          o.text = *text;
          o.raw = response;
          o.error.clear();
          if (cache_) cache_->Put(keys[t->index], response);
        } else {
          o.error = "HTTP 200 with a body that is not a chat completion" + BodySnippet(response);
          retry = true;
        }
      } else {
        o.error = "HTTP " + std::to_string(status) + BodySnippet(response);
        retry = status == 429 || status >= 500;
      }
      o.error = redact(o.error);
      const size_t index = t->index;
      const double retry_after = t->retry_after;
      finish(t);
      if (retry && o.attempts <= o_.max_retries) {
        double delay = std::min(o_.backoff_max_s, o_.backoff_base_s * static_cast<double>(1 << std::min(o.attempts - 1, 20)));
        delay *= 0.5 + 0.5 * jitter.Uniform();
        if (retry_after >= 0) delay = std::max(delay, std::min(retry_after, o_.backoff_max_s));
        pending.push_back({index, Clock::now() + std::chrono::microseconds(static_cast<int64_t>(delay * 1e6))});
      } else {
        if (!o.ok && retry) o.error += " (after " + std::to_string(o.attempts) + " attempts)";
        ++answered;
        if (on_done) on_done(index, o);
      }
    }
    if (pending.empty() && active.empty()) break;
    int wait_ms = 100;
    if (active.empty() && !pending.empty()) {
      auto next = std::min_element(pending.begin(), pending.end(),
                                   [](const Pending& a, const Pending& b) { return a.not_before < b.not_before; });
      wait_ms = static_cast<int>(std::clamp<int64_t>(
          std::chrono::duration_cast<std::chrono::milliseconds>(next->not_before - Clock::now()).count(), 0, 100));
    } else if (!pending.empty()) {
      wait_ms = 10;
    }
    curl_multi_poll(multi, nullptr, 0, wait_ms, nullptr);
  }
  curl_multi_cleanup(multi);
  return out;
}

}  // namespace cb::harness
