#include "distbench/process/free_ports.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace distbench::process {

LoopbackPort::LoopbackPort() : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
  if (fd_ < 0) throw std::system_error(errno, std::generic_category(), "socket");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  const char* failed = nullptr;
  socklen_t length = sizeof address;
  if (::bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    failed = "bind 127.0.0.1:0";
  } else if (::getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    failed = "getsockname";
  }
  if (failed != nullptr) {
    const int error = errno;
    ::close(fd_);
    throw std::system_error(error, std::generic_category(), failed);
  }
  port_ = ntohs(address.sin_port);
}

LoopbackPort::LoopbackPort(LoopbackPort&& other) noexcept : fd_(other.fd_), port_(other.port_) {
  other.fd_ = -1;
}

LoopbackPort::~LoopbackPort() {
  if (fd_ >= 0) ::close(fd_);
}

void LoopbackPort::listen() {
  if (::listen(fd_, 1) != 0)
    throw std::system_error(errno, std::generic_category(), "listen on 127.0.0.1");
}

std::vector<int> pickFreePorts(int count) {
  std::vector<LoopbackPort> held;
  std::vector<int> ports;
  held.reserve(count > 0 ? count : 0);
  for (int i = 0; i < count; ++i) {
    held.emplace_back();
    ports.push_back(held.back().port());
  }
  // Never listened or connected: closing leaves no TIME_WAIT behind, so the
  // worker can bind the port right away without SO_REUSEADDR.
  return ports;
}

}  // namespace distbench::process
