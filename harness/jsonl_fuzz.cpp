// File: harness/jsonl_fuzz.cpp
// -----------------------------------------------------------------------------
// libFuzzer target of the JSON Lines reader every prediction and statistics
// file goes through (harness/jsonl.h; issue 30 item 9, run by ci/fuzz.sh,
// seeds in fixtures/fuzz/jsonl/). The input is the file's text; the callback
// reads each object as a row reader would (a key, a number as double) and
// throws a std::runtime_error on every third row, so the error-naming path
// (harness/input_error.h) is fuzzed too. Success or a std::runtime_error
// starting "fuzz:" is a pass; a crash, a sanitizer report, any other exception
// type or an error not naming the input is a failure.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "harness/jsonl.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  int rows = 0;
  try {
    cb::harness::ForEachJsonlObject(text, "fuzz", [&](const nlohmann::json& o, const std::string& where) {
      if (!o.is_object()) std::abort();  // the reader promised an object
      if (where.rfind("fuzz:", 0) != 0) std::abort();
      if (auto it = o.find("x"); it != o.end() && it->is_number()) (void)it->get<double>();
      if (++rows % 3 == 0) throw std::runtime_error("row " + std::to_string(rows) + " refused");
    });
  } catch (const std::runtime_error& e) {
    if (std::string_view(e.what()).rfind("fuzz:", 0) != 0) std::abort();
  }
  return 0;
}
