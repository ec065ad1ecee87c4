// File: harness/redact.cpp
// Replacing a secret in text; see redact.h.
#include "harness/redact.h"

#include <algorithm>

#include <nlohmann/json.hpp>

namespace cb::harness {
namespace {

// Every occurrence of `from` in `text` replaced by `to`, left to right.
std::string ReplaceAll(std::string_view text, std::string_view from, std::string_view to) {
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  for (size_t hit; (hit = text.find(from, pos)) != std::string_view::npos; pos = hit + from.size()) {
    out.append(text.substr(pos, hit - pos));
    out.append(to);
  }
  out.append(text.substr(pos));
  return out;
}

}  // namespace

Redactor::Redactor(std::string_view secret) {
  if (secret.size() < kMinSecretLength) return;
  forms_.emplace_back(secret);
  // As nlohmann (and most encoders) write it inside a JSON string; invalid
  // UTF-8 is replaced rather than thrown on, since the key is only compared.
  const std::string dumped =
      nlohmann::json(std::string(secret)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  forms_.push_back(dumped.substr(1, dumped.size() - 2));
  // Encoders that also escape the solidus (PHP's json_encode).
  forms_.push_back(ReplaceAll(forms_.back(), "/", "\\/"));
  std::sort(forms_.begin(), forms_.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() > b.size() : a < b;
  });
  forms_.erase(std::unique(forms_.begin(), forms_.end()), forms_.end());
}

std::string Redactor::operator()(std::string_view text) const {
  std::string out(text);
  // Longest first: an escaped spelling is never left half-replaced by a
  // shorter one that it contains.
  for (const auto& form : forms_) out = ReplaceAll(out, form, kMarker);
  return out;
}

}  // namespace cb::harness
