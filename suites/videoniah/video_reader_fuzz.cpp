// File: suites/videoniah/video_reader_fuzz.cpp
// -----------------------------------------------------------------------------
// libFuzzer target of the video reader behind `claimbench gen videoniah
// --haystack` (suites/videoniah/video_io.h: VideoReader; issue 30 item 9, run
// by ci/fuzz.sh, seeds in fixtures/fuzz/video/: a one-frame Y4M and a short
// H.264 MP4). Our code parses no container header itself: libavformat does
// (Debian's build, not instrumented), and this target checks what we do with
// what it returns: the stream's size, frames as I420 and scaled to RGB with
// their times. The input is written to a scratch file (VideoReader takes a
// path; in /dev/shm where there is one) and read for at most 4 frames. Success or a
// std::runtime_error (the documented error) is a pass; a crash, a sanitizer
// report, any other exception type or an RGB frame not of the size asked for
// is a failure. (Frame times are the file's own and may
// be anything in a broken file: not checked.)
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "suites/videoniah/video_io.h"

namespace {

// One scratch file per process, rewritten for every input and removed at
// exit; in memory (/dev/shm) when the machine has it.
const std::string& ScratchPath() {
  static const std::string path = [] {
    for (const char* dir : {"/dev/shm", "/tmp"}) {
      std::string name = std::string(dir) + "/cb_video_fuzz_XXXXXX";
      const int fd = mkstemp(name.data());
      if (fd < 0) continue;
      close(fd);
      return name;
    }
    std::abort();
  }();
  static const bool removed_at_exit = std::atexit([] { std::remove(ScratchPath().c_str()); }) == 0;
  (void)removed_at_exit;
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = ScratchPath();
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr || std::fwrite(data, 1, size, f) != size || std::fclose(f) != 0) std::abort();
  // Opening a file costs libavformat's probe, so one reader per input reads
  // both ways: even frames as I420, odd ones scaled to RGB.
  try {
    cb::videoniah::VideoReader reader(path);
    std::string i420;
    cb::gen::videoniah::Frame rgb;
    double seconds = 0;
    for (int k = 0; k < 4; ++k) {
      if (k % 2 == 0) {
        if (!reader.NextI420(&i420)) break;
      } else {
        if (!reader.NextRgb(16, 8, &rgb, &seconds)) break;
        if (rgb.width != 16 || rgb.height != 8 || rgb.rgb.size() != 16u * 8u * 3u) std::abort();
      }
    }
  } catch (const std::runtime_error&) {
  }
  return 0;
}
