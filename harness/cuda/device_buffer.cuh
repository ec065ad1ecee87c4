// File: harness/cuda/device_buffer.cuh
// -----------------------------------------------------------------------------
// cb::harness::DeviceBuffer<T>: an owning, move-only array in GPU global
// memory (cudaMalloc / cudaFree) with copies to and from host vectors. The one
// way harness and suite .cu files hold device memory: a method's CUDA code
// never calls cudaMalloc / cudaFree itself. Errors throw
// cb::harness::CudaError (harness/cuda_error.h). Include from .cu files only.
//
// Poison() fills the buffer with 0xFF bytes before a kernel writes it
// (DESIGN §3: outputs are poisoned before each run). 0xFF..FF is a NaN for
// float/double/half/bf16 and -1 for signed integers, so an element the kernel
// forgot to write fails any tolerance check instead of passing with the
// value a previous run left there.
#ifndef CB_HARNESS_CUDA_DEVICE_BUFFER_CUH_
#define CB_HARNESS_CUDA_DEVICE_BUFFER_CUH_

#include <cuda_runtime.h>

#include <cstddef>
#include <span>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

#include "harness/cuda/check.h"

namespace cb::harness {

template <typename T>
class DeviceBuffer {
  // Elements are moved as raw bytes (cudaMemcpy), so T must be a plain value.
  static_assert(std::is_trivially_copyable_v<T>, "DeviceBuffer<T> needs a trivially copyable T");

 public:
  DeviceBuffer() = default;

  // Allocates `count` elements, uninitialised. Throws CudaError.
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count_ > 0) CB_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), bytes()));
  }

  // Allocates host.size() elements and copies `host` in.
  explicit DeviceBuffer(std::span<const T> host) : DeviceBuffer(host.size()) {
    CopyFromHost(host);
  }

  ~DeviceBuffer() { Release(); }

  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), count_(std::exchange(other.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      Release();
      data_ = std::exchange(other.data_, nullptr);
      count_ = std::exchange(other.count_, 0);
    }
    return *this;
  }

  T* data() { return data_; }
  const T* data() const { return data_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

  // Synchronous host -> device copy. REQUIRES: host.size() == size().
  void CopyFromHost(std::span<const T> host) {
    if (host.size() != count_) throw std::invalid_argument("DeviceBuffer::CopyFromHost: size mismatch");
    if (count_ > 0) CB_CUDA_CHECK(cudaMemcpy(data_, host.data(), bytes(), cudaMemcpyHostToDevice));
  }

  // Synchronous device -> host copy. REQUIRES: host.size() == size().
  void CopyToHost(std::span<T> host) const {
    if (host.size() != count_) throw std::invalid_argument("DeviceBuffer::CopyToHost: size mismatch");
    if (count_ > 0) CB_CUDA_CHECK(cudaMemcpy(host.data(), data_, bytes(), cudaMemcpyDeviceToHost));
  }

  std::vector<T> ToHost() const {
    std::vector<T> host(count_);
    CopyToHost(host);
    return host;
  }

  // Every byte becomes 0xFF (see the file comment). Synchronous, so a kernel
  // launched afterwards on any stream sees the poison.
  void Poison() {
    if (count_ > 0) CB_CUDA_CHECK(cudaMemset(data_, 0xFF, bytes()));
  }

  void Zero() {
    if (count_ > 0) CB_CUDA_CHECK(cudaMemset(data_, 0, bytes()));
  }

 private:
  void Release() noexcept {
    if (data_ != nullptr) CB_CUDA_CHECK_NOEXCEPT(cudaFree(data_));
    data_ = nullptr;
    count_ = 0;
  }

  T* data_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace cb::harness

#endif  // CB_HARNESS_CUDA_DEVICE_BUFFER_CUH_
