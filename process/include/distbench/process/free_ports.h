// TCP ports for a local run. Every local rank listens on 127.0.0.1, so the
// spec's fixed ports (29500, 9400) would collide between ranks and with
// anything else on the machine; the kernel picks free ones instead.
#pragma once

#include <vector>

namespace distbench::process {

// A socket bound to 127.0.0.1 on a port the kernel picked, held until the
// object goes. Throws std::system_error.
class LoopbackPort {
 public:
  LoopbackPort();
  ~LoopbackPort();
  LoopbackPort(LoopbackPort&& other) noexcept;
  LoopbackPort(const LoopbackPort&) = delete;
  LoopbackPort& operator=(const LoopbackPort&) = delete;
  LoopbackPort& operator=(LoopbackPort&&) = delete;

  int port() const { return port_; }
  // Listens on it too: the port is then taken, for tests of what happens
  // when one is in use.
  void listen();

 private:
  int fd_;
  int port_ = 0;
};

// `count` distinct ports that were free on 127.0.0.1 a moment ago. All are
// bound at once before any is released, so they cannot repeat. Another
// process may still take one before the worker binds it; nothing short of
// passing the listening socket itself could close that window.
// Throws std::system_error.
std::vector<int> pickFreePorts(int count);

}  // namespace distbench::process
