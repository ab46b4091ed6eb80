#include "distbench/process/free_ports.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

namespace distbench::process {
namespace {

class Socket {
 public:
  Socket() : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    if (fd_ < 0) throw std::system_error(errno, std::generic_category(), "socket");
  }
  Socket(Socket&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  Socket(const Socket&) = delete;
  Socket& operator=(const Socket&) = delete;
  ~Socket() {
    if (fd_ >= 0) ::close(fd_);
  }
  int fd() const { return fd_; }

 private:
  int fd_;
};

}  // namespace

std::vector<int> pickFreePorts(int count) {
  std::vector<Socket> held;
  std::vector<int> ports;
  held.reserve(count > 0 ? count : 0);
  for (int i = 0; i < count; ++i) {
    Socket socket;
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    if (::bind(socket.fd(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0)
      throw std::system_error(errno, std::generic_category(), "bind 127.0.0.1:0");
    socklen_t length = sizeof address;
    if (::getsockname(socket.fd(), reinterpret_cast<sockaddr*>(&address), &length) != 0)
      throw std::system_error(errno, std::generic_category(), "getsockname");
    ports.push_back(ntohs(address.sin_port));
    held.push_back(std::move(socket));
  }
  // Never listened or connected: closing leaves no TIME_WAIT behind, so the
  // worker can bind the port right away without SO_REUSEADDR.
  return ports;
}

}  // namespace distbench::process
