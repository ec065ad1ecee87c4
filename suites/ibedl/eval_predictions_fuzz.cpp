// File: suites/ibedl/eval_predictions_fuzz.cpp
// -----------------------------------------------------------------------------
// libFuzzer target of the IB-EDL prediction readers (issue 30 item 9, run by
// ci/fuzz.sh, seeds in fixtures/fuzz/ibedl/): an input that starts with the
// NPY magic "\x93NUMPY" is one .npy member of the authors' npz
// (suites/ibedl/npz.h: ParseNpy, header dictionary, dtype and shape checked
// against the payload); any other input is a JSON Lines predictions file
// (suites/ibedl/eval_predictions.h: ParsePredictionsJsonl). Success or a
// std::runtime_error (the documented error of both) is a pass; a crash, a
// sanitizer report or any other exception type is a failure.
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "suites/ibedl/eval_predictions.h"
#include "suites/ibedl/npz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  try {
    if (bytes.rfind("\x93NUMPY", 0) == 0) {
      (void)cb::ibedl::ParseNpy(bytes, "fuzz.npy");
    } else {
      (void)cb::ibedl::ParsePredictionsJsonl(bytes, "fuzz");
    }
  } catch (const std::runtime_error&) {
  }
  return 0;
}
