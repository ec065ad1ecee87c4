// File: suites/videoniah/video_io.cpp
// MP4 (H.264) writing and video decoding for VideoNIAH through FFmpeg's
// libraries; see video_io.h.
#include "suites/videoniah/video_io.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>
}

#include "harness/hash.h"
#include "suites/videoniah/media.h"

namespace cb::videoniah {

using cb::gen::videoniah::Frame;

namespace {

std::string AvError(int rc) {
  char buf[AV_ERROR_MAX_STRING_SIZE] = {0};
  av_strerror(rc, buf, sizeof buf);
  return buf;
}

constexpr char kEncoder[] = "libx264";

// FFmpeg's libraries log to stderr (x264's statistics, demuxer complaints
// about a bad file); errors reach the user as our one-line exceptions instead.
// CB_AV_LOG=1 keeps the library's own messages for debugging.
void QuietLibav() {
  static const bool once = [] {
    const char* env = std::getenv("CB_AV_LOG");
    av_log_set_level(env != nullptr && *env == '1' ? AV_LOG_INFO : AV_LOG_QUIET);
    return true;
  }();
  (void)once;
}

// The deprecated "J" formats are plain YUV at full range; libswscale wants
// the plain format plus the range flag.
AVPixelFormat PlainFormat(AVPixelFormat f, bool* full_range) {
  switch (f) {
    case AV_PIX_FMT_YUVJ420P: *full_range = true; return AV_PIX_FMT_YUV420P;
    case AV_PIX_FMT_YUVJ422P: *full_range = true; return AV_PIX_FMT_YUV422P;
    case AV_PIX_FMT_YUVJ444P: *full_range = true; return AV_PIX_FMT_YUV444P;
    case AV_PIX_FMT_YUVJ440P: *full_range = true; return AV_PIX_FMT_YUV440P;
    default: return f;
  }
}

}  // namespace

bool H264EncoderAvailable() {
  QuietLibav();
  return avcodec_find_encoder_by_name(kEncoder) != nullptr;
}

std::string LibavcodecVersion() { return LIBAVCODEC_IDENT; }

void RequireH264Encoder() {
  if (!H264EncoderAvailable())
    throw std::runtime_error(
        "MP4 output needs libavcodec's libx264 encoder, which this libavcodec lacks (Debian's libavcodec has it; "
        "or use --format y4m)");
}

// ---------------------------------------------------------------------------
// Mp4Writer

struct Mp4Writer::Impl {
  std::string path;
  int w = 0, h = 0;
  AVFormatContext* fmt = nullptr;
  AVCodecContext* enc = nullptr;
  AVStream* st = nullptr;
  AVFrame* frame = nullptr;
  AVPacket* pkt = nullptr;
  int64_t next_pts = 0;
  bool header_written = false, closed = false;
  std::string i420;

  ~Impl() {
    if (pkt) av_packet_free(&pkt);
    if (frame) av_frame_free(&frame);
    if (enc) avcodec_free_context(&enc);
    if (fmt) {
      if (fmt->pb) avio_closep(&fmt->pb);
      avformat_free_context(fmt);
    }
  }
  [[noreturn]] void Fail(const std::string& what, int rc) const {
    throw std::runtime_error(path + ": " + what + (rc < 0 ? " (" + AvError(rc) + ")" : ""));
  }
  // Sends `f` (nullptr: flush) and writes every packet the encoder returns.
  void Encode(AVFrame* f) {
    int rc = avcodec_send_frame(enc, f);
    if (rc < 0) Fail("H.264 encoding failed", rc);
    while (true) {
      rc = avcodec_receive_packet(enc, pkt);
      if (rc == AVERROR(EAGAIN) || rc == AVERROR_EOF) return;
      if (rc < 0) Fail("H.264 encoding failed", rc);
      av_packet_rescale_ts(pkt, enc->time_base, st->time_base);
      pkt->stream_index = st->index;
      rc = av_interleaved_write_frame(fmt, pkt);  // takes the packet's reference
      if (rc < 0) Fail("write error", rc);
    }
  }
};

Mp4Writer::Mp4Writer(const std::string& path, int width, int height, int fps, const Mp4Options& o)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.path = path;
  m.w = width;
  m.h = height;
  RequireH264Encoder();
  if (o.crf < 0 || o.crf > 51) throw std::invalid_argument("mp4: crf must be in [0, 51]");
  const AVCodec* codec = avcodec_find_encoder_by_name(kEncoder);
  int rc = avformat_alloc_output_context2(&m.fmt, nullptr, "mp4", path.c_str());
  if (rc < 0 || !m.fmt) m.Fail("cannot set up an MP4 muxer", rc);
  m.fmt->flags |= AVFMT_FLAG_BITEXACT;  // no library version strings in the file
  m.st = avformat_new_stream(m.fmt, nullptr);
  m.enc = avcodec_alloc_context3(codec);
  if (!m.st || !m.enc) m.Fail("out of memory", 0);
  m.enc->width = width;
  m.enc->height = height;
  m.enc->time_base = AVRational{1, fps};
  m.enc->framerate = AVRational{fps, 1};
  m.enc->pix_fmt = AV_PIX_FMT_YUV420P;
  // What RgbToI420 writes: full-range BT.601 (x264 sets the VUI fullrange flag).
  m.enc->color_range = AVCOL_RANGE_JPEG;
  m.enc->colorspace = AVCOL_SPC_BT470BG;
  m.enc->color_primaries = AVCOL_PRI_BT470BG;
  m.enc->color_trc = AVCOL_TRC_SMPTE170M;
  m.enc->thread_count = o.threads;
  m.enc->flags |= AV_CODEC_FLAG_BITEXACT;
  if (m.fmt->oformat->flags & AVFMT_GLOBALHEADER) m.enc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  AVDictionary* opts = nullptr;
  av_dict_set(&opts, "preset", o.preset.c_str(), 0);
  if (o.crf == 0)
    av_dict_set(&opts, "qp", "0", 0);  // x264's lossless mode
  else
    av_dict_set(&opts, "crf", std::to_string(o.crf).c_str(), 0);
  rc = avcodec_open2(m.enc, codec, &opts);
  av_dict_free(&opts);
  if (rc < 0) m.Fail("cannot open the libx264 encoder", rc);
  rc = avcodec_parameters_from_context(m.st->codecpar, m.enc);
  if (rc < 0) m.Fail("cannot set stream parameters", rc);
  m.st->time_base = m.enc->time_base;
  m.st->avg_frame_rate = AVRational{fps, 1};
  rc = avio_open(&m.fmt->pb, path.c_str(), AVIO_FLAG_WRITE);
  if (rc < 0) m.Fail("cannot write", rc);
  rc = avformat_write_header(m.fmt, nullptr);
  if (rc < 0) m.Fail("cannot write the MP4 header", rc);
  m.header_written = true;
  m.frame = av_frame_alloc();
  m.pkt = av_packet_alloc();
  if (!m.frame || !m.pkt) m.Fail("out of memory", 0);
  m.frame->format = AV_PIX_FMT_YUV420P;
  m.frame->width = width;
  m.frame->height = height;
  m.frame->color_range = AVCOL_RANGE_JPEG;
  m.frame->colorspace = AVCOL_SPC_BT470BG;
  rc = av_frame_get_buffer(m.frame, 0);
  if (rc < 0) m.Fail("out of memory", rc);
}

Mp4Writer::~Mp4Writer() = default;

void Mp4Writer::Write(const Frame& frame) {
  if (frame.width != impl_->w || frame.height != impl_->h) throw std::invalid_argument("mp4: frame size changed");
  RgbToI420(frame, &impl_->i420);
  WriteI420(impl_->i420);
}

void Mp4Writer::WriteI420(const std::string& i420) {
  Impl& m = *impl_;
  if (m.closed) throw std::logic_error("mp4: write after Close");
  const int w = m.w, h = m.h;
  if (i420.size() != static_cast<size_t>(w) * h * 3 / 2) throw std::invalid_argument("mp4: I420 frame size mismatch");
  const int rc = av_frame_make_writable(m.frame);  // the encoder may still hold the last buffer
  if (rc < 0) m.Fail("out of memory", rc);
  const uint8_t* src = reinterpret_cast<const uint8_t*>(i420.data());
  const int pw[3] = {w, w / 2, w / 2}, ph[3] = {h, h / 2, h / 2};
  for (int p = 0; p < 3; ++p) {
    for (int y = 0; y < ph[p]; ++y)
      std::memcpy(m.frame->data[p] + static_cast<size_t>(y) * m.frame->linesize[p], src + static_cast<size_t>(y) * pw[p],
                  pw[p]);
    src += static_cast<size_t>(pw[p]) * ph[p];
  }
  m.frame->pts = m.next_pts++;
  m.Encode(m.frame);
}

void Mp4Writer::Close() {
  Impl& m = *impl_;
  if (m.closed) return;
  m.closed = true;
  m.Encode(nullptr);
  int rc = av_write_trailer(m.fmt);
  if (rc < 0) m.Fail("cannot write the MP4 trailer", rc);
  rc = avio_closep(&m.fmt->pb);
  if (rc < 0) m.Fail("write error", rc);
}

// ---------------------------------------------------------------------------
// VideoReader

struct VideoReader::Impl {
  std::string path;
  AVFormatContext* fmt = nullptr;
  AVCodecContext* dec = nullptr;
  AVFrame* frame = nullptr;
  AVPacket* pkt = nullptr;
  SwsContext* sws = nullptr;
  int stream = -1;
  bool flushed = false, done = false;
  int64_t first_ts = AV_NOPTS_VALUE;
  int64_t count = 0;

  ~Impl() {
    if (sws) sws_freeContext(sws);
    if (pkt) av_packet_free(&pkt);
    if (frame) av_frame_free(&frame);
    if (dec) avcodec_free_context(&dec);
    if (fmt) avformat_close_input(&fmt);
  }
  [[noreturn]] void Fail(const std::string& what, int rc) const {
    throw std::runtime_error(path + ": " + what + (rc < 0 ? " (" + AvError(rc) + ")" : ""));
  }
  // Decodes the next frame into `frame`; false at the end of the stream.
  bool Next() {
    while (!done) {
      int rc = avcodec_receive_frame(dec, frame);
      if (rc == 0) {
        ++count;
        return true;
      }
      if (rc == AVERROR_EOF) {
        done = true;
        break;
      }
      if (rc != AVERROR(EAGAIN)) Fail("cannot decode frame " + std::to_string(count), rc);
      if (flushed) {  // EAGAIN after the flush packet: nothing more is coming
        done = true;
        break;
      }
      // Feed the next packet of our stream (or the flush packet at the end).
      while (true) {
        rc = av_read_frame(fmt, pkt);
        if (rc == AVERROR_EOF) {
          avcodec_send_packet(dec, nullptr);
          flushed = true;
          break;
        }
        if (rc < 0) Fail("read error", rc);
        if (pkt->stream_index != stream) {
          av_packet_unref(pkt);
          continue;
        }
        rc = avcodec_send_packet(dec, pkt);
        av_packet_unref(pkt);
        if (rc < 0 && rc != AVERROR(EAGAIN)) Fail("cannot decode packet", rc);
        break;
      }
    }
    return false;
  }
};

VideoReader::VideoReader(const std::string& path) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.path = path;
  QuietLibav();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw std::runtime_error(path + ": no such file");
  if (std::filesystem::is_directory(path, ec)) throw std::runtime_error(path + ": is a folder, not a video");
  int rc = avformat_open_input(&m.fmt, path.c_str(), nullptr, nullptr);
  if (rc < 0) m.Fail("not a video libavformat can read", rc);
  rc = avformat_find_stream_info(m.fmt, nullptr);
  if (rc < 0) m.Fail("not a video libavformat can read", rc);
  const AVCodec* codec = nullptr;
  m.stream = av_find_best_stream(m.fmt, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
  if (m.stream == AVERROR_DECODER_NOT_FOUND) m.Fail("no decoder for its video stream", 0);
  if (m.stream < 0) m.Fail("no video stream", 0);
  m.dec = avcodec_alloc_context3(codec);
  if (!m.dec) m.Fail("out of memory", 0);
  rc = avcodec_parameters_to_context(m.dec, m.fmt->streams[m.stream]->codecpar);
  if (rc < 0) m.Fail("bad stream parameters", rc);
  m.dec->thread_count = 1;  // frames in order, no frame-thread latency games
  rc = avcodec_open2(m.dec, codec, nullptr);
  if (rc < 0) m.Fail("cannot open the decoder", rc);
  m.frame = av_frame_alloc();
  m.pkt = av_packet_alloc();
  if (!m.frame || !m.pkt) m.Fail("out of memory", 0);
}

VideoReader::~VideoReader() = default;
int VideoReader::width() const { return impl_->dec->width; }
int VideoReader::height() const { return impl_->dec->height; }

bool VideoReader::NextI420(std::string* out) {
  Impl& m = *impl_;
  if (!m.Next()) return false;
  const AVFrame* f = m.frame;
  if (f->format != AV_PIX_FMT_YUV420P && f->format != AV_PIX_FMT_YUVJ420P) {
    const char* name = av_get_pix_fmt_name(static_cast<AVPixelFormat>(f->format));
    m.Fail(std::string("frames are ") + (name ? name : "?") + ", not 8-bit 4:2:0", 0);
  }
  const int w = f->width, h = f->height;
  out->resize(static_cast<size_t>(w) * h + 2 * static_cast<size_t>(w / 2) * (h / 2));
  char* dst = out->data();
  const int pw[3] = {w, w / 2, w / 2}, ph[3] = {h, h / 2, h / 2};
  for (int p = 0; p < 3; ++p)
    for (int y = 0; y < ph[p]; ++y, dst += pw[p])
      std::memcpy(dst, f->data[p] + static_cast<size_t>(y) * f->linesize[p], pw[p]);
  return true;
}

bool VideoReader::NextRgb(int width, int height, Frame* out, double* seconds) {
  Impl& m = *impl_;
  if (!m.Next()) return false;
  AVFrame* f = m.frame;
  bool full = f->color_range == AVCOL_RANGE_JPEG;
  const AVPixelFormat src_fmt = PlainFormat(static_cast<AVPixelFormat>(f->format), &full);
  m.sws = sws_getCachedContext(m.sws, f->width, f->height, src_fmt, width, height, AV_PIX_FMT_RGB24,
                               SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT | SWS_BITEXACT, nullptr, nullptr,
                               nullptr);
  if (!m.sws) m.Fail("cannot convert its frames to RGB", 0);
  // Honour the stream's matrix and range (libswscale assumes limited-range
  // BT.601 for plain YUV formats unless told).
  const int cs = f->colorspace == AVCOL_SPC_BT709 ? SWS_CS_ITU709 : SWS_CS_ITU601;
  sws_setColorspaceDetails(m.sws, sws_getCoefficients(cs), full ? 1 : 0, sws_getCoefficients(SWS_CS_DEFAULT), 1, 0,
                           1 << 16, 1 << 16);
  out->width = width;
  out->height = height;
  out->rgb.resize(static_cast<size_t>(width) * height * 3);
  uint8_t* dst[4] = {out->rgb.data(), nullptr, nullptr, nullptr};
  int dst_stride[4] = {width * 3, 0, 0, 0};
  sws_scale(m.sws, f->data, f->linesize, 0, f->height, dst, dst_stride);
  // Time from the stream start; without timestamps, the frame's position.
  const AVStream* st = m.fmt->streams[m.stream];
  const int64_t ts = f->best_effort_timestamp;
  if (ts != AV_NOPTS_VALUE) {
    if (m.first_ts == AV_NOPTS_VALUE) m.first_ts = ts;
    *seconds = static_cast<double>(ts - m.first_ts) * av_q2d(st->time_base);
  } else {
    const AVRational r = st->avg_frame_rate.num > 0 ? st->avg_frame_rate : AVRational{25, 1};
    *seconds = static_cast<double>(m.count - 1) / av_q2d(r);
  }
  return true;
}

DecodedHash HashDecodedI420(const std::string& path) {
  VideoReader r(path);
  cb::harness::Hasher h;
  DecodedHash out;
  std::string buf;
  while (r.NextI420(&buf)) {
    h.Update(buf);
    ++out.frames;
  }
  out.hex = h.Digest().Hex();
  return out;
}

// ---------------------------------------------------------------------------
// DecodedHaystack

DecodedHaystack::DecodedHaystack(const std::string& path, const cb::gen::videoniah::Params& p, size_t max_bytes)
    : path_(path) {
  VideoReader r(path);
  const size_t frame_bytes = static_cast<size_t>(p.width) * p.height * 3;
  Frame pending, next;
  double pending_t = 0, t = 0;
  bool have = false;
  int64_t slot = 0;  // next output frame, shown at slot / fps
  constexpr double kEps = 1e-6;
  auto emit_until = [&](double limit, bool inclusive) {
    while (inclusive ? slot <= static_cast<int64_t>(std::floor(limit * p.fps + kEps))
                     : static_cast<double>(slot) / p.fps < limit - kEps) {
      if ((static_cast<size_t>(slot) + 1) * frame_bytes > max_bytes)
        throw std::runtime_error(path + ": too long to hold in memory at " + std::to_string(p.width) + "x" +
                                 std::to_string(p.height) + ", " + std::to_string(p.fps) +
                                 " fps (shorten it, or lower --width/--height/--fps)");
      frames_.push_back(pending);
      ++slot;
    }
  };
  while (r.NextRgb(p.width, p.height, &next, &t)) {
    if (have) emit_until(t, /*inclusive=*/false);  // slots before this frame's time show the previous one
    std::swap(pending, next);
    pending_t = t;
    have = true;
  }
  if (!have) throw std::runtime_error(path + ": no frames could be decoded");
  emit_until(pending_t, /*inclusive=*/true);
}

std::string DecodedHaystack::ContentHash() const {
  cb::harness::Hasher h;
  for (const Frame& f : frames_) h.Update(std::string_view(reinterpret_cast<const char*>(f.rgb.data()), f.rgb.size()));
  return h.Digest().Hex();
}

}  // namespace cb::videoniah
