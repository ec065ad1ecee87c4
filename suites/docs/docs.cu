// File: suites/docs/docs.cu
// -----------------------------------------------------------------------------
// CUDA path of suites/docs/docs.h. On the device:
//   1. sum_sq[c] = sum_r X[r, c]^2 in fp64 (column_sum_sq_kernel), then
//      Xn = X / sqrt(sum_sq) rounded to fp32 (scale_columns_kernel); same for Y
//   2. C_blk = Xn[:, j0:j0+rows]^T Yn by cuBLAS sgemm (fp32, no TF32)
//   3. abs_max_kernel reads C_blk once and folds it into both maxima vectors
// Only s_x (n1) and s_y (n2) come back to the host; C never leaves the device.
// Checked against the fp64 reference by suites/docs/docs_test.cpp
// (DocsBackendTest/cuda) and by claim docs.D5.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "harness/cuda/check.h"
#include "harness/cuda/device_buffer.cuh"
#include "harness/cuda/event_timer.cuh"
#include "harness/cuda/l2_flush.cuh"
#include "suites/docs/docs.h"

namespace cb::docs {
namespace {

using cb::harness::DeviceBuffer;

constexpr int kThreads = 256;
constexpr int kSumRowsPerBlock = 64;  // rows one column_sum_sq block sums
constexpr int kMaxRowsPerTile = 32;   // rows of C one abs_max block walks
// C blocks of at most 2^26 floats (256 MiB): n <= 8192 is one block, larger
// sizes are cut so device memory stays bounded. A block also has at most
// 65535 tiles of rows (the grid's y limit).
constexpr int64_t kMaxBlockFloats = int64_t{1} << 26;
constexpr int64_t kMaxGridY = 65535;

// Grid (ceil(n / 256), min(ceil(m / 64), 65535)); thread = one column over
// chunks of 64 rows (grid-stride over chunks, so any m fits). Adjacent
// threads read adjacent columns of one row: coalesced. fp64 partial sums meet
// in sum_sq by atomicAdd (sm_60+).
__global__ void column_sum_sq_kernel(const float* __restrict__ a, int64_t m, int64_t n,
                                     double* __restrict__ sum_sq) {
  const int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= n) return;
  double s = 0.0;
  for (int64_t r0 = static_cast<int64_t>(blockIdx.y) * kSumRowsPerBlock; r0 < m;
       r0 += static_cast<int64_t>(gridDim.y) * kSumRowsPerBlock) {
    const int64_t r1 = min(m, r0 + kSumRowsPerBlock);
    for (int64_t r = r0; r < r1; ++r) {
      const double v = a[r * n + c];
      s += v * v;
    }
  }
  atomicAdd(&sum_sq[c], s);
}

// Grid (ceil(n / 256), min(m, 65535)); thread = one column, grid-stride over
// rows. out = a * (1 / sqrt(sum_sq)), rounded once to fp32, as the CPU does.
__global__ void scale_columns_kernel(const float* __restrict__ a, int64_t m, int64_t n,
                                     const double* __restrict__ sum_sq, float* __restrict__ out) {
  const int64_t c = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= n) return;
  const double inv_norm = 1.0 / sqrt(sum_sq[c]);
  for (int64_t r = blockIdx.y; r < m; r += gridDim.y) {
    out[r * n + c] = static_cast<float>(static_cast<double>(a[r * n + c]) * inv_norm);
  }
}

// Grid (ceil(n2 / 256), ceil(rows / 32)), 256 threads. Thread t owns column
// k = blockIdx.x * 256 + t of a 32-row tile of C_blk (rows, n2), row-major.
// |C| >= 0, so the float bit patterns order as unsigned integers and the
// maxima can be combined with integer atomicMax; __reduce_max_sync (sm_80+)
// takes each row's maximum across a warp.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#error "suites/docs/docs.cu needs sm_80 or newer (__reduce_max_sync)"
#endif
__global__ void abs_max_kernel(const float* __restrict__ c, int64_t rows, int64_t n2,
                               int64_t row_offset, unsigned* __restrict__ s_x_bits,
                               unsigned* __restrict__ s_y_bits) {
  __shared__ unsigned tile_row_max[kMaxRowsPerTile];
  if (threadIdx.x < kMaxRowsPerTile) tile_row_max[threadIdx.x] = 0u;
  __syncthreads();
  const int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int64_t r0 = static_cast<int64_t>(blockIdx.y) * kMaxRowsPerTile;
  unsigned col_max = 0u;
  for (int i = 0; i < kMaxRowsPerTile; ++i) {
    const int64_t r = r0 + i;
    const unsigned bits = (r < rows && k < n2) ? __float_as_uint(fabsf(c[r * n2 + k])) : 0u;
    col_max = max(col_max, bits);
    const unsigned warp_max = __reduce_max_sync(0xffffffffu, bits);
    if ((threadIdx.x & 31) == 0 && warp_max != 0u) atomicMax(&tile_row_max[i], warp_max);
  }
  __syncthreads();
  if (threadIdx.x < kMaxRowsPerTile && r0 + threadIdx.x < rows) {
    atomicMax(&s_x_bits[row_offset + r0 + threadIdx.x], tile_row_max[threadIdx.x]);
  }
  if (k < n2) atomicMax(&s_y_bits[k], col_max);
}

struct CublasDeleter {
  void operator()(cublasContext* h) const noexcept { cublasDestroy(h); }
};

unsigned Blocks(int64_t count, int64_t per_block) {
  return static_cast<unsigned>((count + per_block - 1) / per_block);
}

// One DOCS problem resident on the device: inputs, normalised copies, one C
// block, and the maxima as bit patterns. Enqueue() is everything after the
// upload, so the benchmark can time the device work alone.
class DeviceDocs {
 public:
  DeviceDocs(const MatrixView& x, const MatrixView& y, int64_t block_rows)
      : m_(x.rows),
        n1_(x.cols),
        n2_(y.cols),
        x_(std::span<const float>(x.data, x.rows * x.cols)),
        y_(std::span<const float>(y.data, y.rows * y.cols)),
        xn_(x_.size()),
        yn_(y_.size()),
        sum_sq_x_(n1_),
        sum_sq_y_(n2_),
        block_rows_(block_rows > 0 ? std::min(block_rows, n1_)
                                   : std::min({n1_, std::max<int64_t>(1, kMaxBlockFloats / n2_),
                                               kMaxGridY * kMaxRowsPerTile})),
        c_block_(static_cast<size_t>(block_rows_ * n2_)),
        s_x_bits_(n1_),
        s_y_bits_(n2_) {
    cublasHandle_t h = nullptr;
    CB_CUBLAS_CHECK(cublasCreate(&h));
    cublas_.reset(h);
    // Plain fp32 GEMM. Stated, not assumed: TF32 tensor-op math (10-bit
    // mantissas) would cost the 1e-5 agreement with the reference.
    CB_CUBLAS_CHECK(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
  }

  void Enqueue(cudaStream_t stream) {
    CB_CUBLAS_CHECK(cublasSetStream(cublas_.get(), stream));
    Normalize(x_, n1_, sum_sq_x_, xn_, stream);
    Normalize(y_, n2_, sum_sq_y_, yn_, stream);
    CB_CUDA_CHECK(cudaMemsetAsync(s_x_bits_.data(), 0, s_x_bits_.bytes(), stream));
    CB_CUDA_CHECK(cudaMemsetAsync(s_y_bits_.data(), 0, s_y_bits_.bytes(), stream));
    const float one = 1.0f, zero = 0.0f;
    for (int64_t j0 = 0; j0 < n1_; j0 += block_rows_) {
      const int64_t rows = std::min(block_rows_, n1_ - j0);
      // Column-major view: C_blk^T (n2, rows) = Yn^T (n2, m) * Xn[:, j0:]^T^T.
      // Row-major Yn (m, n2) is column-major (n2, m) with ld n2, and the
      // column slice of row-major Xn (m, n1) is column-major (rows, m), ld n1.
      CB_CUBLAS_CHECK(cublasSgemm(cublas_.get(), CUBLAS_OP_N, CUBLAS_OP_T, static_cast<int>(n2_),
                                  static_cast<int>(rows), static_cast<int>(m_), &one, yn_.data(),
                                  static_cast<int>(n2_), xn_.data() + j0, static_cast<int>(n1_),
                                  &zero, c_block_.data(), static_cast<int>(n2_)));
      const dim3 grid(Blocks(n2_, kThreads), Blocks(rows, kMaxRowsPerTile));
      abs_max_kernel<<<grid, kThreads, 0, stream>>>(c_block_.data(), rows, n2_, j0,
                                                    s_x_bits_.data(), s_y_bits_.data());
      CB_CUDA_CHECK_LAUNCH();
    }
  }

  cb::ref::docs::AbsMaxima Download() const {
    cb::ref::docs::AbsMaxima out;
    out.s_x = FromBits(s_x_bits_.ToHost());
    out.s_y = FromBits(s_y_bits_.ToHost());
    return out;
  }

 private:
  void Normalize(const DeviceBuffer<float>& a, int64_t n, DeviceBuffer<double>& sum_sq,
                 DeviceBuffer<float>& out, cudaStream_t stream) {
    CB_CUDA_CHECK(cudaMemsetAsync(sum_sq.data(), 0, sum_sq.bytes(), stream));
    const auto chunks =
        static_cast<unsigned>(std::min<int64_t>(Blocks(m_, kSumRowsPerBlock), kMaxGridY));
    column_sum_sq_kernel<<<dim3(Blocks(n, kThreads), chunks), kThreads, 0, stream>>>(
        a.data(), m_, n, sum_sq.data());
    CB_CUDA_CHECK_LAUNCH();
    const auto rows = static_cast<unsigned>(std::min<int64_t>(m_, kMaxGridY));
    scale_columns_kernel<<<dim3(Blocks(n, kThreads), rows), kThreads, 0, stream>>>(
        a.data(), m_, n, sum_sq.data(), out.data());
    CB_CUDA_CHECK_LAUNCH();
  }

  static std::vector<double> FromBits(const std::vector<unsigned>& bits) {
    std::vector<double> out(bits.size());
    for (size_t i = 0; i < bits.size(); ++i) {
      float v;
      std::memcpy(&v, &bits[i], sizeof v);
      // Rounding can pass 1 by an ulp; a NaN (0x7fc00000 beats every finite
      // pattern in atomicMax) stays NaN, so the Gumbel fit refuses it.
      out[i] = std::min(static_cast<double>(v), 1.0);
    }
    return out;
  }

  int64_t m_, n1_, n2_;
  DeviceBuffer<float> x_, y_, xn_, yn_;
  DeviceBuffer<double> sum_sq_x_, sum_sq_y_;
  int64_t block_rows_;
  DeviceBuffer<float> c_block_;
  DeviceBuffer<unsigned> s_x_bits_, s_y_bits_;
  std::unique_ptr<cublasContext, CublasDeleter> cublas_;
};

}  // namespace

cb::ref::docs::AbsMaxima AbsMaximaCuda(const MatrixView& x, const MatrixView& y,
                                       int64_t block_rows) {
  DeviceDocs docs(x, y, block_rows);
  docs.Enqueue(nullptr);
  CB_CUDA_CHECK(cudaDeviceSynchronize());
  return docs.Download();
}

struct CudaDocsProblem::Impl {
  Impl(const MatrixView& x, const MatrixView& y) : docs(x, y, 0) {}
  DeviceDocs docs;
  cb::harness::cuda_internal::L2Flush flush;
  cb::harness::cuda_internal::EventTimer timer;
};

CudaDocsProblem::CudaDocsProblem(const MatrixView& x, const MatrixView& y) {
  CheckDocsInput(x, y);
  impl_ = std::make_unique<Impl>(x, y);
}

CudaDocsProblem::~CudaDocsProblem() = default;

double CudaDocsProblem::TimeOnce() {
  impl_->flush.Flush(nullptr);
  impl_->timer.Start(nullptr);
  impl_->docs.Enqueue(nullptr);
  impl_->timer.Stop(nullptr);
  CB_CUDA_CHECK_LAUNCH();
  return impl_->timer.ElapsedSeconds();
}

}  // namespace cb::docs
