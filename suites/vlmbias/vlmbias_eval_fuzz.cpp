// File: suites/vlmbias/vlmbias_eval_fuzz.cpp
// -----------------------------------------------------------------------------
// libFuzzer target of the VLMBias prediction-file reader
// (suites/vlmbias/vlmbias_eval.h: ParseRows, README "File format"; issue 30
// item 9, run by ci/fuzz.sh, seeds in fixtures/fuzz/vlmbias/). The input is a
// predictions file. Success or a std::runtime_error (the documented error) is
// a pass; a crash, a sanitizer report or any other exception type is a
// failure.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "suites/vlmbias/vlmbias_eval.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    (void)cb::vlmbias::ParseRows(text, "fuzz");
  } catch (const std::runtime_error&) {
  }
  return 0;
}
