// File: ledger/analysis/gbench_json_fuzz.cpp
// -----------------------------------------------------------------------------
// libFuzzer target of the Google Benchmark JSON import
// (ledger/analysis/gbench_json.h: ImportGbenchJson; issue 30 item 9, run by
// ci/fuzz.sh, seeds in fixtures/fuzz/gbench_json/). The input is a file as
// `claimbench ledger import --format gbench-json` reads it: parsed without
// exceptions (not JSON is refused before the import, as there), then imported
// into an in-memory ledger, replaced every 4096 inputs so that accepted runs
// do not pile up. Success or a std::runtime_error (the documented error) is a
// pass; a crash, a sanitizer report or any other exception type is a failure.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "ledger/analysis/gbench_json.h"
#include "ledger/ledger.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static std::unique_ptr<cb::ledger::Ledger> ledger;
  static int64_t inputs = 0;
  if (!ledger || ++inputs % 4096 == 0) {
    ledger.reset();
    ledger = std::make_unique<cb::ledger::Ledger>(cb::ledger::Ledger::Open(":memory:"));
  }
  const nlohmann::json j = nlohmann::json::parse(data, data + size, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return 0;
  try {
    (void)cb::ledger::ImportGbenchJson(*ledger, j, "fuzz", "fuzz");
  } catch (const std::runtime_error&) {
  }
  return 0;
}
