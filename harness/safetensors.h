// File: harness/safetensors.h
// -----------------------------------------------------------------------------
// A reader and a writer for the safetensors checkpoint format, so that a method
// (DOCS first, issue 3) can run on a real model's weights and tests can build
// synthetic checkpoints.
//
// The format, as publicly described by its authors:
//   bytes [0, 8)        N, a little-endian u64: the length of the header;
//   bytes [8, 8 + N)    the header, a UTF-8 JSON object mapping each tensor name
//                       to {"dtype": "F32", "shape": [d0, ...],
//                       "data_offsets": [begin, end]}, plus an optional
//                       "__metadata__" object of string -> string;
//   bytes [8 + N, EOF)  the byte buffer; a tensor's bytes are [begin, end)
//                       relative to its start, row-major, little-endian.
//
// Every malformed input is a std::runtime_error with ONE line that names the
// file and what is wrong (DESIGN §8). The reader never trusts the header: each
// offset, shape and size is checked against the file before any data is read.
#ifndef CB_HARNESS_SAFETENSORS_H_
#define CB_HARNESS_SAFETENSORS_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace cb::harness {

// The largest header Open() accepts, in bytes. Real checkpoints have headers of
// kilobytes to a few megabytes; a larger length prefix is corruption, and
// refusing it keeps a flipped bit from making us allocate gigabytes.
inline constexpr uint64_t kSafetensorsMaxHeaderBytes = 100'000'000;

// Bytes per element of a safetensors dtype name ("F32" -> 4, "BF16" -> 2,
// "BOOL" -> 1, ...), or 0 when the name is not a dtype of the format.
int SafetensorsDtypeSize(const std::string& dtype);

// One tensor of a header, as validated by SafetensorsFile::Open().
struct SafetensorsTensor {
  std::string name;
  std::string dtype;           // as written in the file: "F32", "F16", "BF16", ...
  std::vector<int64_t> shape;  // every entry >= 0; {} is a scalar (1 element)
  uint64_t begin = 0;          // [begin, end): byte range in the byte buffer
  uint64_t end = 0;
};

class SafetensorsFile {
 public:
  // Open()
  //
  // Reads and validates the header of the file at `path`; tensor data is read
  // only by ReadAsDouble(). Throws std::runtime_error (one line, naming `path`)
  // when: the file cannot be read or is shorter than 8 bytes; N is larger than
  // kSafetensorsMaxHeaderBytes or than the rest of the file; the header is not
  // JSON or not an object; "__metadata__" is not an object of strings; a
  // tensor entry is not an object or lacks "dtype" (string), "shape" (array of
  // non-negative integers) or "data_offsets" (two non-negative integers); the
  // dtype is unknown; the element count or byte size overflows 64 bits;
  // begin > end; end lies past the byte buffer; end - begin differs from
  // product(shape) * sizeof(dtype); or two non-empty tensors overlap.
  // Gaps between tensors are accepted (the format does not need them filled).
  static SafetensorsFile Open(const std::string& path);

  const std::string& path() const { return path_; }
  uint64_t file_size() const { return file_size_; }
  // 8 + N: the file offset of the byte buffer.
  uint64_t data_start() const { return data_start_; }

  // Every tensor, sorted by name (byte-wise), NOT in byte-buffer order: the
  // JSON header is an object, whose key order carries no meaning.
  const std::vector<SafetensorsTensor>& tensors() const { return tensors_; }

  // The "__metadata__" entries; empty when the header has none.
  const std::map<std::string, std::string>& metadata() const { return metadata_; }

  // Find()
  //
  // The tensor called `name`, or nullptr.
  const SafetensorsTensor* Find(const std::string& name) const;

  // ReadAsDouble()
  //
  // The elements of tensor `name` in row-major order, each converted exactly
  // to double (every F64, F32, F16 and BF16 value, subnormals, infinities and
  // NaNs included, is a double). Throws std::runtime_error naming the file
  // when there is no such tensor, when its dtype is none of those four (the
  // message names the dtype), or when the file has become too short to read.
  std::vector<double> ReadAsDouble(const std::string& name) const;

 private:
  std::string path_;
  uint64_t file_size_ = 0;
  uint64_t data_start_ = 0;
  std::vector<SafetensorsTensor> tensors_;
  std::map<std::string, std::string> metadata_;
};

// A tensor handed to WriteSafetensors().
struct SafetensorsWriteTensor {
  std::string dtype;           // "F32", "F16", "BF16" or "F64"
  std::vector<int64_t> shape;  // every entry >= 0
  std::vector<double> values;  // product(shape) values, row-major
};

// WriteSafetensors()
//
// Writes `tensors`, in the given order and packed without gaps, with
// `metadata` as "__metadata__" (omitted when empty), to `path`. Each double is
// rounded to the dtype to nearest, ties to even (overflow gives +-inf, NaN
// stays NaN). The header is padded with spaces to a multiple of 8 bytes so the
// byte buffer is aligned. The file is written to a temporary file beside
// `path` and renamed, so a failure leaves no partial file.
// REQUIRES (else std::invalid_argument, nothing written): names non-empty,
// unique and not "__metadata__"; dtypes among the four above; shapes
// non-negative; values.size() == product(shape).
// Throws std::runtime_error (one line, naming `path`) when writing fails.
void WriteSafetensors(const std::string& path,
                      const std::vector<std::pair<std::string, SafetensorsWriteTensor>>& tensors,
                      const std::map<std::string, std::string>& metadata = {});

// The exact value of an IEEE binary16 / bfloat16 bit pattern.
double HalfBitsToDouble(uint16_t bits);
double Bf16BitsToDouble(uint16_t bits);

// `x` rounded to nearest, ties to even, as binary16 / bfloat16 bits.
uint16_t DoubleToHalfBits(double x);
uint16_t DoubleToBf16Bits(double x);

}  // namespace cb::harness

#endif  // CB_HARNESS_SAFETENSORS_H_
