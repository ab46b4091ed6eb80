#include "distbench/worker/common/resident_heap.h"

#include <malloc.h>

#include <cstdlib>
#include <cstring>

namespace distbench::worker {

std::string keepHeapResident() {
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (tunables != nullptr && std::strstr(tunables, "glibc.malloc.") != nullptr)
    return "heap as GLIBC_TUNABLES sets it";
  // The largest value M_TRIM_THRESHOLD takes (an int); with it no free
  // ever shrinks the heap.
  const bool mmapSet = ::mallopt(M_MMAP_THRESHOLD, kResidentMmapThreshold) == 1;
  const bool trimSet = ::mallopt(M_TRIM_THRESHOLD, 0x7fffffff) == 1;
  if (!mmapSet || !trimSet) return "heap left to glibc's defaults (mallopt refused)";
  return "heap kept resident (mmap threshold 32 MiB, no trimming)";
}

}  // namespace distbench::worker
