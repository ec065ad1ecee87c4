// File: suites/medrega/png.cpp
// Greyscale PNG with stored deflate blocks; see png.h.
#include "suites/medrega/png.h"

#include <algorithm>
#include <array>
#include <stdexcept>

namespace cb::medrega {
namespace {

void Be32(std::string* s, uint32_t v) {
  for (int k = 3; k >= 0; --k) s->push_back(static_cast<char>((v >> (8 * k)) & 0xff));
}

void Chunk(std::string* out, const char* type, const std::string& data) {
  Be32(out, static_cast<uint32_t>(data.size()));
  std::string td = std::string(type, 4) + data;
  out->append(td);
  Be32(out, Crc32(td));
}

}  // namespace

uint32_t Crc32(const std::string& bytes) {
  static const std::array<uint32_t, 256> table = [] {
    std::array<uint32_t, 256> t{};
    for (uint32_t n = 0; n < 256; ++n) {
      uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  uint32_t c = 0xffffffffu;
  for (unsigned char b : bytes) c = table[(c ^ b) & 0xff] ^ (c >> 8);
  return c ^ 0xffffffffu;
}

std::string EncodeGreyPng(const std::vector<uint8_t>& pixels, int width, int height) {
  if (width <= 0 || height <= 0 || pixels.size() != static_cast<size_t>(width) * height)
    throw std::invalid_argument("EncodeGreyPng: pixel count does not match width x height");
  std::string raw;  // each row: filter byte 0, then the row
  raw.reserve(static_cast<size_t>(height) * (width + 1));
  for (int y = 0; y < height; ++y) {
    raw.push_back(0);
    raw.append(reinterpret_cast<const char*>(pixels.data()) + static_cast<size_t>(y) * width, width);
  }
  std::string z = {'\x78', '\x01'};  // zlib header, no compression preset
  for (size_t pos = 0; pos < raw.size() || pos == 0;) {
    const size_t n = std::min<size_t>(65535, raw.size() - pos);
    const bool last = pos + n >= raw.size();
    z.push_back(last ? 1 : 0);
    z.push_back(static_cast<char>(n & 0xff));
    z.push_back(static_cast<char>(n >> 8));
    z.push_back(static_cast<char>(~n & 0xff));
    z.push_back(static_cast<char>((~n >> 8) & 0xff));
    z.append(raw, pos, n);
    pos += n;
    if (last) break;
  }
  uint32_t a = 1, b = 0;  // Adler-32 of the uncompressed data
  for (unsigned char c : raw) {
    a = (a + c) % 65521;
    b = (b + a) % 65521;
  }
  Be32(&z, (b << 16) | a);
  std::string out = "\x89PNG\r\n\x1a\n";
  std::string ihdr;
  Be32(&ihdr, static_cast<uint32_t>(width));
  Be32(&ihdr, static_cast<uint32_t>(height));
  ihdr += std::string("\x08\x00\x00\x00\x00", 5);  // 8-bit, greyscale, deflate, filter 0, no interlace
  Chunk(&out, "IHDR", ihdr);
  Chunk(&out, "IDAT", z);
  Chunk(&out, "IEND", "");
  return out;
}

}  // namespace cb::medrega
