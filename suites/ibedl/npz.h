// File: suites/ibedl/npz.h
// -----------------------------------------------------------------------------
// A reader of NumPy .npz archives (np.savez / np.savez_compressed), enough for
// the IB-EDL authors' prediction files (ib_edl/utils/misc.py save_predictions:
// 'logits' float16 [N, K], 'labels' int64 [N], optional 'uncertainties'
// float16 [N]). Our own code over zlib:
//   - ZIP: the end-of-central-directory record (and its ZIP64 form), the
//     central directory (ZIP64 extra field for sizes/offsets of 0xFFFFFFFF:
//     numpy opens every member with force_zip64=True), each member's local
//     header (its own name and extra lengths), method 0 (stored) or 8
//     (deflate, inflated raw with zlib); CRC-32 checked.
//   - NPY 1.0/2.0/3.0: magic, header dict {'descr', 'fortran_order',
//     'shape'}; little-endian or '|' dtypes f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8
//     b1, C order; values widened to double (f2 exactly).
// Errors: std::runtime_error with one line naming the file (and member).
#ifndef CB_SUITES_IBEDL_NPZ_H_
#define CB_SUITES_IBEDL_NPZ_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace cb::ibedl {

struct NpyArray {
  std::string descr;            // e.g. "<f2"
  std::vector<int64_t> shape;
  std::vector<double> values;   // row-major
};

// Member name without ".npy" -> array.
std::map<std::string, NpyArray> ReadNpz(const std::string& path);
// One .npy payload; `what` names it in errors.
NpyArray ParseNpy(const std::string& bytes, const std::string& what);

// IEEE binary16 -> double, exactly.
double DoubleFromHalf(uint16_t h);

}  // namespace cb::ibedl

#endif  // CB_SUITES_IBEDL_NPZ_H_
