// File: harness/safetensors_fuzz.cpp
// -----------------------------------------------------------------------------
// libFuzzer target of the safetensors reader (harness/safetensors.h; issue 30
// item 9, run by ci/fuzz.sh, seeds in fixtures/fuzz/safetensors/). Each input
// is a whole file: it is written to an anonymous in-memory file (memfd, so no
// disk and no clean-up) and opened through /proc/self/fd as SafetensorsFile::
// Open() opens a path, then every tensor is read with ReadAsDouble(). Success
// or a std::runtime_error (the reader's documented error) is a pass; a crash,
// a sanitizer report or any other exception type is a failure.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "harness/safetensors.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const int fd = memfd_create("safetensors_fuzz", 0);
  if (fd < 0) std::abort();
  static const std::string path = "/proc/self/fd/" + std::to_string(fd);
  if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != static_cast<ssize_t>(size)) std::abort();
  try {
    const auto file = cb::harness::SafetensorsFile::Open(path);
    for (const auto& t : file.tensors()) {
      try {
        (void)file.ReadAsDouble(t.name);
      } catch (const std::runtime_error&) {
        // An integer dtype is refused by name: a documented error, go on.
      }
    }
  } catch (const std::runtime_error&) {
  }
  return 0;
}
