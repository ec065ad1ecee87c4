// File: suites/videoniah/media.cpp
// Y4M and PNG encodings of VideoNIAH frames; see media.h.
#include "suites/videoniah/media.h"

#include <stdexcept>

#include <zlib.h>

namespace cb::videoniah {

using cb::gen::videoniah::Frame;

void RgbToI420(const Frame& fr, std::string* out) {
  const int w = fr.width, h = fr.height;
  out->resize(static_cast<size_t>(w) * h * 3 / 2);
  uint8_t* y = reinterpret_cast<uint8_t*>(out->data());
  uint8_t* u = y + static_cast<size_t>(w) * h;
  uint8_t* v = u + static_cast<size_t>(w / 2) * (h / 2);
  const uint8_t* p = fr.rgb.data();
  for (size_t i = 0; i < static_cast<size_t>(w) * h; ++i, p += 3)  // Y = .299R + .587G + .114B (Q16)
    y[i] = static_cast<uint8_t>((19595 * p[0] + 38470 * p[1] + 7471 * p[2] + 32768) >> 16);
  for (int r = 0; r < h / 2; ++r) {
    for (int c = 0; c < w / 2; ++c) {
      int sr = 0, sg = 0, sb = 0;  // 2x2 average
      for (int dy = 0; dy < 2; ++dy)
        for (int dx = 0; dx < 2; ++dx) {
          const uint8_t* q = &fr.rgb[(static_cast<size_t>(2 * r + dy) * w + 2 * c + dx) * 3];
          sr += q[0], sg += q[1], sb += q[2];
        }
      // Cb = 128 - .168736R - .331264G + .5B; Cr = 128 + .5R - .418688G - .081312B (Q16, sums of 4)
      const int cb = (-11059 * sr - 21709 * sg + 32768 * sb) / 4;
      const int cr = (32768 * sr - 27439 * sg - 5329 * sb) / 4;
      auto clamp = [](int x) { return static_cast<uint8_t>(x < 0 ? 0 : x > 255 ? 255 : x); };
      u[static_cast<size_t>(r) * (w / 2) + c] = clamp(128 + ((cb + 32768) >> 16));
      v[static_cast<size_t>(r) * (w / 2) + c] = clamp(128 + ((cr + 32768) >> 16));
    }
  }
}

Y4mWriter::Y4mWriter(const std::string& path, int width, int height, int fps) : path_(path), w_(width), h_(height) {
  f_ = std::fopen(path.c_str(), "wb");
  if (!f_) throw std::runtime_error("cannot write " + path);
  const std::string header = "YUV4MPEG2 W" + std::to_string(width) + " H" + std::to_string(height) + " F" +
                             std::to_string(fps) + ":1 Ip A1:1 C420jpeg\n";
  std::fwrite(header.data(), 1, header.size(), f_);
}

Y4mWriter::~Y4mWriter() {
  if (f_) std::fclose(f_);
}

void Y4mWriter::Write(const Frame& frame) {
  if (frame.width != w_ || frame.height != h_) throw std::invalid_argument("y4m: frame size changed");
  RgbToI420(frame, &buf_);
  std::fwrite("FRAME\n", 1, 6, f_);
  std::fwrite(buf_.data(), 1, buf_.size(), f_);
}

void Y4mWriter::Close() {
  if (!f_) return;
  const bool bad = std::ferror(f_) != 0;
  const int rc = std::fclose(f_);
  f_ = nullptr;
  if (bad || rc != 0) throw std::runtime_error("write error on " + path_);
}

namespace {
void Chunk(std::string* png, const char* type, const std::string& data) {
  auto be32 = [&](uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) png->push_back(static_cast<char>((v >> s) & 255));
  };
  be32(static_cast<uint32_t>(data.size()));
  const std::string td = std::string(type, 4) + data;
  png->append(td);
  be32(static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(td.data()), static_cast<uInt>(td.size()))));
}
}  // namespace

std::string EncodePng(const Frame& fr) {
  std::string raw;  // each row: filter byte 0, then RGB
  raw.reserve(static_cast<size_t>(fr.height) * (fr.width * 3 + 1));
  for (int y = 0; y < fr.height; ++y) {
    raw.push_back(0);
    raw.append(reinterpret_cast<const char*>(&fr.rgb[static_cast<size_t>(y) * fr.width * 3]),
               static_cast<size_t>(fr.width) * 3);
  }
  uLongf zlen = compressBound(static_cast<uLong>(raw.size()));
  std::string z(zlen, '\0');
  if (compress2(reinterpret_cast<Bytef*>(z.data()), &zlen, reinterpret_cast<const Bytef*>(raw.data()),
                static_cast<uLong>(raw.size()), 1) != Z_OK)
    throw std::runtime_error("png: zlib compression failed");
  z.resize(zlen);
  std::string png = "\x89PNG\r\n\x1a\n";
  std::string ihdr;
  for (uint32_t v : {static_cast<uint32_t>(fr.width), static_cast<uint32_t>(fr.height)})
    for (int s = 24; s >= 0; s -= 8) ihdr.push_back(static_cast<char>((v >> s) & 255));
  ihdr += std::string("\x08\x02\x00\x00\x00", 5);  // 8-bit, RGB, deflate, no filter, no interlace
  Chunk(&png, "IHDR", ihdr);
  Chunk(&png, "IDAT", z);
  Chunk(&png, "IEND", "");
  return png;
}

}  // namespace cb::videoniah
