// The rank's heap keeps what it frees: a block below 32 MiB comes from the
// heap, not mmap, and freeing it at the top of the heap does not shrink it.
#include "distbench/worker/common/resident_heap.h"

#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdlib>
#include <cstring>

namespace distbench::worker {
namespace {

TEST(ResidentHeap, FreedGradientSizedBlocksStayInTheHeap) {
  ::unsetenv("GLIBC_TUNABLES");
  EXPECT_EQ(keepHeapResident(), "heap kept resident (mmap threshold 32 MiB, no trimming)");
  constexpr size_t kBlock = 9 << 20;  // ResNet-18's largest gradient is 9.4 MB
  const struct mallinfo2 before = ::mallinfo2();
  void* block = std::malloc(kBlock);
  ASSERT_NE(block, nullptr);
  std::memset(block, 1, kBlock);  // touched, as a gradient is
  const struct mallinfo2 held = ::mallinfo2();
  EXPECT_EQ(held.hblkhd, before.hblkhd) << "a 9 MiB block was mmapped, not taken from the heap";
  // In use in the arena (growing it, or from free space an earlier test of
  // this process left there).
  EXPECT_GE(held.uordblks, before.uordblks + kBlock);
  std::free(block);
  const struct mallinfo2 after = ::mallinfo2();
  EXPECT_GE(after.arena, held.arena) << "the heap was trimmed after the free";
}

TEST(ResidentHeap, GlibcTunablesWin) {
  ::setenv("GLIBC_TUNABLES", "glibc.malloc.trim_threshold=131072", 1);
  EXPECT_EQ(keepHeapResident(), "heap as GLIBC_TUNABLES sets it");
  ::unsetenv("GLIBC_TUNABLES");
}

}  // namespace
}  // namespace distbench::worker
