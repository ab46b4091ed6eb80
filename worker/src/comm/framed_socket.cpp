#include "distbench/worker/comm/framed_socket.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "distbench/worker/comm/peer_error.h"

namespace distbench::worker {
namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kLengthBytes = static_cast<size_t>(kFrameLengthBytes);

std::string seconds(std::chrono::milliseconds t) {
  return std::to_string(t.count() / 1000) + "." + std::to_string(t.count() % 1000 / 100) + " s";
}

void setTimeouts(int fd, std::chrono::milliseconds timeout) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(timeout.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>(timeout.count() % 1000 * 1000);
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  const int one = 1;
  // Small requests and replies: every frame leaves at once.
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

sockaddr_in ipv4(const std::string& host, int port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  if (::inet_pton(AF_INET, host.c_str(), &a.sin_addr) != 1)
    throw std::invalid_argument("not an IPv4 address: '" + host + "'");
  return a;
}

}  // namespace

std::pair<std::string, int> splitHostPort(const std::string& address) {
  const auto colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == address.size())
    throw std::invalid_argument("not host:port: '" + address + "'");
  const std::string port = address.substr(colon + 1);
  if (port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos)
    throw std::invalid_argument("not host:port: '" + address + "'");
  const int p = std::stoi(port);
  if (p < 1 || p > 65535) throw std::invalid_argument("port out of range: '" + address + "'");
  return {address.substr(0, colon), p};
}

FramedSocket::FramedSocket(int fd, std::string peer, size_t maxFrame,
                           std::chrono::milliseconds timeout)
    : fd_(fd),
      peer_(std::move(peer)),
      maxFrame_(maxFrame),
      timeout_(timeout),
      in_(2 * (maxFrame + kLengthBytes)) {
  setTimeouts(fd_, timeout_);
}

FramedSocket::FramedSocket(FramedSocket&& o) noexcept { *this = std::move(o); }

FramedSocket& FramedSocket::operator=(FramedSocket&& o) noexcept {
  if (this != &o) {
    close();
    fd_ = std::exchange(o.fd_, -1);
    peer_ = std::move(o.peer_);
    maxFrame_ = o.maxFrame_;
    timeout_ = o.timeout_;
    in_ = std::move(o.in_);
    inBegin_ = std::exchange(o.inBegin_, 0);
    inEnd_ = std::exchange(o.inEnd_, 0);
  }
  return *this;
}

FramedSocket::~FramedSocket() { close(); }

void FramedSocket::setTimeout(std::chrono::milliseconds timeout) {
  timeout_ = timeout;
  if (fd_ >= 0) setTimeouts(fd_, timeout_);
}

void FramedSocket::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void FramedSocket::fail(const std::string& what) const {
  throw PeerError("link with " + peer_ + ": " + what);
}

FramedSocket FramedSocket::connect(const std::string& host, int port, std::string peer,
                                   size_t maxFrame, std::chrono::milliseconds timeout) {
  const sockaddr_in a = ipv4(host, port);
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) throw PeerError("link with " + peer + ": socket: " + std::strerror(errno));
  FramedSocket s(fd, std::move(peer), maxFrame, timeout);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0) {
    if (errno != EINPROGRESS)
      s.fail("cannot connect to " + host + ":" + std::to_string(port) + ": " +
             std::strerror(errno));
    pollfd p{fd, POLLOUT, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(timeout.count()));
    int error = 0;
    socklen_t len = sizeof error;
    if (ready == 0)
      s.fail("no connection to " + host + ":" + std::to_string(port) + " within " +
             seconds(timeout));
    if (ready < 0 || ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) != 0 || error != 0)
      s.fail("cannot connect to " + host + ":" + std::to_string(port) + ": " +
             std::strerror(error != 0 ? error : errno));
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return s;
}

void FramedSocket::send(const void* data, size_t bytes) {
  if (fd_ < 0) fail("send on a closed link");
  if (bytes > maxFrame_)
    fail("a frame of " + std::to_string(bytes) + " bytes is over the link's " +
         std::to_string(maxFrame_));
  const uint32_t length = htonl(static_cast<uint32_t>(bytes));
  iovec parts[2] = {{const_cast<uint32_t*>(&length), kLengthBytes},
                    {const_cast<void*>(data), bytes}};
  msghdr m{};
  m.msg_iov = parts;
  m.msg_iovlen = 2;
  size_t left = kLengthBytes + bytes;
  while (left > 0) {
    const ssize_t n = ::sendmsg(fd_, &m, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK)
        fail("send did not complete within " + seconds(timeout_));
      fail(std::string("send failed: ") + std::strerror(errno));
    }
    left -= static_cast<size_t>(n);
    // Skip what went out.
    size_t done = static_cast<size_t>(n);
    while (done > 0 && m.msg_iovlen > 0) {
      iovec& v = m.msg_iov[0];
      const size_t take = std::min(done, v.iov_len);
      v.iov_base = static_cast<char*>(v.iov_base) + take;
      v.iov_len -= take;
      done -= take;
      if (v.iov_len == 0) {
        ++m.msg_iov;
        --m.msg_iovlen;
      }
    }
  }
}

void FramedSocket::fill(size_t want) {
  while (inEnd_ - inBegin_ < want) {
    if (inEnd_ == in_.size() || in_.size() - inBegin_ < want) {
      std::memmove(in_.data(), in_.data() + inBegin_, inEnd_ - inBegin_);
      inEnd_ -= inBegin_;
      inBegin_ = 0;
    }
    const ssize_t n = ::recv(fd_, in_.data() + inEnd_, in_.size() - inEnd_, 0);
    if (n > 0) {
      inEnd_ += static_cast<size_t>(n);
      continue;
    }
    if (n == 0) fail("closed by " + peer_);
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK)
      fail("nothing received within " + seconds(timeout_));
    fail(std::string("receive failed: ") + std::strerror(errno));
  }
}

size_t FramedSocket::receive(void* buffer, size_t capacity) {
  if (fd_ < 0) fail("receive on a closed link");
  fill(kLengthBytes);
  uint32_t length = 0;
  std::memcpy(&length, in_.data() + inBegin_, kLengthBytes);
  length = ntohl(length);
  if (length > capacity || length > maxFrame_)
    fail("refused a frame of " + std::to_string(length) + " bytes, more than the " +
         std::to_string(std::min(capacity, maxFrame_)) + " expected");
  fill(kLengthBytes + length);
  std::memcpy(buffer, in_.data() + inBegin_ + kLengthBytes, length);
  inBegin_ += kLengthBytes + length;
  if (inBegin_ == inEnd_) inBegin_ = inEnd_ = 0;
  return length;
}

FrameListener::FrameListener(const std::string& bindAddress) : host_(bindAddress) {
  const sockaddr_in a = ipv4(bindAddress, 0);
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  const int one = 1;
  ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in bound{};
  socklen_t len = sizeof bound;
  if (::bind(fd_, reinterpret_cast<const sockaddr*>(&a), sizeof a) != 0 || ::listen(fd_, 64) != 0 ||
      ::getsockname(fd_, reinterpret_cast<sockaddr*>(&bound), &len) != 0) {
    const std::string why = std::strerror(errno);
    ::close(fd_);
    throw std::runtime_error("cannot listen on " + bindAddress + ": " + why);
  }
  port_ = ntohs(bound.sin_port);
}

FrameListener::~FrameListener() {
  if (fd_ >= 0) ::close(fd_);
}

std::string FrameListener::address() const { return host_ + ":" + std::to_string(port_); }

int FrameListener::accept(std::chrono::milliseconds timeout) {
  const auto end = Clock::now() + timeout;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now());
    if (left.count() <= 0) return -1;
    pollfd p{fd_, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno != EINTR)
      throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
    if (ready <= 0) continue;
    const int fd = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd >= 0) return fd;
    if (errno != EINTR && errno != ECONNABORTED && errno != EAGAIN)
      throw std::runtime_error(std::string("accept: ") + std::strerror(errno));
  }
}

}  // namespace distbench::worker
