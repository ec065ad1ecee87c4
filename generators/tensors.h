// File: generators/tensors.h
// -----------------------------------------------------------------------------
// Procedural dense matrices for the weight-similarity methods (issue 3, DOCS):
//   - GaussianMatrix: iid N(0, stddev^2) entries;
//   - HaarOrthogonal: an n x n orthogonal matrix drawn from the Haar measure
//     on O(n), as the Q of a Householder QR of a Gaussian matrix with the sign
//     fix of Mezzadri (2007), "How to generate random matrices from the
//     classical compact groups", Notices AMS 54(5), §4 / eq. (5.1)-(5.3);
//   - LayerStack: a sequence of matrices whose adjacent layers are more alike
//     than distant ones (an AR(1) chain across layers);
//   - ContentHash: the XXH3-128 of a generated matrix and its provenance.
// The matrices are cb::ref::Matrix (reference/common/linalg.h), so generator
// output feeds the CPU references directly; the provenance rides alongside in
// Generated.
//
// Determinism (DESIGN §4): every output is a pure function of (generator
// name, generator version, seed, params). All randomness comes from
// cb::harness::Rng (Philox4x32-10); normals are Rng::Normal() (Box-Muller in
// fp64), so values agree bitwise on one libm and to a few ulp across libms.
// Changing any generator's output on purpose bumps its k*Version constant,
// which also changes its golden hashes in fixtures/generators/tensors_golden.txt.
//
// Storage order: every matrix is ROW-MAJOR, shape (rows, cols): entry (r, c)
// lives at data[r * cols + c].
#ifndef CB_GENERATORS_TENSORS_H_
#define CB_GENERATORS_TENSORS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "reference/common/linalg.h"

namespace cb::gen {

// Generator versions (DESIGN §4). Bump on any intended change of output.
inline constexpr int kGaussianMatrixVersion = 1;
inline constexpr int kHaarOrthogonalVersion = 1;
inline constexpr int kLayerStackVersion = 1;

// Generator names, as hashed by ContentHash().
inline constexpr char kGaussianMatrixName[] = "gaussian_matrix";
inline constexpr char kHaarOrthogonalName[] = "haar_orthogonal";
inline constexpr char kLayerStackName[] = "layer_stack";

// A generated matrix and the provenance that ContentHash() covers: which
// generator made it, its version, and its parameters as a canonical
// "key=value;key=value" string (fixed key order, doubles as %.17g).
struct Generated {
  ref::Matrix matrix;  // (rows, cols), row-major
  std::string generator;
  int version = 0;
  std::string params;
};

// GaussianMatrix()
//
// (rows, cols) with iid N(0, stddev^2) entries: entry i (row-major order,
// i = r * cols + c) is stddev * the i-th Rng(seed, stream).Normal(), so it
// uses stream words 4i..4i+3 and any entry can be recomputed from its index.
// REQUIRES: rows >= 0, cols >= 0, stddev finite and >= 0
//           (throws std::invalid_argument otherwise).
Generated GaussianMatrix(int64_t rows, int64_t cols, uint64_t seed, uint64_t stream,
                         double stddev = 1.0);

// HaarOrthogonal()
//
// An (n, n) orthogonal matrix Q distributed by Haar measure on O(n): with
// A = GaussianMatrix(n, n, seed, stream) (unit variance), A = QR by Householder
// reflections in fp64, then column j of Q is multiplied by sign(R_jj)
// (sign(0) := +1). Without that fix Q depends on the reflector sign
// convention and is NOT Haar (e.g. its first column would always have
// Q_00 <= 0); with it, Q is the unique factor with a positive-diagonal R,
// which is Haar (Mezzadri 2007, §4). det(Q) is +1 or -1 with probability 1/2.
// REQUIRES: n >= 1 (throws std::invalid_argument otherwise).
Generated HaarOrthogonal(int64_t n, uint64_t seed, uint64_t stream);

// LayerStack()
//
// num_layers matrices W_0 .. W_{L-1}, each (rows, cols), built as an AR(1)
// chain across layers:
//   W_0     = G_0
//   W_{l+1} = rho * W_l + sqrt(1 - rho^2) * G_{l+1}
// where G_l = GaussianMatrix(rows, cols, seed, /*stream=*/l) (unit variance,
// a fresh independent stream per layer). Every W_l has iid N(0, 1) entries,
// and the same entry of W_i and W_j has correlation rho^|i-j|: adjacent
// layers are the most similar, similarity decays geometrically with depth
// distance. rho = 0 gives independent layers, rho = 1 identical ones.
// Layer l's provenance params include "layer=l", so each layer hashes apart.
// REQUIRES: num_layers >= 0, rows >= 0, cols >= 0, 0 <= rho <= 1
//           (throws std::invalid_argument otherwise).
std::vector<Generated> LayerStack(int64_t num_layers, int64_t rows, int64_t cols, double rho,
                                  uint64_t seed);

// ContentHash()
//
// XXH3-128, as 32 lower-case hex digits (high word first), over the bytes
//   u64le(len(generator)) generator
//   u64le(version)
//   u64le(len(params)) params
//   i64le(matrix.rows) i64le(matrix.cols)
//   then each matrix.data[i], i = 0 .. rows*cols-1 in row-major order, as the
//   8 little-endian bytes of its IEEE-754 binary64 representation.
// Length prefixes keep the framing unambiguous. The bytes do not depend on
// host endianness.
// REQUIRES: matrix.data.size() == rows * cols (throws std::invalid_argument
//           otherwise).
std::string ContentHash(const Generated& g);

namespace internal {

// QrOrthogonalFactor()
//
// The Q of a Householder QR of the square matrix `a` (n, n), row-major.
// Reflector k maps column k of the trailing block, x, to alpha * e_1 with
// alpha = -sign(x_0) * ||x|| (the cancellation-free choice), so R_kk = alpha.
// With sign_fix, column j of Q is multiplied by sign(R_jj). sign_fix = false
// exists only as the negative control of the Haar tests; it is NOT Haar.
// REQUIRES: a.rows == a.cols >= 1 and data.size() == rows * cols
//           (throws std::invalid_argument otherwise).
ref::Matrix QrOrthogonalFactor(const ref::Matrix& a, bool sign_fix);

}  // namespace internal

}  // namespace cb::gen

#endif  // CB_GENERATORS_TENSORS_H_
