#include "distbench/worker/comm/store_connection.h"

#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include "distbench/worker/comm/c10d_version.h"

namespace distbench::worker {

c10::intrusive_ptr<c10d::Store> connectTcpStore(const std::string& host, int port, bool isServer,
                                                std::chrono::milliseconds timeout) {
  c10d::TCPStoreOptions options;
  options.port = static_cast<std::uint16_t>(port);
  options.isServer = isServer;
  // The rendezvous's own check-in names who is missing (rendezvous.h).
  options.waitWorkers = false;
  options.timeout = timeout;
  chooseStoreServer(options, /*libuv=*/true);
  try {
    return c10::make_intrusive<c10d::TCPStore>(host, options);
  } catch (const std::exception& e) {
    // "use_libuv was requested but PyTorch was build without libuv
    // support": the check comes before any socket is opened, so the
    // classic server is a clean second try.
    if (!kStoreHasLibuvChoice || std::string(e.what()).find("libuv") == std::string::npos) throw;
  }
  chooseStoreServer(options, /*libuv=*/false);
  return c10::make_intrusive<c10d::TCPStore>(host, options);
}

}  // namespace distbench::worker
