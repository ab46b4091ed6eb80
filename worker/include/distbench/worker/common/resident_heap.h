// glibc's malloc gives the top of its heap back to the kernel whenever more
// than its trim threshold is free there, and hands blocks above its mmap
// threshold to mmap/munmap. A training iteration frees megabytes of
// gradients and temporaries every time, so with glibc's defaults each
// iteration faults the same memory back in, and how much depends on which
// free happened to be largest (the thresholds move): measured, the DDP
// sweep's `no ddp` row ran 22 % slower than one rank of DDP, whose bucket
// views keep their memory, so the sweep printed scaling efficiencies above
// 100 % (docs/performance.md, "The allocator"). A benchmark rank keeps its
// heap instead: fixed thresholds, nothing trimmed, every row measured on the
// same footing.
#pragma once

#include <string>

namespace distbench::worker {

inline constexpr int kResidentMmapThreshold = 32 << 20;  // glibc's own ceiling for it

// Fixes the mmap threshold at 32 MiB and turns trimming off (mallopt),
// unless GLIBC_TUNABLES already sets a glibc.malloc tunable: then the
// person running it chose, and this leaves it alone. Returns what it did,
// for the rank's first lines: "heap kept resident (...)" or why not.
std::string keepHeapResident();

}  // namespace distbench::worker
