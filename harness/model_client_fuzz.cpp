// File: harness/model_client_fuzz.cpp
// -----------------------------------------------------------------------------
// libFuzzer target of the model endpoint's response-body parser
// (harness/model_client.h: ParseChatContent, the OpenAI-style chat answer;
// issue 30 item 9, run by ci/fuzz.sh, seeds in fixtures/fuzz/model_client/).
// The input is an HTTP response body as the server sent it. ParseChatContent
// is documented to return nullopt for a body of another shape, never to
// throw, so any exception, a crash or a sanitizer report is a failure.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "harness/model_client.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  if (auto content = cb::harness::ParseChatContent(body)) (void)content->size();
  return 0;
}
