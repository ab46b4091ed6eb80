#include "distbench/http/http_endpoints.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "distbench/http/http_request_head.h"

namespace distbench::http {
namespace {

using Clock = std::chrono::steady_clock;

// What prometheus-cpp's own exposer sends: the text format's version.
constexpr const char* kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";
constexpr const char* kTextContentType = "text/plain; charset=utf-8";
// After the reply, what a client still sends (a body it was told not to
// send) is read and dropped for a moment before the connection closes:
// closing with unread bytes resets the connection, and the reset can
// overtake the reply on its way to the client.
constexpr auto kDrainTime = std::chrono::seconds(1);
constexpr std::size_t kMaxDrainBytes = 64 * 1024;

struct Address {
  std::string host;
  int port;
};

Address parseAddress(const std::string& address) {
  const std::size_t colon = address.rfind(':');
  if (colon == std::string::npos)
    throw std::invalid_argument("http endpoints: address \"" + address + "\" is not host:port");
  Address parsed{address.substr(0, colon), 0};
  if (parsed.host.empty()) parsed.host = "0.0.0.0";
  if (parsed.host.size() > 2 && parsed.host.front() == '[' && parsed.host.back() == ']') {
    parsed.host = parsed.host.substr(1, parsed.host.size() - 2);  // [::]
  }
  const std::string port = address.substr(colon + 1);
  std::size_t used = 0;
  try {
    parsed.port = std::stoi(port, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (port.empty() || used != port.size() || parsed.port < 0 || parsed.port > 65535)
    throw std::invalid_argument("http endpoints: bad port in \"" + address + "\"");
  return parsed;
}

std::string systemError(const std::string& what) { return what + ": " + std::strerror(errno); }

// A listening socket on `address` (port 0: one the kernel picks), and the
// port it got. Throws std::runtime_error.
int listenOn(const Address& address, int& port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(address.port);
  if (const int rc = ::getaddrinfo(address.host.c_str(), service.c_str(), &hints, &found)) {
    throw std::runtime_error("cannot resolve " + address.host + ": " + ::gai_strerror(rc));
  }
  std::string lastError = "no address";
  int fd = -1;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      lastError = systemError("socket");
      continue;
    }
    // A restarted operator binds at once, whatever its last connections'
    // TIME_WAIT; a port another socket listens on is still refused.
    const int on = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    // The kernel's whole backlog: a burst of connections waits there to be
    // accepted (and, over the bound, to take an idle one's place) rather
    // than have its SYNs dropped and retried a second later.
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, SOMAXCONN) != 0) {
      lastError = systemError("bind");
      ::close(fd);
      fd = -1;
    }
  }
  ::freeaddrinfo(found);
  if (fd < 0) throw std::runtime_error(lastError);
  sockaddr_storage bound{};
  socklen_t length = sizeof bound;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length);
  port = bound.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port)
                                     : ntohs(reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  return fd;
}

struct Reply {
  int status = 200;
  std::string body;
  const char* contentType = kTextContentType;
  bool allowGet = false;
};

const char* reason(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 400:
      return "Bad Request";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 413:
      return "Payload Too Large";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    case 505:
      return "HTTP Version Not Supported";
  }
  return "Error";
}

// Every reply closes its connection: one request per connection keeps each
// connection's life, and what it may hold, short.
std::string serialize(const Reply& reply) {
  std::string out = "HTTP/1.1 " + std::to_string(reply.status) + " " + reason(reply.status) +
                    "\r\nContent-Type: " + reply.contentType +
                    "\r\nContent-Length: " + std::to_string(reply.body.size()) +
                    "\r\nConnection: close\r\n";
  if (reply.allowGet) out += "Allow: GET\r\n";
  return out + "\r\n" + reply.body;
}

// The text after the first line break is dropped: a probe's output is one
// line in `kubectl describe pod`.
std::string firstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

struct Connection {
  enum class State { Head, Writing, Draining };
  int fd = -1;
  State state = State::Head;
  std::string in;   // the head so far
  std::string out;  // the reply
  std::size_t sent = 0;
  std::size_t drained = 0;
  Clock::time_point accepted;
  Clock::time_point deadline;
};

}  // namespace

struct HttpEndpoints::Impl {
  Address address;
  std::function<std::string()> metrics;
  std::function<bool()> ready;
  ErrorSink onError;

  void report(const std::string& what, const std::string& error) const {
    if (onError) {
      onError(what, error);
    } else {
      std::fprintf(stderr, "%s: %s\n", what.c_str(), error.c_str());
    }
  }

  std::mutex mutex;  // guards started, listenFd, wake and loop
  bool started = false;
  int listenFd = -1;
  int wake[2] = {-1, -1};  // written to stop the loop
  std::thread loop;
  std::atomic<int> port{0};

  Reply respond(const HttpRequestHead& request) const {
    const std::string& path = request.path;
    const bool known = path == "/metrics" || path == "/healthz" || path == "/readyz";
    if (!known) return {404, "not found: " + path + "\n"};
    if (request.method != "GET") return {405, "only GET\n", kTextContentType, true};
    if (path == "/healthz") return {200, "ok\n"};
    if (path == "/readyz") {
      try {
        if (ready()) return {200, "ok\n"};
        return {503, "not ready\n"};
      } catch (const std::exception& e) {
        return {503, "not ready: " + firstLine(e.what()) + "\n"};
      }
    }
    try {
      return {200, metrics(), kMetricsContentType};
    } catch (const std::exception& e) {
      report("serving /metrics failed", e.what());
      return {500, "metrics failed: " + firstLine(e.what()) + "\n"};
    }
  }

  static void reply(Connection& c, const Reply& r, Clock::time_point now) {
    c.out = serialize(r);
    c.in.clear();
    c.in.shrink_to_fit();
    c.state = Connection::State::Writing;
    c.deadline = now + kHttpIoTimeout;
  }

  // Reads what the head's connection has; replies once the head is whole,
  // too large or too late. False: close it.
  bool readHead(Connection& c, Clock::time_point now) {
    char buffer[4096];
    // One byte over the bound is enough to know the head is too large.
    const std::size_t room = kMaxHttpHeadBytes + 1 - c.in.size();
    const ssize_t n = ::recv(c.fd, buffer, std::min(room, sizeof buffer), 0);
    if (n == 0) return false;  // the client gave up
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
    const std::size_t searchFrom = c.in.size() < 3 ? 0 : c.in.size() - 3;
    c.in.append(buffer, static_cast<std::size_t>(n));
    const std::size_t end = requestHeadEnd(std::string_view(c.in).substr(searchFrom));
    if (end != std::string_view::npos) {
      const HttpRequestHead head =
          parseRequestHead(std::string_view(c.in).substr(0, searchFrom + end));
      reply(c, head.refusal ? Reply{head.refusal, head.why + "\n"} : respond(head), now);
    } else if (c.in.size() > kMaxHttpHeadBytes) {
      reply(c, {431, "the request head is over " + std::to_string(kMaxHttpHeadBytes) + " bytes\n"},
            now);
    }
    return true;
  }

  // False: close it.
  static bool write(Connection& c, Clock::time_point now) {
    const ssize_t n =
        ::send(c.fd, c.out.data() + c.sent, c.out.size() - c.sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
    c.sent += static_cast<std::size_t>(n);
    if (c.sent < c.out.size()) return true;
    ::shutdown(c.fd, SHUT_WR);
    c.out.clear();
    c.out.shrink_to_fit();
    c.state = Connection::State::Draining;
    c.deadline = now + kDrainTime;
    return true;
  }

  // False: close it.
  static bool drain(Connection& c) {
    char buffer[4096];
    const ssize_t n = ::recv(c.fd, buffer, sizeof buffer, 0);
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
    c.drained += static_cast<std::size_t>(n);
    return n > 0 && c.drained <= kMaxDrainBytes;
  }

  // Advances `c` on its poll events or deadline. False: close it.
  bool step(Connection& c, short events, Clock::time_point now) {
    if (now >= c.deadline) {
      if (c.state != Connection::State::Head) return false;
      // Too slow a head: say so, then give the reply its own deadline.
      reply(c,
            {408, "the request head took over " + std::to_string(kHttpIoTimeout.count() / 1000) +
                      " s\n"},
            now);
      return true;
    }
    if (events == 0) return true;
    switch (c.state) {
      case Connection::State::Head:
        return readHead(c, now);
      case Connection::State::Writing:
        return (events & (POLLERR | POLLHUP)) == 0 && write(c, now);
      case Connection::State::Draining:
        return drain(c);
    }
    return false;
  }

  // At the bound, a new connection takes the place of the oldest one that is
  // not being answered (still sending its head, or done): idle or slow
  // connections cannot keep a probe out. Only when every place is answering
  // is the new one closed.
  static bool makeRoom(std::vector<Connection>& connections) {
    if (connections.size() < static_cast<std::size_t>(kMaxHttpConnections)) return true;
    auto oldest = connections.end();
    for (auto it = connections.begin(); it != connections.end(); ++it) {
      if (it->state == Connection::State::Writing) continue;
      if (oldest == connections.end() || it->accepted < oldest->accepted) oldest = it;
    }
    if (oldest == connections.end()) return false;
    ::close(oldest->fd);
    connections.erase(oldest);
    return true;
  }

  void accept(std::vector<Connection>& connections, int listenSocket, Clock::time_point now) {
    for (int i = 0; i < kMaxHttpConnections; ++i) {
      const int fd = ::accept4(listenSocket, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) return;  // EAGAIN: none left; anything else: the next round
      if (!makeRoom(connections)) {
        ::close(fd);
        continue;
      }
      Connection c;
      c.fd = fd;
      c.accepted = now;
      c.deadline = now + kHttpIoTimeout;
      connections.push_back(std::move(c));
    }
  }

  void serve(int listenSocket, int wakeFd) {
    std::vector<Connection> connections;
    std::vector<pollfd> fds;
    while (true) {
      fds.assign({{wakeFd, POLLIN, 0}, {listenSocket, POLLIN, 0}});
      Clock::time_point next = Clock::time_point::max();
      for (const Connection& c : connections) {
        fds.push_back({c.fd,
                       static_cast<short>(c.state == Connection::State::Writing ? POLLOUT : POLLIN),
                       0});
        next = std::min(next, c.deadline);
      }
      int waitMs = -1;
      if (next != Clock::time_point::max()) {
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(next - Clock::now()).count();
        waitMs = static_cast<int>(std::clamp<long long>(left, 0, 60000));
      }
      if (::poll(fds.data(), fds.size(), waitMs) < 0 && errno != EINTR) {
        report("http endpoints: poll failed", std::strerror(errno));
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
        continue;
      }
      if (fds[0].revents != 0) break;  // stop()
      const Clock::time_point now = Clock::now();
      std::vector<Connection> kept;
      kept.reserve(connections.size());
      for (std::size_t i = 0; i < connections.size(); ++i) {
        if (step(connections[i], fds[i + 2].revents, now)) {
          kept.push_back(std::move(connections[i]));
        } else {
          ::close(connections[i].fd);
        }
      }
      connections = std::move(kept);
      if (fds[1].revents != 0) accept(connections, listenSocket, now);
    }
    for (const Connection& c : connections) ::close(c.fd);
  }
};

HttpEndpoints::HttpEndpoints(std::string address, std::function<std::string()> metrics,
                             std::function<bool()> ready, ErrorSink onError)
    : impl_(std::make_unique<Impl>()) {
  impl_->onError = std::move(onError);
  impl_->address = parseAddress(address);
  impl_->metrics = std::move(metrics);
  impl_->ready = std::move(ready);
}

HttpEndpoints::~HttpEndpoints() { stop(); }

void HttpEndpoints::start() {
  Impl& m = *impl_;
  std::lock_guard<std::mutex> lock(m.mutex);
  if (m.started) throw std::logic_error("http endpoints: started twice");
  m.started = true;
  int port = 0;
  try {
    m.listenFd = listenOn(m.address, port);
  } catch (const std::exception& e) {
    throw std::runtime_error("http endpoints: cannot listen on " + m.address.host + ":" +
                             std::to_string(m.address.port) + ": " + e.what());
  }
  if (::pipe2(m.wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    const std::string why = systemError("pipe");
    ::close(m.listenFd);
    m.listenFd = -1;
    throw std::runtime_error("http endpoints: " + why);
  }
  m.port = port;
  m.loop = std::thread(
      [&m, listenSocket = m.listenFd, wakeFd = m.wake[0]] { m.serve(listenSocket, wakeFd); });
}

void HttpEndpoints::stop() {
  Impl& m = *impl_;
  std::lock_guard<std::mutex> lock(m.mutex);
  if (!m.loop.joinable()) return;
  const char byte = 0;
  if (::write(m.wake[1], &byte, 1) != 1) {
    m.report("http endpoints: cannot wake the loop", std::strerror(errno));
  }
  m.loop.join();
  ::close(m.listenFd);
  ::close(m.wake[0]);
  ::close(m.wake[1]);
  m.listenFd = -1;
  m.wake[0] = m.wake[1] = -1;
}

int HttpEndpoints::port() const { return impl_->port.load(); }

}  // namespace distbench::http
