// File: suites/eagle/png.cpp
// PNG encoding; see png.h. One IDAT chunk, filter 0 on every row, zlib level 6.
#include "suites/eagle/png.h"

#include <stdexcept>

#include <zlib.h>

namespace cb::eagle {
namespace {
void Be32(std::string* s, uint32_t v) {
  for (int k = 24; k >= 0; k -= 8) s->push_back(static_cast<char>((v >> k) & 255));
}
void Chunk(std::string* png, const char* type, const std::string& data) {
  Be32(png, static_cast<uint32_t>(data.size()));
  const std::string td = std::string(type, 4) + data;
  png->append(td);
  Be32(png, static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(td.data()), static_cast<uInt>(td.size()))));
}
}  // namespace

std::string EncodePng(const cb::gen::docvqa::Image& im) {
  std::string raw;  // each row: filter byte 0, then RGB
  raw.reserve(static_cast<size_t>(im.height) * (static_cast<size_t>(im.width) * 3 + 1));
  for (int y = 0; y < im.height; ++y) {
    raw.push_back(0);
    raw.append(reinterpret_cast<const char*>(&im.rgb[static_cast<size_t>(y) * im.width * 3]),
               static_cast<size_t>(im.width) * 3);
  }
  uLongf zlen = compressBound(static_cast<uLong>(raw.size()));
  std::string z(zlen, '\0');
  if (compress2(reinterpret_cast<Bytef*>(z.data()), &zlen, reinterpret_cast<const Bytef*>(raw.data()),
                static_cast<uLong>(raw.size()), 6) != Z_OK)
    throw std::runtime_error("png: zlib compression failed");
  z.resize(zlen);
  std::string png = "\x89PNG\r\n\x1a\n";
  std::string ihdr;
  Be32(&ihdr, static_cast<uint32_t>(im.width));
  Be32(&ihdr, static_cast<uint32_t>(im.height));
  ihdr += std::string("\x08\x02\x00\x00\x00", 5);  // 8-bit, RGB, deflate, no filter, no interlace
  Chunk(&png, "IHDR", ihdr);
  Chunk(&png, "IDAT", z);
  Chunk(&png, "IEND", "");
  return png;
}

}  // namespace cb::eagle
