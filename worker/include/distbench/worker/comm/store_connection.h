// A connection to the rendezvous TCPStore the master hosts, or the store
// itself on the master: the one place that fills in c10d's TCPStoreOptions,
// whose defaults differ between LibTorch lines (2.x asks for the libuv
// server, which a LibTorch built without libuv refuses).
#pragma once

#include <c10/util/intrusive_ptr.h>

#include <chrono>
#include <cstdint>
#include <string>

namespace c10d {
class Store;
}

namespace distbench::worker {

// Hosts the store on `port` (isServer) or connects to host:port; waits at
// most `timeout` to connect and for any one request later. Throws what
// c10d throws.
c10::intrusive_ptr<c10d::Store> connectTcpStore(const std::string& host, int port, bool isServer,
                                                std::chrono::milliseconds timeout);

}  // namespace distbench::worker
