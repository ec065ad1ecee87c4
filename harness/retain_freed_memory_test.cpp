// File: harness/retain_freed_memory_test.cpp
#include "harness/retain_freed_memory.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

// Sanitizers bring their own allocator, which ignores mallopt.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CB_SANITIZER_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define CB_SANITIZER_ALLOCATOR 1
#endif
#endif

#if defined(__GLIBC__) && !defined(CB_SANITIZER_ALLOCATOR)
#include <malloc.h>

namespace cb::harness {
namespace {

// A 16 MiB block is above glibc's default mmap threshold (128 KiB until a
// larger mapped block is freed). After RetainFreedMemory() it comes from the
// heap, and freeing it returns nothing to the OS: the heap's size stays and
// the next block of that size is served from it.
TEST(RetainFreedMemory, LargeBlocksComeFromTheHeapAndStayThere) {
  ASSERT_TRUE(RetainFreedMemory());  // test_main already called it: idempotent
  const size_t bytes = size_t{16} << 20;
  const struct mallinfo2 before = mallinfo2();
  void* block = std::malloc(bytes);
  ASSERT_NE(block, nullptr);
  std::memset(block, 1, bytes);
  EXPECT_EQ(static_cast<volatile char*>(block)[bytes - 1], 1);  // keeps the block from being elided
  const struct mallinfo2 held = mallinfo2();
  EXPECT_EQ(held.hblks, before.hblks) << "the block was mapped, not taken from the heap";
  EXPECT_GE(held.arena, before.arena);
  std::free(block);
  const struct mallinfo2 after = mallinfo2();
  EXPECT_EQ(after.arena, held.arena) << "the heap was trimmed on free";
  EXPECT_GE(after.fordblks, bytes) << "the freed block is not free heap memory";
}

TEST(RetainFreedMemory, BlocksAboveTheLimitAreStillMapped) {
  ASSERT_TRUE(RetainFreedMemory());
  const struct mallinfo2 before = mallinfo2();
  const size_t bytes = kRetainedBlockLimit + (size_t{1} << 20);
  void* block = std::malloc(bytes);
  ASSERT_NE(block, nullptr);
  static_cast<volatile char*>(block)[bytes - 1] = 1;
  EXPECT_EQ(mallinfo2().hblks, before.hblks + 1);
  std::free(block);
}

}  // namespace
}  // namespace cb::harness
#endif
