// File: suites/videoniah/video_io.h
// -----------------------------------------------------------------------------
// VideoNIAH video files through FFmpeg's libraries (libavformat, libavcodec,
// libswscale, libavutil; Debian's build links libx264):
//
//   Mp4Writer        H.264 (libx264) in MP4. Frames go in as the same 4:2:0
//                    full-range BT.601 bytes the Y4M writer writes (RgbToI420,
//                    our integer conversion, not swscale), so at crf 0 (x264's
//                    lossless mode, qp 0) a decoder returns exactly those
//                    bytes: the decoded-frame hash of an MP4 equals the Y4M's.
//   VideoReader      any file libavformat reads: frames as I420 bytes (4:2:0
//                    sources) or as RGB scaled to a given size (libswscale).
//   DecodedHaystack  a user's video as a VideoNIAH haystack: decoded, scaled to
//                    the generator's W x H (aspect not kept), RGB, resampled to
//                    the generator's fps by timestamp, held in memory.
//
// Errors are std::runtime_error with one line naming the file.
#ifndef CB_SUITES_VIDEONIAH_VIDEO_IO_H_
#define CB_SUITES_VIDEONIAH_VIDEO_IO_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "generators/videoniah.h"

namespace cb::videoniah {

// True when this libavcodec has the libx264 encoder (looked up at run time:
// a libavcodec built without x264 still links).
bool H264EncoderAvailable();
// Throws a one-line std::runtime_error unless H264EncoderAvailable().
void RequireH264Encoder();
// "Lavc59.37.100" (recorded in manifests: lossy output depends on it).
std::string LibavcodecVersion();

struct Mp4Options {
  int crf = 0;                       // 0: lossless (qp 0); 1..51: lossy, x264's crf
  std::string preset = "ultrafast";  // x264 speed preset
  int threads = 0;                   // x264 threads; 0: libx264 decides
};

class Mp4Writer {
 public:
  // Opens `path`; throws std::runtime_error (encoder missing, cannot write).
  Mp4Writer(const std::string& path, int width, int height, int fps, const Mp4Options& o = {});
  ~Mp4Writer();
  Mp4Writer(const Mp4Writer&) = delete;
  Mp4Writer& operator=(const Mp4Writer&) = delete;
  void Write(const cb::gen::videoniah::Frame& frame);
  // One frame as I420 bytes (w*h luma, then (w/2)*(h/2) Cb, then Cr).
  void WriteI420(const std::string& i420);
  void Close();  // flushes the encoder and writes the trailer; throws on error

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

class VideoReader {
 public:
  // Opens the best video stream of `path`; throws std::runtime_error
  // ("<path>: no such file", "<path>: not a video libavformat can read (...)",
  // "<path>: no video stream", "<path>: no decoder for ...").
  explicit VideoReader(const std::string& path);
  ~VideoReader();
  VideoReader(const VideoReader&) = delete;
  VideoReader& operator=(const VideoReader&) = delete;
  int width() const;
  int height() const;
  // Next frame as I420 bytes; false at the end. Throws unless the stream is
  // 8-bit 4:2:0.
  bool NextI420(std::string* out);
  // Next frame scaled to width x height RGB (BT.601 or BT.709 as the stream
  // says, its range honoured) and its time in seconds from the stream start;
  // false at the end.
  bool NextRgb(int width, int height, cb::gen::videoniah::Frame* out, double* seconds);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// XXH3-128 (hex) over the I420 bytes of every frame a decoder returns for
// `path`, and the frame count.
struct DecodedHash {
  std::string hex;
  int64_t frames = 0;
};
DecodedHash HashDecodedI420(const std::string& path);

class DecodedHaystack : public cb::gen::videoniah::HaystackSource {
 public:
  // Decodes all of `path`. Output frame f shows the latest source frame whose
  // time is at or before f / fps; there are floor(last time * fps) + 1
  // frames. Throws std::runtime_error naming the file when it cannot be read,
  // has no frames, or would take more than `max_bytes` of memory.
  DecodedHaystack(const std::string& path, const cb::gen::videoniah::Params& p,
                  size_t max_bytes = size_t{4} << 30);
  int frames() const override { return static_cast<int>(frames_.size()); }
  void Get(int f, cb::gen::videoniah::Frame* out) const override { *out = frames_.at(f); }
  const std::string& path() const { return path_; }
  // XXH3-128 (hex) of the resampled RGB frames (depends on the libswscale build).
  std::string ContentHash() const;

 private:
  std::string path_;
  std::vector<cb::gen::videoniah::Frame> frames_;
};

}  // namespace cb::videoniah

#endif  // CB_SUITES_VIDEONIAH_VIDEO_IO_H_
