// File: reference/eagle/bench_fuzz.cpp
// -----------------------------------------------------------------------------
// libFuzzer target of the Eagle benchmark prediction-file reader
// (reference/eagle/bench.h: ParsePredictions; issue 30 item 9, run by
// ci/fuzz.sh, seeds in fixtures/fuzz/eagle/). The input is a predictions file;
// what parses is then scored in both modes, so every task's scorer
// (normalisation, ANLS, relaxed accuracy, MME parsing) sees fuzzed replies.
// Success or a std::runtime_error (the documented error of both) is a pass; a
// crash, a sanitizer report or any other exception type is a failure.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "reference/eagle/bench.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace eg = cb::ref::eagle;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto preds = eg::ParsePredictions(text, "fuzz");
    for (eg::Mode mode : {eg::Mode::kStrict, eg::Mode::kPaperCompatible}) {
      try {
        (void)eg::Score(preds, mode, "fuzz");
      } catch (const std::runtime_error&) {
      }
    }
  } catch (const std::runtime_error&) {
  }
  return 0;
}
