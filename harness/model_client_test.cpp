// File: harness/model_client_test.cpp
// The model-endpoint client against a real HTTP server on 127.0.0.1 that the
// test starts (fixtures/http_server.h), with faults injected: slow responses,
// 500s, 429 with Retry-After, malformed JSON, dropped connections, a 400, and
// the server killed mid-run then restarted (the run resumes from the cache;
// nothing lost, nothing asked twice), an endpoint echoing the API key (kept
// out of everything the client returns or caches), and a keep-alive server
// resetting reused connections (the server's count of requests and the
// client's agree, and the retry limit bounds them). Backoffs are shortened so
// that the whole file runs in a few seconds.
#include "harness/model_client.h"

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>

#include <gtest/gtest.h>

#include "fixtures/http_server.h"

namespace cb::harness {
namespace {

using cb::testing::HttpReply;
using cb::testing::HttpRequest;
using cb::testing::HttpServer;

ClientOptions FastOptions(const std::string& url) {
  ClientOptions o;
  o.endpoint = url;
  o.timeout_s = 5;
  o.connect_timeout_s = 1;
  o.max_retries = 3;
  o.backoff_base_s = 0.01;
  o.backoff_max_s = 2;
  return o;
}

ChatRequest Ask(const std::string& prompt) {
  ChatRequest r;
  r.model = "test-model";
  r.max_tokens = 5;
  r.messages.push_back(ChatMessage::User({ChatPart::Text(prompt)}));
  return r;
}

// The prompt of a request body (the server echoes it).
std::string PromptOf(const HttpRequest& req) {
  const auto j = nlohmann::json::parse(req.body);
  return j["messages"][0]["content"].get<std::string>();
}

TEST(ModelClient, Base64KnownAnswers) {  // RFC 4648 §10
  EXPECT_EQ(Base64(""), "");
  EXPECT_EQ(Base64("f"), "Zg==");
  EXPECT_EQ(Base64("fo"), "Zm8=");
  EXPECT_EQ(Base64("foo"), "Zm9v");
  EXPECT_EQ(Base64("foob"), "Zm9vYg==");
  EXPECT_EQ(Base64("fooba"), "Zm9vYmE=");
  EXPECT_EQ(Base64("foobar"), "Zm9vYmFy");
}

TEST(ModelClient, BodyShapes) {
  ChatRequest r = Ask("hi");
  r.seed = 7;
  auto b = r.Body();
  EXPECT_EQ(b["messages"][0]["content"], "hi");
  EXPECT_EQ(b["temperature"], 0.0);
  EXPECT_EQ(b["max_tokens"], 5);
  EXPECT_EQ(b["seed"], 7);
  r.messages[0].parts.insert(r.messages[0].parts.begin(), ChatPart::Image("data:image/png;base64,AAAA"));
  b = r.Body();
  ASSERT_TRUE(b["messages"][0]["content"].is_array());
  EXPECT_EQ(b["messages"][0]["content"][0]["type"], "image_url");
  EXPECT_EQ(b["messages"][0]["content"][0]["image_url"]["url"], "data:image/png;base64,AAAA");
  EXPECT_EQ(b["messages"][0]["content"][1]["text"], "hi");
}

TEST(ModelClient, RejectsBadEndpoint) {
  EXPECT_THROW(ModelClient(FastOptions("ftp://x")), std::invalid_argument);
  EXPECT_THROW(ModelClient(FastOptions("127.0.0.1:80")), std::invalid_argument);
}

// Credentials in the URL would reach the run's command line and params:
// refused, and the error does not repeat them. An '@' after the host is
// part of the path, not credentials.
TEST(ModelClient, CredentialsInTheUrlAreRefusedWithoutBeingRepeated) {
  try {
    ModelClient(FastOptions("https://user:s3cret-pass@api.example.test/v1"));
    FAIL() << "accepted credentials in the URL";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find("s3cret-pass"), std::string::npos) << what;
    EXPECT_EQ(what.find("user"), std::string::npos) << what;
    EXPECT_NE(what.find("https://[REDACTED]@api.example.test/v1"), std::string::npos) << what;
    EXPECT_NE(what.find("$OPENAI_API_KEY"), std::string::npos) << what;
  }
  EXPECT_EQ(ModelClient(FastOptions("http://h:1/v1/@models")).url(), "http://h:1/v1/@models/v1/chat/completions");
}

TEST(ModelClient, UrlForms) {
  EXPECT_EQ(ModelClient(FastOptions("http://h:1")).url(), "http://h:1/v1/chat/completions");
  EXPECT_EQ(ModelClient(FastOptions("http://h:1/v1/")).url(), "http://h:1/v1/chat/completions");
  EXPECT_EQ(ModelClient(FastOptions("http://h/v1/chat/completions")).url(), "http://h/v1/chat/completions");
}

TEST(ModelClient, AnswersAndSendsKeyButNeverCachesIt) {
  std::string auth;
  HttpServer server([&](int, const HttpRequest& req) {
    for (const auto& h : req.headers)
      if (h.rfind("Authorization:", 0) == 0) auth = h;
    EXPECT_EQ(req.path, "/v1/chat/completions");
    return HttpReply{200, HttpServer::ChatBody("B")};
  });
  ::setenv("CB_TEST_API_KEY", "sk-secret-123", 1);
  ClientOptions o = FastOptions(server.url());
  o.api_key_env = "CB_TEST_API_KEY";
  MemoryCache cache;
  ModelClient client(o, &cache);
  const ChatOutcome out = client.Complete(Ask("q"));
  ::unsetenv("CB_TEST_API_KEY");
  ASSERT_TRUE(out.ok) << out.error;
  EXPECT_EQ(out.text, "B");
  EXPECT_EQ(auth, "Authorization: Bearer sk-secret-123");
  ASSERT_EQ(cache.entries.size(), 1u);
  EXPECT_EQ(cache.entries.begin()->second.find("sk-secret"), std::string::npos);
  EXPECT_EQ(client.CacheKey(Ask("q")).find("sk-secret"), std::string::npos);
  // A repeat is a cache hit: no request.
  const ChatOutcome again = client.Complete(Ask("q"));
  EXPECT_TRUE(again.from_cache);
  EXPECT_EQ(again.attempts, 0);
  EXPECT_EQ(server.requests(), 1);
}

TEST(ModelClient, RetriesFiveHundredsThenSucceeds) {
  HttpServer server([](int n, const HttpRequest&) {
    return n < 2 ? HttpReply{503, "busy"} : HttpReply{200, HttpServer::ChatBody("C")};
  });
  ModelClient client(FastOptions(server.url()));
  const ChatOutcome out = client.Complete(Ask("q"));
  ASSERT_TRUE(out.ok) << out.error;
  EXPECT_EQ(out.attempts, 3);
  EXPECT_EQ(server.requests(), 3);
}

TEST(ModelClient, HonoursRetryAfter) {
  HttpServer server([](int n, const HttpRequest&) {
    return n == 0 ? HttpReply{429, "slow down", {"Retry-After: 1"}} : HttpReply{200, HttpServer::ChatBody("D")};
  });
  ModelClient client(FastOptions(server.url()));  // backoff base 10 ms: the wait comes from Retry-After
  const auto t0 = std::chrono::steady_clock::now();
  const ChatOutcome out = client.Complete(Ask("q"));
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(out.ok) << out.error;
  EXPECT_EQ(out.attempts, 2);
  EXPECT_GE(s, 0.95);
}

TEST(ModelClient, MalformedJsonIsAnErrorAfterRetries) {
  HttpServer server([](int, const HttpRequest&) { return HttpReply{200, "{\"choices\": [garbage"}; });
  ClientOptions o = FastOptions(server.url());
  o.max_retries = 2;
  MemoryCache cache;
  ModelClient client(o, &cache);
  const ChatOutcome out = client.Complete(Ask("q"));
  EXPECT_FALSE(out.ok);
  EXPECT_NE(out.error.find("not a chat completion"), std::string::npos) << out.error;
  EXPECT_EQ(out.attempts, 3);
  EXPECT_TRUE(cache.entries.empty());  // failures are never cached
}

TEST(ModelClient, ClientErrorIsNotRetried) {
  HttpServer server([](int, const HttpRequest&) { return HttpReply{400, "{\"error\": \"bad model\"}"}; });
  ModelClient client(FastOptions(server.url()));
  const ChatOutcome out = client.Complete(Ask("q"));
  EXPECT_FALSE(out.ok);
  EXPECT_EQ(out.error, "HTTP 400: bad model");  // the body's message, for the user
  EXPECT_EQ(server.requests(), 1);
}

TEST(ModelClient, SlowResponseTimesOutAndDroppedConnectionIsRetried) {
  HttpServer server([](int n, const HttpRequest&) {
    HttpReply r{200, HttpServer::ChatBody("A")};
    if (n == 0) r.delay_ms = 1500;  // beyond the 0.3 s timeout
    if (n == 1) r.drop = true;      // connection closed, no answer
    return r;
  });
  ClientOptions o = FastOptions(server.url());
  o.timeout_s = 0.3;
  ModelClient client(o);
  const ChatOutcome out = client.Complete(Ask("q"));
  ASSERT_TRUE(out.ok) << out.error;
  EXPECT_EQ(out.attempts, 3);
}

TEST(ModelClient, ConcurrencyLimit) {
  HttpServer server([](int, const HttpRequest& req) {
    HttpReply r{200, HttpServer::ChatBody(PromptOf(req))};
    r.delay_ms = 150;
    return r;
  });
  ClientOptions o = FastOptions(server.url());
  o.concurrency = 3;
  ModelClient client(o);
  std::vector<ChatRequest> reqs;
  for (int i = 0; i < 9; ++i) reqs.push_back(Ask("p" + std::to_string(i)));
  std::vector<size_t> done_order;
  const auto out = client.CompleteAll(reqs, [&](size_t i, const ChatOutcome&) { done_order.push_back(i); });
  for (int i = 0; i < 9; ++i) {
    ASSERT_TRUE(out[i].ok) << out[i].error;
    EXPECT_EQ(out[i].text, "p" + std::to_string(i));  // outcomes in request order
  }
  EXPECT_EQ(done_order.size(), 9u);
  EXPECT_LE(server.max_in_flight(), 3);
  EXPECT_GE(server.max_in_flight(), 2);  // it did run requests in parallel
}

TEST(ModelClient, ServerKilledMidRunResumesFromCache) {
  // Server A answers the first 4 requests, then dies on the 5th.
  std::mutex mu;
  std::map<std::string, int> answered;  // prompt -> successful answers, both servers
  auto answer = [&](const HttpRequest& req) {
    std::lock_guard<std::mutex> lock(mu);
    ++answered[PromptOf(req)];
    return HttpReply{200, HttpServer::ChatBody("ans:" + PromptOf(req))};
  };
  auto a = std::make_unique<HttpServer>([&](int n, const HttpRequest& req) {
    if (n >= 4) {
      HttpReply r;
      r.kill_server = true;
      return r;
    }
    return answer(req);
  });
  const int port = a->port();
  ClientOptions o = FastOptions(a->url());
  o.concurrency = 1;
  o.max_retries = 1;
  o.connect_timeout_s = 0.5;
  MemoryCache cache;
  std::vector<ChatRequest> reqs;
  for (int i = 0; i < 10; ++i) reqs.push_back(Ask("item" + std::to_string(i)));
  {
    ModelClient client(o, &cache);
    const auto out = client.CompleteAll(reqs);
    int ok = 0;
    for (const auto& x : out) ok += x.ok;
    EXPECT_EQ(ok, 4);  // completed work kept, the rest failed with a reason
    for (const auto& x : out)
      if (!x.ok) {
        EXPECT_FALSE(x.error.empty());
      }
  }
  EXPECT_EQ(cache.entries.size(), 4u);
  a.reset();
  // Server B on the same port answers everything: only the 6 missing are asked.
  HttpServer b([&](int, const HttpRequest& req) { return answer(req); }, port);
  ModelClient client(o, &cache);
  const auto out = client.CompleteAll(reqs);
  int from_cache = 0;
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(out[i].ok) << i << ": " << out[i].error;
    EXPECT_EQ(out[i].text, "ans:item" + std::to_string(i));
    from_cache += out[i].from_cache;
  }
  EXPECT_EQ(from_cache, 4);
  EXPECT_EQ(b.requests(), 6);
  ASSERT_EQ(answered.size(), 10u);
  for (const auto& [prompt, n] : answered) EXPECT_EQ(n, 1) << prompt;  // nothing asked twice
}

// The value of the request's Authorization header ("" when none).
std::string AuthorizationOf(const HttpRequest& req) {
  for (const auto& h : req.headers)
    if (h.rfind("Authorization: ", 0) == 0) return h.substr(15);
  return "";
}

TEST(ModelClient, AnEchoedKeyIsRedactedFromAnswersCacheAndErrors) {
  // Answers echo the Authorization header; the prompt "fail" gets a 401 whose
  // message quotes the key, as some servers' error pages do.
  HttpServer server([](int, const HttpRequest& req) {
    const std::string auth = AuthorizationOf(req);
    if (PromptOf(req) == "fail")
      return HttpReply{401, nlohmann::json{{"error", {{"message", "key " + auth.substr(7) + " refused"}}}}.dump()};
    return HttpReply{200, HttpServer::ChatBody("you sent '" + auth + "'")};
  });
  const std::string key = "sk-echo-secret-4242";
  ::setenv("CB_TEST_API_KEY", key.c_str(), 1);
  ClientOptions o = FastOptions(server.url());
  o.api_key_env = "CB_TEST_API_KEY";
  MemoryCache cache;
  ModelClient client(o, &cache);
  const auto out = client.CompleteAll({Ask("q"), Ask("fail")});
  ASSERT_TRUE(out[0].ok) << out[0].error;
  EXPECT_EQ(out[0].text, "you sent 'Bearer [REDACTED]'");  // the echo happened, without the key
  EXPECT_EQ(out[0].raw.find(key), std::string::npos) << out[0].raw;
  ASSERT_EQ(cache.entries.size(), 1u);
  EXPECT_EQ(cache.entries.begin()->second.find(key), std::string::npos) << cache.entries.begin()->second;
  EXPECT_NE(cache.entries.begin()->second.find("[REDACTED]"), std::string::npos);
  ASSERT_FALSE(out[1].ok);
  EXPECT_EQ(out[1].error, "HTTP 401: key [REDACTED] refused");
  // A row cached before redaction existed is redacted when it is read.
  cache.entries.begin()->second = HttpServer::ChatBody("old " + key);
  const ChatOutcome hit = client.Complete(Ask("q"));
  ::unsetenv("CB_TEST_API_KEY");
  ASSERT_TRUE(hit.from_cache);
  EXPECT_EQ(hit.text, "old [REDACTED]");
  EXPECT_EQ(hit.raw.find(key), std::string::npos);
}

// A keep-alive server that resets every connection it has already answered on
// when the next request comes (it reads the request, then closes without an
// answer). libcurl would re-send such a POST on a fresh connection by itself:
// the server would see two requests where the client counted one attempt.
HttpReply ResetReusedConnections(const HttpRequest& req) {
  HttpReply r{200, HttpServer::ChatBody(PromptOf(req))};
  r.drop = req.on_connection > 0;
  return r;
}

TEST(ModelClient, CountsEveryRequestWhenReusedConnectionsAreReset) {
  std::atomic<int> resets{0};
  auto handler = [&](int, const HttpRequest& req) {
    HttpReply r = ResetReusedConnections(req);
    resets += r.drop;
    return r;
  };
  HttpServer server(handler, 0, /*keep_alive=*/true);
  ClientOptions o = FastOptions(server.url());
  o.concurrency = 1;
  o.max_retries = 10;  // a retry can land on a kept-alive connection and be reset again
  ModelClient client(o);
  std::vector<ChatRequest> reqs;
  for (int i = 0; i < 5; ++i) reqs.push_back(Ask("p" + std::to_string(i)));
  const auto out = client.CompleteAll(reqs);
  int attempts = 0;
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(out[i].ok) << i << ": " << out[i].error;
    EXPECT_EQ(out[i].text, "p" + std::to_string(i));
    attempts += out[i].attempts;
  }
  // One at a time, answers and resets alternate: every answered request
  // leaves a kept-alive connection that the next request is reset on.
  EXPECT_EQ(resets, 4);
  EXPECT_EQ(server.requests(), 9);
  EXPECT_EQ(client.requests_sent(), server.requests());
  EXPECT_EQ(attempts, server.requests());

  // The same with requests in parallel: whatever libcurl reuses, the counts agree.
  resets = 0;
  HttpServer busy(handler, 0, /*keep_alive=*/true);
  o = FastOptions(busy.url());
  o.concurrency = 4;
  o.max_retries = 10;
  ModelClient parallel(o);
  reqs.clear();
  for (int i = 0; i < 16; ++i) reqs.push_back(Ask("q" + std::to_string(i)));
  attempts = 0;
  for (const auto& x : parallel.CompleteAll(reqs)) {
    EXPECT_TRUE(x.ok) << x.error;
    attempts += x.attempts;
  }
  EXPECT_GT(resets, 0);
  EXPECT_EQ(busy.requests(), 16 + resets);
  EXPECT_EQ(parallel.requests_sent(), busy.requests());
  EXPECT_EQ(attempts, busy.requests());
}

TEST(ModelClient, RetryLimitBoundsRequestsOnResetConnections) {
  // Answers the first request, then resets every connection under its request.
  HttpServer server(
      [](int n, const HttpRequest& req) {
        HttpReply r{200, HttpServer::ChatBody(PromptOf(req))};
        r.drop = n > 0;
        return r;
      },
      0, /*keep_alive=*/true);
  ClientOptions o = FastOptions(server.url());
  o.concurrency = 1;
  o.max_retries = 2;
  ModelClient client(o);
  const auto out = client.CompleteAll({Ask("a"), Ask("b")});
  ASSERT_TRUE(out[0].ok) << out[0].error;
  EXPECT_FALSE(out[1].ok);
  EXPECT_EQ(out[1].attempts, 3);  // 1 + max_retries
  EXPECT_NE(out[1].error.find("(after 3 attempts)"), std::string::npos) << out[1].error;
  EXPECT_EQ(server.requests(), 1 + 3);
  EXPECT_EQ(client.requests_sent(), server.requests());
}

}  // namespace
}  // namespace cb::harness
