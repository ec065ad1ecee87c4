// File: suites/ibedl/npz_writer_testutil.h
// -----------------------------------------------------------------------------
// Tests only: writes .npy payloads and .npz archives the way numpy 1.x/2.x
// does for np.savez / np.savez_compressed (NPY 1.0 header padded to 64
// bytes; Python zipfile members opened with force_zip64=True, so each local
// header has 0xFFFFFFFF sizes and a ZIP64 extra field, the central directory
// the 32-bit sizes), so the reader is tested on the authors' layout without
// numpy here.
#ifndef CB_SUITES_IBEDL_NPZ_WRITER_TESTUTIL_H_
#define CB_SUITES_IBEDL_NPZ_WRITER_TESTUTIL_H_

#include <zlib.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace cb::ibedl::testutil {

inline void Put(std::string& s, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) s += char((v >> (8 * i)) & 0xff);
}

// NPY 1.0: magic, version, header padded with spaces to a multiple of 64 bytes (newline last).
inline std::string Npy(const std::string& descr, const std::string& shape, const std::string& data) {
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  const size_t total = 10 + header.size() + 1;
  header += std::string((64 - total % 64) % 64, ' ') + "\n";
  std::string s = "\x93NUMPY";
  s += char(1);
  s += char(0);
  Put(s, header.size(), 2);
  return s + header + data;
}

inline std::string Deflate(const std::string& in) {
  z_stream z{};
  deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  std::string out(deflateBound(&z, uLong(in.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = uInt(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = uInt(out.size());
  deflate(&z, Z_FINISH);
  out.resize(out.size() - z.avail_out);
  deflateEnd(&z);
  return out;
}

// A zip as Python's zipfile writes np.savez_compressed's members.
inline std::string Zip(const std::vector<std::pair<std::string, std::string>>& members, bool deflate) {
  std::string zip, cd;
  for (const auto& [name, data] : members) {
    const std::string body = deflate ? Deflate(data) : data;
    const uint32_t crc = uint32_t(crc32(0L, reinterpret_cast<const Bytef*>(data.data()), uInt(data.size())));
    const uint64_t offset = zip.size();
    // Local header with ZIP64 extra (force_zip64): sizes 0xFFFFFFFF, the real ones in the extra.
    Put(zip, 0x04034b50, 4);
    Put(zip, 45, 2);
    Put(zip, 0, 2);
    Put(zip, deflate ? 8 : 0, 2);
    Put(zip, 0, 4);  // time, date
    Put(zip, crc, 4);
    Put(zip, 0xFFFFFFFF, 4);
    Put(zip, 0xFFFFFFFF, 4);
    Put(zip, name.size(), 2);
    Put(zip, 20, 2);
    zip += name;
    Put(zip, 1, 2);
    Put(zip, 16, 2);
    Put(zip, data.size(), 8);
    Put(zip, body.size(), 8);
    zip += body;
    Put(cd, 0x02014b50, 4);
    Put(cd, 45, 2);
    Put(cd, 45, 2);
    Put(cd, 0, 2);
    Put(cd, deflate ? 8 : 0, 2);
    Put(cd, 0, 4);
    Put(cd, crc, 4);
    Put(cd, body.size(), 4);
    Put(cd, data.size(), 4);
    Put(cd, name.size(), 2);
    Put(cd, 0, 2);
    Put(cd, 0, 2);
    Put(cd, 0, 2);
    Put(cd, 0, 2);
    Put(cd, 0, 4);
    Put(cd, offset, 4);
    cd += name;
  }
  const uint64_t cd_offset = zip.size();
  zip += cd;
  Put(zip, 0x06054b50, 4);
  Put(zip, 0, 4);
  Put(zip, members.size(), 2);
  Put(zip, members.size(), 2);
  Put(zip, cd.size(), 4);
  Put(zip, cd_offset, 4);
  Put(zip, 0, 2);
  return zip;
}

inline std::string Halves(const std::vector<uint16_t>& h) {
  std::string s(h.size() * 2, '\0');
  std::memcpy(s.data(), h.data(), s.size());
  return s;
}

inline std::string Int64s(const std::vector<int64_t>& v) {
  std::string s(v.size() * 8, '\0');
  std::memcpy(s.data(), v.data(), s.size());
  return s;
}

}  // namespace cb::ibedl::testutil

#endif  // CB_SUITES_IBEDL_NPZ_WRITER_TESTUTIL_H_
