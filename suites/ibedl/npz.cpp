// File: suites/ibedl/npz.cpp
// ZIP (stored / deflate, ZIP64) and NPY parsing over zlib (npz.h).
#include "suites/ibedl/npz.h"

#include <zlib.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace cb::ibedl {

namespace {

[[noreturn]] void Fail(const std::string& what, const std::string& why) {
  throw std::runtime_error(what + ": " + why);
}

uint64_t Le(const std::string& s, size_t at, int bytes, const std::string& what) {
  if (at + bytes > s.size()) Fail(what, "truncated");
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(s[at + i]);
  return v;
}

std::string Inflate(const std::string& in, size_t out_size, const std::string& what) {
  std::string out(out_size, '\0');
  z_stream z{};
  if (inflateInit2(&z, -MAX_WBITS) != Z_OK) Fail(what, "zlib inflateInit2 failed");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = inflate(&z, Z_FINISH);
  const size_t produced = out.size() - z.avail_out;
  inflateEnd(&z);
  if (rc != Z_STREAM_END || produced != out_size) Fail(what, "corrupt deflate data");
  return out;
}

// The value of `key` in a Python dict literal header, e.g. "'descr': '<f2'".
std::string DictValue(const std::string& header, const std::string& key, const std::string& what) {
  const size_t k = header.find("'" + key + "'");
  if (k == std::string::npos) Fail(what, "npy header lacks '" + key + "'");
  size_t v = header.find(':', k);
  if (v == std::string::npos) Fail(what, "bad npy header");
  ++v;
  while (v < header.size() && header[v] == ' ') ++v;
  if (v >= header.size()) Fail(what, "bad npy header");
  if (header[v] == '\'') {
    const size_t e = header.find('\'', v + 1);
    if (e == std::string::npos) Fail(what, "bad npy header");
    return header.substr(v + 1, e - v - 1);
  }
  if (header[v] == '(') {
    const size_t e = header.find(')', v);
    if (e == std::string::npos) Fail(what, "bad npy header");
    return header.substr(v, e - v + 1);
  }
  size_t e = v;
  while (e < header.size() && header[e] != ',' && header[e] != '}') ++e;
  return header.substr(v, e - v);
}

}  // namespace

double DoubleFromHalf(uint16_t h) {
  const int sign = h >> 15, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
  double v;
  if (exp == 0) v = std::ldexp(double(frac), -24);
  else if (exp == 31) v = frac ? std::nan("") : INFINITY;
  else v = std::ldexp(double(frac | 0x400), exp - 25);
  return sign ? -v : v;
}

NpyArray ParseNpy(const std::string& s, const std::string& what) {
  if (s.size() < 10 || s.compare(0, 6, "\x93NUMPY") != 0) Fail(what, "not an .npy payload (bad magic)");
  const int major = static_cast<unsigned char>(s[6]);
  if (major < 1 || major > 3) Fail(what, "unsupported .npy version " + std::to_string(major));
  const size_t hlen = major == 1 ? Le(s, 8, 2, what) : Le(s, 8, 4, what);
  const size_t start = major == 1 ? 10 : 12;
  if (start + hlen > s.size()) Fail(what, "truncated npy header");
  const std::string header = s.substr(start, hlen);
  NpyArray a;
  a.descr = DictValue(header, "descr", what);
  if (DictValue(header, "fortran_order", what).find("False") == std::string::npos)
    Fail(what, "fortran_order arrays are not supported");
  const std::string shape = DictValue(header, "shape", what);
  if (shape.empty() || shape[0] != '(') Fail(what, "npy shape '" + shape + "' is not a tuple");
  int64_t count = 1;
  {
    std::string digits;
    for (char c : shape.substr(1)) {
      if (c >= '0' && c <= '9') {
        digits += c;
      } else if (!digits.empty()) {
        // Each element takes at least a byte, so no valid shape has more
        // elements than the file has bytes (checked before multiplying).
        const int64_t dim = digits.size() > 12 ? -1 : std::stoll(digits);
        if (dim < 0 || (dim > 0 && count > int64_t(s.size()) / dim))
          Fail(what, "shape entry " + digits + " is larger than the file");
        a.shape.push_back(dim);
        count *= dim;
        digits.clear();
      }
    }
  }
  if (a.descr.size() < 3 || (a.descr[0] != '<' && a.descr[0] != '|'))
    Fail(what, "unsupported dtype '" + a.descr + "' (little-endian only)");
  const char kind = a.descr[1];
  const int width = std::atoi(a.descr.c_str() + 2);
  const bool ok = (kind == 'f' && (width == 2 || width == 4 || width == 8)) ||
                  ((kind == 'i' || kind == 'u') && (width == 1 || width == 2 || width == 4 || width == 8)) ||
                  (kind == 'b' && width == 1);
  if (!ok) Fail(what, "unsupported dtype '" + a.descr + "'");
  const size_t data = start + hlen;
  if (data + size_t(count) * width != s.size())
    Fail(what, "data size " + std::to_string(s.size() - data) + " != shape x itemsize");
  a.values.resize(count);
  for (int64_t i = 0; i < count; ++i) {
    const char* p = s.data() + data + size_t(i) * width;
    if (kind == 'f' && width == 2) {
      uint16_t h;
      std::memcpy(&h, p, 2);
      a.values[i] = DoubleFromHalf(h);
    } else if (kind == 'f' && width == 4) {
      float f;
      std::memcpy(&f, p, 4);
      a.values[i] = f;
    } else if (kind == 'f') {
      std::memcpy(&a.values[i], p, 8);
    } else {
      const uint64_t u = Le(s, data + size_t(i) * width, width, what);
      if (kind == 'i' && width < 8 && (u >> (8 * width - 1)))
        a.values[i] = double(int64_t(u) - (int64_t(1) << (8 * width)));
      else
        a.values[i] = kind == 'i' ? double(int64_t(u)) : double(u);
    }
  }
  return a;
}

std::map<std::string, NpyArray> ReadNpz(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) Fail(path, "cannot open");
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string z = buf.str();
  // End of central directory: the last signature within 64 KiB + 22 bytes of the end.
  if (z.size() < 22) Fail(path, "not a zip archive (too short)");
  size_t eocd = std::string::npos;
  for (size_t i = z.size() - 22 + 1; i-- > (z.size() > 65557 ? z.size() - 65557 : 0);)
    if (Le(z, i, 4, path) == 0x06054b50) {
      eocd = i;
      break;
    }
  if (eocd == std::string::npos) Fail(path, "not a zip archive (no end of central directory)");
  uint64_t entries = Le(z, eocd + 10, 2, path), cd_offset = Le(z, eocd + 16, 4, path);
  if ((entries == 0xFFFF || cd_offset == 0xFFFFFFFF) && eocd >= 20 && Le(z, eocd - 20, 4, path) == 0x07064b50) {
    const uint64_t z64 = Le(z, eocd - 20 + 8, 8, path);
    if (Le(z, z64, 4, path) != 0x06064b50) Fail(path, "bad zip64 end of central directory");
    entries = Le(z, z64 + 32, 8, path);
    cd_offset = Le(z, z64 + 48, 8, path);
  }
  std::map<std::string, NpyArray> out;
  size_t at = cd_offset;
  for (uint64_t e = 0; e < entries; ++e) {
    if (Le(z, at, 4, path) != 0x02014b50) Fail(path, "bad central directory entry");
    const int method = int(Le(z, at + 10, 2, path));
    const uint32_t crc = uint32_t(Le(z, at + 16, 4, path));
    uint64_t csize = Le(z, at + 20, 4, path), usize = Le(z, at + 24, 4, path);
    const size_t nlen = Le(z, at + 28, 2, path), xlen = Le(z, at + 30, 2, path), clen = Le(z, at + 32, 2, path);
    uint64_t local = Le(z, at + 42, 4, path);
    const std::string name = z.substr(at + 46, nlen);
    // ZIP64 extra: the 0xFFFFFFFF fields, in the order usize, csize, offset.
    for (size_t x = at + 46 + nlen; x + 4 <= at + 46 + nlen + xlen;) {
      const uint64_t tag = Le(z, x, 2, path), len = Le(z, x + 2, 2, path);
      if (tag == 0x0001) {
        size_t f = x + 4;
        if (usize == 0xFFFFFFFF) usize = Le(z, f, 8, path), f += 8;
        if (csize == 0xFFFFFFFF) csize = Le(z, f, 8, path), f += 8;
        if (local == 0xFFFFFFFF) local = Le(z, f, 8, path), f += 8;
      }
      x += 4 + len;
    }
    at += 46 + nlen + xlen + clen;
    const std::string what = path + ":" + name;
    if (Le(z, local, 4, what) != 0x04034b50) Fail(what, "bad local file header");
    const size_t data = local + 30 + Le(z, local + 26, 2, what) + Le(z, local + 28, 2, what);
    if (data + csize > z.size()) Fail(what, "truncated member");
    const std::string raw = z.substr(data, csize);
    std::string bytes;
    if (method == 0) bytes = raw;
    else if (method == 8) bytes = Inflate(raw, usize, what);
    else Fail(what, "unsupported compression method " + std::to_string(method));
    if (bytes.size() != usize) Fail(what, "size mismatch");
    if (uint32_t(crc32(0L, reinterpret_cast<const Bytef*>(bytes.data()), uInt(bytes.size()))) != crc)
      Fail(what, "CRC-32 mismatch");
    std::string key = name;
    if (key.size() > 4 && key.compare(key.size() - 4, 4, ".npy") == 0) key.resize(key.size() - 4);
    out[key] = ParseNpy(bytes, what);
  }
  return out;
}

}  // namespace cb::ibedl
