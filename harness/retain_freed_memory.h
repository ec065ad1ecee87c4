// File: harness/retain_freed_memory.h
// -----------------------------------------------------------------------------
// RetainFreedMemory(): freed heap blocks stay in the process for the next
// allocation instead of going back to the OS. Called first thing in main() by
// `claimbench` and by every test binary.
//
// Why: each fresh 4 KiB page costs a fault on its first touch, and faults are
// dear on the VMs we measure on (~8 us a page: harness/huge_pages.h). With
// glibc's defaults a block above its adaptive mmap threshold is unmapped on
// free, and a free that leaves more than twice that threshold at the top of
// the heap trims it, so code that allocates a step's buffers and frees them
// again (the transformer's training step: activations, gradients, logits)
// faults on every page of them on every step. The lm train steps
// (claimbench bench --filter lm/cpu/train_step/) took 1812 / 442 ms (target /
// draft) with the defaults and 755 / 152 ms with these settings, measured in
// one session on a 2-vCPU AMD EPYC VM (suites/lm/README.md).
//
// Settings (glibc; elsewhere a no-op): blocks up to 32 MiB, the largest mmap
// threshold glibc accepts on 64-bit, come from the heap, and the main heap is
// never trimmed. Larger blocks are still mapped and unmapped each time, and
// a thread's own arena still returns a heap that is wholly free. The cost is
// resident memory: the process keeps its high-water mark of heap blocks.
// REQUIRES: called before other threads allocate. Returns whether the
// allocator accepted both settings (a sanitizer's allocator, or glibc with
// glibc.malloc.hugetlb=2, refuses them: then the defaults stay).
#ifndef CB_HARNESS_RETAIN_FREED_MEMORY_H_
#define CB_HARNESS_RETAIN_FREED_MEMORY_H_

#include <cstddef>

namespace cb::harness {

// The largest block RetainFreedMemory() keeps on the heap.
inline constexpr size_t kRetainedBlockLimit = size_t{32} << 20;

bool RetainFreedMemory();

}  // namespace cb::harness

#endif  // CB_HARNESS_RETAIN_FREED_MEMORY_H_
