// File: suites/videoniah/media.h
// -----------------------------------------------------------------------------
// Frame encodings for VideoNIAH: a streaming Y4M writer (uncompressed 4:2:0,
// full-range BT.601 "C420jpeg", integer conversion) for `gen videoniah`, and
// a PNG encoder (zlib) for the base64 data URLs sent to a model endpoint.
#ifndef CB_SUITES_VIDEONIAH_MEDIA_H_
#define CB_SUITES_VIDEONIAH_MEDIA_H_

#include <cstdio>
#include <string>

#include "generators/videoniah.h"

namespace cb::videoniah {

class Y4mWriter {
 public:
  // Opens `path` for writing; throws std::runtime_error naming it on failure.
  Y4mWriter(const std::string& path, int width, int height, int fps);
  ~Y4mWriter();
  Y4mWriter(const Y4mWriter&) = delete;
  Y4mWriter& operator=(const Y4mWriter&) = delete;
  void Write(const cb::gen::videoniah::Frame& frame);
  void Close();  // flushes; throws on a write error

 private:
  std::string path_;
  std::FILE* f_ = nullptr;
  int w_, h_;
  std::string buf_;
};

// RGB -> YUV 4:2:0 (full range, BT.601), the bytes of one Y4M FRAME payload.
void RgbToI420(const cb::gen::videoniah::Frame& frame, std::string* out);

// The frame as a PNG file (8-bit RGB, zlib level 1).
std::string EncodePng(const cb::gen::videoniah::Frame& frame);

}  // namespace cb::videoniah

#endif  // CB_SUITES_VIDEONIAH_MEDIA_H_
