// File: reference/sgp/sgp_fuzz.cpp
// -----------------------------------------------------------------------------
// libFuzzer target of the SGP-Bench prediction-file reader
// (reference/sgp/sgp.h: ParsePredictions; issue 30 item 9, run by ci/fuzz.sh,
// seeds in fixtures/fuzz/sgp/). The input is a predictions file; what parses
// is then scored in both modes (the answer extraction and the re-query loop
// see fuzzed replies). Success or a std::runtime_error (the documented error)
// is a pass; a crash, a sanitizer report or any other exception type is a
// failure.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

#include "reference/sgp/sgp.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace sgp = cb::ref::sgp;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto preds = sgp::ParsePredictions(text, "fuzz");
    for (sgp::Mode mode : {sgp::Mode::kStrict, sgp::Mode::kPaperCompatible}) (void)sgp::Score(preds, mode);
  } catch (const std::runtime_error&) {
  }
  return 0;
}
