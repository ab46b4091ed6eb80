// The one place that tells the LibTorch lines apart; every #if on
// TORCH_VERSION in the worker is here.
//
// - LibTorch 1.13 (Debian 12) has ProcessGroupGloo derive from
//   c10d::ProcessGroup; 2.x splits the user-facing ProcessGroup from the
//   per-device c10d::Backend that ProcessGroupGloo and ProcessGroupNCCL
//   derive from, with the same collective calls. The adapter
//   (process_group.h, c10d_backends.h) holds a backend through C10dBackend.
// - 2.x's TCPStoreOptions choose between the libuv store server (the
//   default) and the classic one; a LibTorch built without libuv refuses
//   the default, even on a client (store_connection.cpp). 1.13 has only
//   the classic one.
#pragma once

#include <torch/version.h>

namespace c10d {
class ProcessGroup;
class Backend;
}  // namespace c10d

namespace distbench::worker {

#if TORCH_VERSION_MAJOR >= 2
using C10dBackend = c10d::Backend;
#else
using C10dBackend = c10d::ProcessGroup;
#endif

// Whether this LibTorch lets the store choose its server.
inline constexpr bool kStoreHasLibuvChoice = TORCH_VERSION_MAJOR >= 2;

// Asks for the libuv server (`libuv`) or the classic one; both speak the
// same protocol. A no-op on 1.13.
template <typename TCPStoreOptions>
void chooseStoreServer(TCPStoreOptions& options, bool libuv) {
#if TORCH_VERSION_MAJOR >= 2
  options.useLibUV = libuv;
#else
  (void)options;
  (void)libuv;
#endif
}

}  // namespace distbench::worker
