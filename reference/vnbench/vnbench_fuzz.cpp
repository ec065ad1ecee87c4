// File: reference/vnbench/vnbench_fuzz.cpp
// -----------------------------------------------------------------------------
// libFuzzer target of the VideoNIAH (VNBench) prediction-file reader
// (reference/vnbench/vnbench.h: ParsePredictions in eval.py's format; issue 30
// item 9, run by ci/fuzz.sh, seeds in fixtures/fuzz/vnbench/). The input is a
// predictions file; what parses is then scored in both modes, as `claimbench
// eval videoniah` does, so the letter extraction sees fuzzed model replies.
// Success or a std::runtime_error (the documented error of both) is a pass; a
// crash, a sanitizer report or any other exception type is a failure.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "reference/vnbench/vnbench.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace vn = cb::ref::vnbench;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto preds = vn::ParsePredictions(text, "fuzz");
    for (vn::Mode mode : {vn::Mode::kStrict, vn::Mode::kPaperCompatible}) {
      try {
        (void)vn::Score(preds, mode);
      } catch (const std::runtime_error&) {
      }
    }
  } catch (const std::runtime_error&) {
  }
  return 0;
}
