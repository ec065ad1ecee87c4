// File: harness/redact.h
// -----------------------------------------------------------------------------
// Keeps a secret (the model endpoint's API key) out of everything claimbench
// writes: the ledger's http_cache and result rows, error lines, files. An
// endpoint may echo the key or the Authorization header it came in (a debug
// echo server, an error page quoting the request); the model client passes
// every response body and error through a Redactor before anything keeps it.
//
//   const Redactor redact(api_key);
//   cache->Put(key, redact(body));
#ifndef CB_HARNESS_REDACT_H_
#define CB_HARNESS_REDACT_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cb::harness {

class Redactor {
 public:
  // What a secret is replaced with.
  static constexpr std::string_view kMarker = "[REDACTED]";
  // Shorter values are placeholders, not secrets (vLLM's "EMPTY", "none"):
  // redacting them would rewrite model answers that contain those letters.
  static constexpr size_t kMinSecretLength = 8;

  // `secret` may be empty or short: then the redactor changes nothing.
  explicit Redactor(std::string_view secret);

  // `text` with every occurrence of the secret replaced by kMarker: as is, and
  // as a JSON string escapes it (quotes, backslashes, control characters, and
  // the optional "\/"), so an echo inside a JSON body is found too.
  std::string operator()(std::string_view text) const;

  // Whether there is a secret to redact.
  bool active() const { return !forms_.empty(); }

 private:
  std::vector<std::string> forms_;  // distinct spellings of the secret, longest first
};

}  // namespace cb::harness

#endif  // CB_HARNESS_REDACT_H_
