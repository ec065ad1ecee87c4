// File: suites/medrega/medrega_eval_fuzz.cpp
// -----------------------------------------------------------------------------
// libFuzzer target of the MedRegA prediction-file reader
// (suites/medrega/medrega_eval.h: ParsePredictions, JSON Lines or the
// authors' JSON array; issue 30 item 9, run by ci/fuzz.sh, seeds in
// fixtures/fuzz/medrega/). The first byte picks the default task (as
// `--task` does) or none; the rest is the file. Success or a
// std::runtime_error (the documented error) is a pass; a crash, a sanitizer
// report or any other exception type is a failure.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "suites/medrega/medrega_eval.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  namespace mr = cb::ref::medrega;
  static const std::optional<mr::Task> kDefaults[] = {std::nullopt, mr::Task::kSs, mr::Task::kR2t};
  const std::optional<mr::Task> task = kDefaults[data[0] % 3];
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    (void)cb::medrega::ParsePredictions(text, "fuzz", task);
  } catch (const std::runtime_error&) {
  }
  return 0;
}
