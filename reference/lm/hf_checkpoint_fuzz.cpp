// File: reference/lm/hf_checkpoint_fuzz.cpp
// -----------------------------------------------------------------------------
// libFuzzer target of the Llama checkpoint's config.json reader
// (reference/lm/hf_checkpoint.h: LoadCheckpoint, which reads config.json
// before any weights; issue 30 item 9, run by ci/fuzz.sh, seeds in
// fixtures/fuzz/hf_config/). The reader takes a folder, so each input is
// written as config.json into one scratch folder of this process (on /dev/shm
// where there is one) that holds no weights: a config that passes is then
// refused for the missing model.safetensors. Success or a std::runtime_error
// (the documented error, naming the file and the key) is a pass; a crash, a
// sanitizer report or any other exception type is a failure.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "reference/lm/hf_checkpoint.h"

namespace {

std::string scratch;  // the folder config.json is written to

void RemoveScratch() { std::filesystem::remove_all(scratch); }

void MakeScratch() {
  namespace fs = std::filesystem;
  const fs::path base = fs::exists("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
  scratch = (base / "cb_hf_config_fuzz.XXXXXX").string();
  if (mkdtemp(scratch.data()) == nullptr) std::abort();
  std::atexit(RemoveScratch);  // a crash leaves it: one small file
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (scratch.empty()) MakeScratch();
  {
    std::ofstream out(scratch + "/config.json", std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    if (!out) std::abort();
  }
  try {
    (void)cb::ref::lm::LoadCheckpoint(scratch);
  } catch (const std::runtime_error&) {
  }
  return 0;
}
