// File: suites/mia/stats_file_fuzz.cpp
// -----------------------------------------------------------------------------
// libFuzzer target of the MIA statistics reader (suites/mia/stats_file.h:
// ReadStatsFile, the per-text JSON Lines that dump_stats.py writes and
// `claimbench eval mia` reads; issue 30 item 9, run by ci/fuzz.sh, seeds in
// fixtures/fuzz/mia_stats/). ReadStatsFile takes a path, so each input is
// written to an anonymous in-memory file (memfd) read through /proc/self/fd.
// Success or a std::runtime_error (the documented error, "FILE:LINE: what")
// is a pass; a crash, a sanitizer report or any other exception type is a
// failure.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "suites/mia/stats_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const int fd = memfd_create("mia_stats_fuzz", 0);
  if (fd < 0) std::abort();
  static const std::string path = "/proc/self/fd/" + std::to_string(fd);
  if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != static_cast<ssize_t>(size)) std::abort();
  try {
    (void)cb::mia::ReadStatsFile(path);
  } catch (const std::runtime_error&) {
  }
  return 0;
}
