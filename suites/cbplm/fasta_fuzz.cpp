// File: suites/cbplm/fasta_fuzz.cpp
// -----------------------------------------------------------------------------
// libFuzzer target of the FASTA reader of `claimbench eval protparam`
// (suites/cbplm/fasta.h: ParseFasta; issue 30 item 9, run by ci/fuzz.sh,
// seeds in fixtures/fuzz/fasta/). The input is the file's text. A parse must
// return at least one record, each with an id and residues (the reader
// refuses the rest); success or a std::runtime_error (the documented error)
// is a pass; a crash, a sanitizer report, any other exception type or a
// record breaking those promises is a failure.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include "suites/cbplm/fasta.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto records = cb::cbplm::ParseFasta(text, "fuzz.fasta");
    if (records.empty()) std::abort();
    for (const auto& r : records)
      if (r.id.empty() || r.sequence.empty() || r.line < 1) std::abort();
  } catch (const std::runtime_error&) {
  }
  return 0;
}
