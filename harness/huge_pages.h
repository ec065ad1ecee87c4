// File: harness/huge_pages.h
// -----------------------------------------------------------------------------
// HugePageArray<T>: a fixed-size, uninitialised array for large per-call
// scratch, backed by transparent huge pages where the kernel offers them.
//
//   cb::harness::HugePageArray<float> c(rows * cols);  // c.data(), c.size()
//
// Why: each fresh 4 KiB page costs a fault on its first touch, and faults are
// dear on the VMs we measure on. DOCS at n = 1024 writes 2 x 4 MiB of
// normalised columns per call: that pass took 19.7 ms of a 31.4 ms call
// (SGEMM 10.8 ms) on 4 KiB pages and 3.0 ms on huge pages (call 14.5 ms), so
// ~8 us per 4 KiB page (16.7 ms / 2048 pages, derived, not timed alone).
//
// Arrays of at least 1 MiB are rounded up to whole 2 MiB pages, 2 MiB-aligned
// and advised MADV_HUGEPAGE (Linux; where THP is "never" or absent they are
// plain pages, correct and as slow as before); smaller ones are ordinary
// heap memory (zeroing a 2 MiB page costs about what faulting 256 KiB does).
// Elements are not initialised: T must be trivially constructible and
// destructible.
// Thread safety: none beyond that of distinct objects.
#ifndef CB_HARNESS_HUGE_PAGES_H_
#define CB_HARNESS_HUGE_PAGES_H_

#include <cstddef>
#include <type_traits>

namespace cb::harness {

// Raw storage behind HugePageArray: at least `bytes`, freed by FreeHugePages.
void* AllocateHugePages(size_t bytes);
void FreeHugePages(void* p);

// The huge-page size (and alignment), and the smallest array placed on them.
inline constexpr size_t kHugePageBytes = size_t{2} << 20;
inline constexpr size_t kHugePageMinBytes = size_t{1} << 20;

template <typename T>
class HugePageArray {
  static_assert(std::is_trivially_default_constructible_v<T> && std::is_trivially_destructible_v<T>);

 public:
  explicit HugePageArray(size_t n) : data_(static_cast<T*>(AllocateHugePages(n * sizeof(T)))), size_(n) {}
  ~HugePageArray() { FreeHugePages(data_); }
  HugePageArray(HugePageArray&& other) noexcept : data_(other.data_), size_(other.size_) {
    other.data_ = nullptr;
    other.size_ = 0;
  }
  HugePageArray(const HugePageArray&) = delete;
  HugePageArray& operator=(const HugePageArray&) = delete;
  HugePageArray& operator=(HugePageArray&&) = delete;

  T* data() { return data_; }
  const T* data() const { return data_; }
  size_t size() const { return size_; }
  T& operator[](size_t i) { return data_[i]; }
  const T& operator[](size_t i) const { return data_[i]; }

 private:
  T* data_;
  size_t size_;
};

}  // namespace cb::harness

#endif  // CB_HARNESS_HUGE_PAGES_H_
