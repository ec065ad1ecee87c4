// File: harness/safetensors.cpp
// -----------------------------------------------------------------------------
// The safetensors reader and writer of harness/safetensors.h. Byte order is
// handled explicitly (bytes are assembled by shifts), so the code does not
// depend on the host being little-endian.
#include "harness/safetensors.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "harness/atomic_file.h"

namespace cb::harness {
namespace {

using nlohmann::json;

// Control characters (a tensor name may hold "\n") would break the one-line
// rule of DESIGN §8, so they are written as \xNN.
std::string OneLine(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

[[noreturn]] void Fail(const std::string& path, const std::string& what) {
  throw std::runtime_error(OneLine("safetensors '" + path + "': " + what));
}

uint64_t LoadU64Le(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// A JSON value as a non-negative integer that fits in u64, or false.
bool AsU64(const json& v, uint64_t* out) {
  if (v.is_number_unsigned()) {
    *out = v.get<uint64_t>();
    return true;
  }
  if (v.is_number_integer() && v.get<int64_t>() >= 0) {
    *out = static_cast<uint64_t>(v.get<int64_t>());
    return true;
  }
  return false;
}

// |x| (finite, >= 0) rounded to a binary format with `p` stored mantissa bits
// and minimum normal exponent `emin`, to nearest, ties to even, with the
// exponent unbounded above (the caller maps overflow to inf). Every step is
// exact in double: scaling by powers of two and splitting m < 2^(p+1) into
// integer and fraction parts.
double RoundToBinary(double a, int p, int emin) {
  if (a == 0) return 0;
  int e2 = 0;
  std::frexp(a, &e2);           // a in [2^(e2-1), 2^e2)
  const int quantum_exp = std::max(e2 - 1, emin) - p;
  const double m = std::ldexp(a, -quantum_exp);
  double whole = std::floor(m);
  const double frac = m - whole;
  if (frac > 0.5 || (frac == 0.5 && std::fmod(whole, 2.0) != 0)) whole += 1;
  return std::ldexp(whole, quantum_exp);
}

}  // namespace

int SafetensorsDtypeSize(const std::string& dtype) {
  static const std::map<std::string, int> kSizes = {
      {"BOOL", 1}, {"U8", 1},  {"I8", 1},  {"F8_E4M3", 1}, {"F8_E5M2", 1},
      {"U16", 2},  {"I16", 2}, {"F16", 2}, {"BF16", 2},    {"U32", 4},
      {"I32", 4},  {"F32", 4}, {"U64", 8}, {"I64", 8},     {"F64", 8}};
  const auto it = kSizes.find(dtype);
  return it == kSizes.end() ? 0 : it->second;
}

double HalfBitsToDouble(uint16_t bits) {
  const int exp = (bits >> 10) & 0x1f;
  const int mant = bits & 0x3ff;
  double v;
  if (exp == 0) {
    v = std::ldexp(static_cast<double>(mant), -24);  // subnormal (or zero)
  } else if (exp == 31) {
    v = mant == 0 ? std::numeric_limits<double>::infinity()
                  : std::numeric_limits<double>::quiet_NaN();
  } else {
    v = std::ldexp(static_cast<double>(mant + 1024), exp - 25);
  }
  return (bits & 0x8000) ? -v : v;
}

double Bf16BitsToDouble(uint16_t bits) {
  // bfloat16 is the top half of a binary32.
  const uint32_t u = static_cast<uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof f);
  return static_cast<double>(f);
}

uint16_t DoubleToHalfBits(double x) {
  const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  if (std::isnan(x)) return sign | 0x7e00;
  const double r = std::isinf(x) ? x : RoundToBinary(std::fabs(x), 10, -14);
  if (std::isinf(r) || r > 65504.0) return sign | 0x7c00;
  if (r < std::ldexp(1.0, -14)) {
    // Subnormal: r = k * 2^-24 with k < 1024.
    return sign | static_cast<uint16_t>(std::ldexp(r, 24));
  }
  int e2 = 0;
  std::frexp(r, &e2);
  const int e = e2 - 1;  // r in [2^e, 2^(e+1)), -14 <= e <= 15
  const auto mant = static_cast<uint16_t>(std::ldexp(r, 10 - e) - 1024);
  return sign | static_cast<uint16_t>((e + 15) << 10) | mant;
}

uint16_t DoubleToBf16Bits(double x) {
  const uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  if (std::isnan(x)) return sign | 0x7fc0;
  const double max_finite = std::ldexp(2.0 - std::ldexp(1.0, -7), 127);
  const double r = std::isinf(x) ? x : RoundToBinary(std::fabs(x), 7, -126);
  if (std::isinf(r) || r > max_finite) return sign | 0x7f80;
  // r is a bfloat16 value, hence exactly a float whose low 16 bits are zero.
  const float f = static_cast<float>(r);
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return sign | static_cast<uint16_t>(u >> 16);
}

SafetensorsFile SafetensorsFile::Open(const std::string& path) {
  SafetensorsFile f;
  f.path_ = path;
  std::ifstream in(path, std::ios::binary);
  if (!in) Fail(path, "cannot open for reading");
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0) Fail(path, "cannot determine the file size");
  f.file_size_ = static_cast<uint64_t>(size);
  if (f.file_size_ < 8) {
    Fail(path, "file is " + std::to_string(f.file_size_) +
                   " bytes, shorter than the 8-byte header length");
  }
  in.seekg(0);
  unsigned char prefix[8];
  if (!in.read(reinterpret_cast<char*>(prefix), 8)) Fail(path, "cannot read the header length");
  const uint64_t n = LoadU64Le(prefix);
  if (n > kSafetensorsMaxHeaderBytes) {
    Fail(path, "header length " + std::to_string(n) + " exceeds the limit of " +
                   std::to_string(kSafetensorsMaxHeaderBytes) + " bytes (corrupt file?)");
  }
  if (n > f.file_size_ - 8) {
    Fail(path, "header length " + std::to_string(n) + " is past the end of the file (" +
                   std::to_string(f.file_size_) + " bytes; truncated?)");
  }
  f.data_start_ = 8 + n;
  const uint64_t buffer_size = f.file_size_ - f.data_start_;
  std::string text(static_cast<size_t>(n), '\0');
  if (n > 0 && !in.read(text.data(), static_cast<std::streamsize>(n))) {
    Fail(path, "cannot read the " + std::to_string(n) + "-byte header");
  }

  json header;
  try {
    header = json::parse(text);
  } catch (const json::parse_error& e) {
    Fail(path, "header is not valid JSON (at byte " + std::to_string(e.byte) + " of " +
                   std::to_string(n) + ")");
  } catch (const json::exception&) {
    Fail(path, "header is not valid JSON");
  }
  if (!header.is_object()) Fail(path, "header is not a JSON object");

  for (const auto& [key, entry] : header.items()) {
    if (key == "__metadata__") {
      if (!entry.is_object()) Fail(path, "\"__metadata__\" is not an object");
      for (const auto& [mk, mv] : entry.items()) {
        if (!mv.is_string()) Fail(path, "\"__metadata__\" entry '" + mk + "' is not a string");
        f.metadata_[mk] = mv.get<std::string>();
      }
      continue;
    }
    const std::string where = "tensor '" + key + "': ";
    if (!entry.is_object()) Fail(path, where + "entry is not an object");
    SafetensorsTensor t;
    t.name = key;

    const auto dt = entry.find("dtype");
    if (dt == entry.end()) Fail(path, where + "missing \"dtype\"");
    if (!dt->is_string()) Fail(path, where + "\"dtype\" is not a string");
    t.dtype = dt->get<std::string>();
    const int elem_size = SafetensorsDtypeSize(t.dtype);
    if (elem_size == 0) Fail(path, where + "unknown dtype '" + t.dtype + "'");

    const auto sh = entry.find("shape");
    if (sh == entry.end()) Fail(path, where + "missing \"shape\"");
    if (!sh->is_array()) Fail(path, where + "\"shape\" is not an array");
    uint64_t count = 1;
    bool overflow = false;
    for (const json& d : *sh) {
      uint64_t dim = 0;
      if (!AsU64(d, &dim)) {
        Fail(path, where + "shape entry " + std::to_string(t.shape.size()) +
                       " is not a non-negative integer");
      }
      if (dim > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        Fail(path, where + "shape entry " + std::to_string(dim) + " is too large");
      }
      t.shape.push_back(static_cast<int64_t>(dim));
      if (dim != 0 && count > std::numeric_limits<uint64_t>::max() / dim) overflow = true;
      count *= dim;  // wraps only when overflow is already set
    }
    // A zero dimension makes the product 0 whatever overflowed before it.
    if (std::find(t.shape.begin(), t.shape.end(), 0) != t.shape.end()) {
      overflow = false;
      count = 0;
    }
    const uint64_t esz = static_cast<uint64_t>(elem_size);
    if (overflow || count > std::numeric_limits<uint64_t>::max() / esz) {
      Fail(path, where + "shape's byte size overflows 64 bits");
    }
    const uint64_t nbytes = count * esz;

    const auto off = entry.find("data_offsets");
    if (off == entry.end()) Fail(path, where + "missing \"data_offsets\"");
    if (!off->is_array() || off->size() != 2) {
      Fail(path, where + "\"data_offsets\" is not an array of two integers");
    }
    if (!AsU64((*off)[0], &t.begin) || !AsU64((*off)[1], &t.end)) {
      Fail(path, where + "\"data_offsets\" are not non-negative integers");
    }
    if (t.begin > t.end) {
      Fail(path, where + "data_offsets begin " + std::to_string(t.begin) + " > end " +
                     std::to_string(t.end));
    }
    if (t.end > buffer_size) {
      Fail(path, where + "data_offsets end " + std::to_string(t.end) +
                     " is past the end of the byte buffer (" + std::to_string(buffer_size) +
                     " bytes; truncated?)");
    }
    if (t.end - t.begin != nbytes) {
      Fail(path, where + "holds " + std::to_string(t.end - t.begin) + " bytes but shape x " +
                     t.dtype + " needs " + std::to_string(nbytes));
    }
    f.tensors_.push_back(std::move(t));
  }
  // header.items() iterates a std::map, so tensors_ is already sorted by name.

  std::vector<const SafetensorsTensor*> by_offset;
  for (const auto& t : f.tensors_) {
    if (t.end > t.begin) by_offset.push_back(&t);
  }
  std::sort(by_offset.begin(), by_offset.end(),
            [](const SafetensorsTensor* a, const SafetensorsTensor* b) { return a->begin < b->begin; });
  for (size_t i = 1; i < by_offset.size(); ++i) {
    if (by_offset[i]->begin < by_offset[i - 1]->end) {
      Fail(path, "tensors '" + by_offset[i - 1]->name + "' and '" + by_offset[i]->name +
                     "' overlap in the byte buffer");
    }
  }
  return f;
}

const SafetensorsTensor* SafetensorsFile::Find(const std::string& name) const {
  const auto it = std::lower_bound(
      tensors_.begin(), tensors_.end(), name,
      [](const SafetensorsTensor& t, const std::string& n) { return t.name < n; });
  return (it != tensors_.end() && it->name == name) ? &*it : nullptr;
}

std::vector<double> SafetensorsFile::ReadAsDouble(const std::string& name) const {
  const SafetensorsTensor* t = Find(name);
  if (t == nullptr) Fail(path_, "no tensor named '" + name + "'");
  const int esz = SafetensorsDtypeSize(t->dtype);
  if (t->dtype != "F64" && t->dtype != "F32" && t->dtype != "F16" && t->dtype != "BF16") {
    Fail(path_, "tensor '" + name + "' has dtype " + t->dtype +
                    ", not readable as floating point (F64, F32, F16, BF16)");
  }
  const uint64_t nbytes = t->end - t->begin;
  std::vector<unsigned char> bytes(static_cast<size_t>(nbytes));
  if (nbytes > 0) {
    std::ifstream in(path_, std::ios::binary);
    if (!in) Fail(path_, "cannot open for reading");
    in.seekg(static_cast<std::streamoff>(data_start_ + t->begin));
    if (!in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(nbytes))) {
      Fail(path_, "tensor '" + name + "': short read (file changed since Open?)");
    }
  }
  const size_t count = static_cast<size_t>(nbytes) / static_cast<size_t>(esz);
  std::vector<double> out(count);
  for (size_t i = 0; i < count; ++i) {
    const unsigned char* p = bytes.data() + i * static_cast<size_t>(esz);
    if (esz == 8) {
      const uint64_t u = LoadU64Le(p);
      std::memcpy(&out[i], &u, sizeof u);
    } else if (esz == 4) {
      const uint32_t u = static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 |
                         static_cast<uint32_t>(p[2]) << 16 | static_cast<uint32_t>(p[3]) << 24;
      float fl;
      std::memcpy(&fl, &u, sizeof fl);
      out[i] = static_cast<double>(fl);
    } else {
      const auto u = static_cast<uint16_t>(p[0] | p[1] << 8);
      out[i] = t->dtype == "F16" ? HalfBitsToDouble(u) : Bf16BitsToDouble(u);
    }
  }
  return out;
}

void WriteSafetensors(const std::string& path,
                      const std::vector<std::pair<std::string, SafetensorsWriteTensor>>& tensors,
                      const std::map<std::string, std::string>& metadata) {
  // Validate everything before touching the disk.
  json header = json::object();
  uint64_t offset = 0;
  for (const auto& [name, t] : tensors) {
    const std::string where = "WriteSafetensors '" + path + "': tensor '" + name + "': ";
    if (name.empty() || name == "__metadata__") {
      throw std::invalid_argument(OneLine(where + "invalid name"));
    }
    if (header.contains(name)) throw std::invalid_argument(OneLine(where + "duplicate name"));
    if (t.dtype != "F64" && t.dtype != "F32" && t.dtype != "F16" && t.dtype != "BF16") {
      throw std::invalid_argument(OneLine(where + "dtype '" + t.dtype +
                                          "' is not writable (F64, F32, F16, BF16)"));
    }
    uint64_t count = 1;
    for (int64_t d : t.shape) {
      if (d < 0) throw std::invalid_argument(OneLine(where + "negative shape entry"));
      count *= static_cast<uint64_t>(d);
    }
    if (count != t.values.size()) {
      throw std::invalid_argument(OneLine(where + std::to_string(t.values.size()) +
                                          " values for a shape of " + std::to_string(count) +
                                          " elements"));
    }
    const uint64_t nbytes = count * static_cast<uint64_t>(SafetensorsDtypeSize(t.dtype));
    header[name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {offset, offset + nbytes}}};
    offset += nbytes;
  }
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::string text;
  try {
    text = header.dump();
  } catch (const json::exception&) {
    throw std::invalid_argument(
        OneLine("WriteSafetensors '" + path + "': a name or metadata string is not valid UTF-8"));
  }
  text.append((8 - text.size() % 8) % 8, ' ');

  std::string bytes;
  bytes.reserve(8 + text.size() + static_cast<size_t>(offset));
  const uint64_t n = text.size();
  for (int i = 0; i < 8; ++i) bytes += static_cast<char>((n >> (8 * i)) & 0xff);
  bytes += text;
  auto put = [&bytes](uint64_t u, int size) {
    for (int i = 0; i < size; ++i) bytes += static_cast<char>((u >> (8 * i)) & 0xff);
  };
  for (const auto& [name, t] : tensors) {
    for (double v : t.values) {
      if (t.dtype == "F64") {
        uint64_t u;
        std::memcpy(&u, &v, sizeof u);
        put(u, 8);
      } else if (t.dtype == "F32") {
        const float fl = static_cast<float>(v);  // IEEE round to nearest even
        uint32_t u;
        std::memcpy(&u, &fl, sizeof u);
        put(u, 4);
      } else if (t.dtype == "F16") {
        put(DoubleToHalfBits(v), 2);
      } else {
        put(DoubleToBf16Bits(v), 2);
      }
    }
  }

  // Through a temporary file with a per-process name (harness/atomic_file.h).
  try {
    WriteFileAtomically(path, bytes);
  } catch (const std::runtime_error& e) {
    Fail(path, e.what());
  }
}

}  // namespace cb::harness
