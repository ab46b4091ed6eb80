// A shared library with 512 KiB of initial-exec thread-local storage: loaded
// at start-up, it puts that much static TLS into every thread's stack, as
// PyTorch's CUDA wheels do. glibc refuses (EINVAL) a thread whose requested
// stack cannot hold it, which is what civetweb's 100 KiB worker threads hit
// on the lent H200 ("Cannot create threads").
#include <cstddef>

// Exported, so that no compiler or linker drops it as unused.
extern "C" __attribute__((tls_model("initial-exec"), visibility("default")))
thread_local char distbenchBigStaticTls[512 * 1024];
thread_local char distbenchBigStaticTls[512 * 1024];

extern "C" std::size_t distbenchBigStaticTlsBytes() {
  return sizeof distbenchBigStaticTls;
}
