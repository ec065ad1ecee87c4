// File: ledger/exchange_fuzz.cpp
// -----------------------------------------------------------------------------
// libFuzzer target of the export import (ledger/exchange.cpp: Ledger::Import,
// what `claimbench ledger import` reads; issue 30 item 9, run by ci/fuzz.sh,
// seeds in fixtures/fuzz/exchange/). The input is an export file (JSON Lines,
// one sealed run a line); it is imported into an in-memory ledger, which is
// replaced every 4096 inputs so that accepted runs do not pile up. Success or
// a std::runtime_error (LedgerError is one: the documented error, naming the
// line) is a pass; a crash, a sanitizer report or any other exception type is
// a failure.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

#include "ledger/ledger.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static std::unique_ptr<cb::ledger::Ledger> ledger;
  static int64_t inputs = 0;
  if (!ledger || ++inputs % 4096 == 0) {
    ledger.reset();
    ledger = std::make_unique<cb::ledger::Ledger>(cb::ledger::Ledger::Open(":memory:"));
  }
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    (void)ledger->Import(in, "fuzz");
  } catch (const std::runtime_error&) {
  }
  return 0;
}
