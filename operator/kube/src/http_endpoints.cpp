#include "distbench/kube/http_endpoints.h"

#include <arpa/inet.h>
#include <cpprest/http_listener.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <set>
#include <stdexcept>

#include "distbench/kube/log.h"

namespace distbench::op {
namespace {

using web::http::http_request;
using web::http::http_response;
using web::http::status_code;
using web::http::status_codes;
using web::http::experimental::listener::http_listener;

// What prometheus-cpp's own exposer sends: the text format's version.
constexpr const char* kMetricsContentType = "text/plain; version=0.0.4; charset=utf-8";
// A port that we picked can be taken by another process before we listen on
// it; a few tries make that race practically unlosable.
constexpr int kPickAttempts = 5;

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

// cpprest's listener cannot say which port it bound when asked for port 0
// (uri() keeps the 0, and the acceptor is private), so for port 0 we ask the
// kernel for a free port ourselves, release it, and listen on that.
int pickFreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0)
    throw std::runtime_error(std::string("http endpoints: socket: ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_ANY);
  addr.sin_port = 0;
  socklen_t length = sizeof addr;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length) != 0) {
    const std::string why = std::strerror(errno);
    ::close(fd);
    throw std::runtime_error("http endpoints: cannot pick a free port: " + why);
  }
  ::close(fd);
  return ntohs(addr.sin_port);
}

http_response textResponse(status_code status, std::string body,
                           const std::string& contentType = "text/plain; charset=utf-8") {
  http_response response(status);
  response.set_body(std::move(body), contentType);
  return response;
}

// cpprest keeps one registry of listeners per process, and a second listener
// on a host:port that the process already serves does not just fail: its
// clean-up unregisters the first one, which then stops answering. So
// HttpEndpoints keep their own list and refuse a duplicate before cpprest
// sees it.
class ClaimedAddresses {
 public:
  bool claim(const std::string& hostPort) {
    std::lock_guard<std::mutex> lock(mutex_);
    return claimed_.insert(hostPort).second;
  }
  void release(const std::string& hostPort) {
    std::lock_guard<std::mutex> lock(mutex_);
    claimed_.erase(hostPort);
  }

 private:
  std::mutex mutex_;
  std::set<std::string> claimed_;
};

ClaimedAddresses& claimedAddresses() {
  static ClaimedAddresses* claimed = new ClaimedAddresses;  // outlives static destructors
  return *claimed;
}

// The text after the first line break is dropped: a probe's output is one
// line in `kubectl describe pod`.
std::string firstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

}  // namespace

struct HttpEndpoints::Impl {
  Address address;
  std::function<std::string()> metrics;
  std::function<bool()> ready;

  std::mutex mutex;  // guards listener, claimed and started
  std::unique_ptr<http_listener> listener;
  std::string claimed;  // host:port, while listening
  bool started = false;
  std::atomic<int> port{0};

  http_response respond(const http_request& request) const {
    const std::string path = request.relative_uri().path();
    const bool known = path == "/metrics" || path == "/healthz" || path == "/readyz";
    if (!known) return textResponse(status_codes::NotFound, "not found: " + path + "\n");
    if (request.method() != web::http::methods::GET) {
      http_response response = textResponse(status_codes::MethodNotAllowed, "only GET\n");
      response.headers().add("Allow", "GET");
      return response;
    }
    if (path == "/healthz") return textResponse(status_codes::OK, "ok\n");
    if (path == "/readyz") {
      try {
        if (ready()) return textResponse(status_codes::OK, "ok\n");
        return textResponse(status_codes::ServiceUnavailable, "not ready\n");
      } catch (const std::exception& e) {
        return textResponse(status_codes::ServiceUnavailable,
                            "not ready: " + firstLine(e.what()) + "\n");
      }
    }
    try {
      return textResponse(status_codes::OK, metrics(), kMetricsContentType);
    } catch (const std::exception& e) {
      log::error("serving /metrics failed", {{"error", e.what()}});
      return textResponse(status_codes::InternalError,
                          "metrics failed: " + firstLine(e.what()) + "\n");
    }
  }

  void handle(const http_request& request) const {
    // A client that hung up makes reply() fail; nobody is left to tell, but an
    // unobserved task exception would terminate the process.
    request.reply(respond(request)).then([](pplx::task<void> sent) {
      try {
        sent.get();
      } catch (const std::exception&) {
      }
    });
  }

  // Listens on `onPort`, or throws. Holds `mutex`.
  void listen(int onPort) {
    const std::string hostPort = address.host + ":" + std::to_string(onPort);
    if (!claimedAddresses().claim(hostPort))
      throw std::runtime_error("this process already serves " + hostPort);
    try {
      auto candidate = std::make_unique<http_listener>("http://" + hostPort + "/");
      candidate->support([this](const http_request& request) { handle(request); });
      candidate->open().wait();
      listener = std::move(candidate);
      claimed = hostPort;
      port = onPort;
    } catch (...) {
      claimedAddresses().release(hostPort);
      throw;
    }
  }
};

HttpEndpoints::HttpEndpoints(std::string address, std::function<std::string()> metrics,
                             std::function<bool()> ready)
    : impl_(std::make_unique<Impl>()) {
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
  const bool pick = m.address.port == 0;
  std::string lastError;
  for (int attempt = 0; attempt < (pick ? kPickAttempts : 1); ++attempt) {
    const int port = pick ? pickFreePort() : m.address.port;
    try {
      m.listen(port);
      return;
    } catch (const std::exception& e) {
      lastError = e.what();
    }
  }
  throw std::runtime_error("http endpoints: cannot listen on " + m.address.host + ":" +
                           std::to_string(m.address.port) + ": " + lastError);
}

void HttpEndpoints::stop() {
  std::unique_ptr<http_listener> listener;
  std::string claimed;
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    listener = std::move(impl_->listener);
    claimed = std::move(impl_->claimed);
  }
  if (!listener) return;
  try {
    listener->close().wait();
  } catch (const std::exception& e) {
    log::warn("closing the http endpoints failed", {{"error", e.what()}});
  }
  claimedAddresses().release(claimed);
}

int HttpEndpoints::port() const { return impl_->port.load(); }

}  // namespace distbench::op
