// File: suites/regenesis/regenesis_eval_fuzz.cpp
// -----------------------------------------------------------------------------
// libFuzzer target of the ReGenesis prediction-file reader
// (suites/regenesis/regenesis_eval.h: ParsePredictions; issue 30 item 9, run
// by ci/fuzz.sh, seeds in fixtures/fuzz/regenesis/). The input is a
// predictions file. Success or a std::runtime_error (the documented error) is
// a pass; a crash, a sanitizer report or any other exception type is a
// failure.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "suites/regenesis/regenesis_eval.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    (void)cb::regenesis::ParsePredictions(text, "fuzz");
  } catch (const std::runtime_error&) {
  }
  return 0;
}
