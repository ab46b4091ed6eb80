#include "distbench/kube/kube_client.h"

#include <cpprest/containerstream.h>
#include <cpprest/http_client.h>
#include <cpprest/rawptrstream.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/ssl.hpp>
#include <cctype>
#include <fstream>
#include <mutex>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <vector>

#include "distbench/kube/bounded_message.h"

namespace distbench::kube {
namespace {

using web::http::http_request;
using web::http::http_response;
using web::http::method;
using web::http::client::http_client;
using web::http::client::http_client_config;
using web::json::value;

// Thrown by the progress handler of a bounded read: cpprest then drops the
// connection and fails the body with this.
struct BodyOverLimit : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string trimNewline(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

// The cluster's CA as one X509 store, shared by every connection of a
// client. cpprest builds an SSL context per connection and fills it with the
// system's CA bundle first (some 140 certificates, about half a megabyte
// parsed); replacing that with this store keeps each connection small, and
// trusts exactly the CA the kubeconfig names, as kubectl does.
std::shared_ptr<X509_STORE> clusterTrust(const std::string& caPem) {
  std::shared_ptr<X509_STORE> store(X509_STORE_new(), X509_STORE_free);
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(caPem.data(), static_cast<int>(caPem.size())),
                                                BIO_free);
  int added = 0;
  while (X509* cert = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    if (X509_STORE_add_cert(store.get(), cert) == 1) ++added;
    X509_free(cert);
  }
  ERR_clear_error();  // the read that ends the loop leaves "no start line"
  if (added == 0) throw KubeApiError(0, "", "the cluster CA holds no PEM certificate");
  return store;
}

http_client_config clientConfig(const KubeConfig& c, std::chrono::seconds timeout) {
  http_client_config config;
  config.set_timeout(timeout);
  config.set_validate_certificates(true);
  const std::string cert = c.clientCertPem, key = c.clientKeyPem;
  std::shared_ptr<X509_STORE> trust = c.caPem.empty() ? nullptr : clusterTrust(c.caPem);
  config.set_ssl_context_callback([trust, cert, key](boost::asio::ssl::context& ctx) {
    // Idle connections in the pool give their read and write buffers back.
    SSL_CTX_set_mode(ctx.native_handle(), SSL_MODE_RELEASE_BUFFERS);
    if (trust) SSL_CTX_set1_cert_store(ctx.native_handle(), trust.get());
    if (!cert.empty()) {
      ctx.use_certificate_chain(boost::asio::buffer(cert.data(), cert.size()));
      ctx.use_private_key(boost::asio::buffer(key.data(), key.size()),
                          boost::asio::ssl::context::pem);
    }
  });
  return config;
}

// The API answers errors with a Status object; anything else (a proxy's
// HTML, an empty body) still gets its code and text into the message.
KubeApiError apiError(int code, const std::string& body, const std::string& what) {
  try {
    const value status = value::parse(body);
    if (status.is_object() && status.has_field("message")) {
      const std::string reason =
          status.has_field("reason") ? status.at("reason").as_string() : std::string();
      return KubeApiError(code, reason,
                          what + ": " + std::to_string(code) +
                              (reason.empty() ? "" : " " + reason) + ": " +
                              status.at("message").as_string());
    }
  } catch (const std::exception&) {
  }
  return KubeApiError(code, "", what + ": HTTP " + std::to_string(code) + ": " + truncateUtf8(body, 200));
}

}  // namespace

struct KubeClient::Http {
  Http(const KubeConfig& c, std::chrono::seconds timeout) : client(c.server, clientConfig(c, timeout)) {}
  http_client client;
  std::mutex tokenMutex;
};

KubeClient::KubeClient(KubeConfig config, std::chrono::seconds requestTimeout)
    : config_(std::move(config)),
      http_(std::make_unique<Http>(config_, requestTimeout)),
      requestTimeout_(requestTimeout) {}

KubeClient::~KubeClient() = default;

value KubeClient::request(const std::string& verb, const std::string& path, const value* body,
                          const std::string& contentType) {
  const std::string text = requestText(verb, path, body, contentType, "application/json");
  if (text.empty()) return value::object();
  try {
    return value::parse(text);
  } catch (const std::exception& e) {
    throw KubeApiError(200, "", verb + " " + path + ": response is not JSON: " + e.what());
  }
}

std::string KubeClient::requestText(const std::string& verb, const std::string& path,
                                    const value* body, const std::string& contentType,
                                    const std::string& accept, std::size_t maxBytes) {
  const std::string what = verb + " " + path;
  for (int attempt = 0;; ++attempt) {
    http_request req{method(verb)};
    req.set_request_uri(path);
    req.headers().add("Accept", accept);
    std::string token;
    {
      std::lock_guard<std::mutex> lock(http_->tokenMutex);
      token = config_.token;
    }
    if (!token.empty()) req.headers().add("Authorization", "Bearer " + token);
    if (body != nullptr) req.set_body(body->serialize(), contentType);
    // A bounded read lands in a block of `maxBytes`: writing past its end
    // fails the body. A chunked body is stopped by the progress handler one
    // chunk before that; one with a Content-Length is judged by the header.
    std::vector<uint8_t> block;
    std::optional<Concurrency::streams::rawptr_buffer<uint8_t>> sink;
    auto overLimit = std::make_shared<std::atomic<bool>>(false);
    if (maxBytes > 0) {
      block.resize(maxBytes);
      sink.emplace(block.data(), block.size(), std::ios_base::out);
      req.set_response_stream(Concurrency::streams::ostream(*sink));
      req.set_progress_handler([maxBytes, overLimit](web::http::message_direction::direction d,
                                                     utility::size64_t soFar) {
        if (d == web::http::message_direction::download && soFar > maxBytes) {
          overLimit->store(true);
          throw BodyOverLimit("the answer is longer than " + std::to_string(maxBytes) + " bytes");
        }
      });
    }
    http_response response;
    std::string text;
    bool tooLarge = false;
    try {
      response = http_->client.request(req).get();
      if (!sink) {
        text = response.extract_string(true).get();
      } else {
        // Waited for even when the answer is too large: until the body is
        // done, cpprest may still write into `block`.
        try {
          response.content_ready().get();
        } catch (const std::exception&) {
          if (!overLimit->load() && response.headers().content_length() <= maxBytes) throw;
          tooLarge = true;
        }
        const auto got = static_cast<std::size_t>(sink->getpos(std::ios_base::out));
        text.assign(block.begin(), block.begin() + static_cast<std::ptrdiff_t>(std::min(got, maxBytes)));
      }
    } catch (const std::exception& e) {
      throw KubeApiError(0, "", what + ": " + e.what());
    }
    const int code = response.status_code();
    if (tooLarge && code >= 200 && code < 300) {
      throw ResponseTooLarge(code, maxBytes,
                             what + ": the answer is longer than " + std::to_string(maxBytes) +
                                 " bytes; no more of it was read");
    }
    // Service-account tokens rotate in place: re-read once, then give up.
    if (code == 401 && attempt == 0 && !config_.tokenFile.empty()) {
      std::ifstream in(config_.tokenFile);
      std::string fresh;
      if (in && std::getline(in, fresh)) {
        std::lock_guard<std::mutex> lock(http_->tokenMutex);
        config_.token = trimNewline(fresh);
      }
      continue;
    }
    if (code < 200 || code >= 300) throw apiError(code, text, what);
    return text;
  }
}

value KubeClient::get(const std::string& path) { return request("GET", path, nullptr, ""); }

std::string KubeClient::getText(const std::string& path, std::size_t maxBytes) {
  return requestText("GET", path, nullptr, "", "text/plain, */*", maxBytes);
}

value KubeClient::create(const std::string& path, const value& body) {
  return request("POST", path, &body, "application/json");
}

value KubeClient::replace(const std::string& path, const value& body) {
  return request("PUT", path, &body, "application/json");
}

value KubeClient::mergePatch(const std::string& path, const value& patch) {
  return request("PATCH", path, &patch, "application/merge-patch+json");
}

void KubeClient::remove(const std::string& path, const DeleteOptions& options) {
  value body = value::object();
  body["propagationPolicy"] = value::string("Background");
  if (options.gracePeriodSeconds)
    body["gracePeriodSeconds"] = value::number(*options.gracePeriodSeconds);
  if (!options.uid.empty()) body["preconditions"]["uid"] = value::string(options.uid);
  try {
    request("DELETE", path, &body, "application/json");
  } catch (const KubeApiError& e) {
    if (e.notFound() || (!options.uid.empty() && e.conflict())) return;
    throw;
  }
}

void KubeClient::watch(const std::string& path, const std::string& resourceVersion,
                       int timeoutSeconds, const std::function<bool(const WatchEvent&)>& onEvent,
                       pplx::cancellation_token cancel) {
  const std::string query = std::string(path.find('?') == std::string::npos ? "?" : "&") +
                            "watch=1&allowWatchBookmarks=true&timeoutSeconds=" +
                            std::to_string(timeoutSeconds) +
                            (resourceVersion.empty() ? "" : "&resourceVersion=" + resourceVersion);
  const std::string what = "WATCH " + path;
  // Its own client: the stream may stay open far longer than a request.
  http_client streaming(config_.server,
                        clientConfig(config_, std::chrono::seconds(timeoutSeconds + 30)));
  http_request req{method("GET")};
  req.set_request_uri(path + query);
  req.headers().add("Accept", "application/json");
  {
    std::lock_guard<std::mutex> lock(http_->tokenMutex);
    if (!config_.token.empty()) req.headers().add("Authorization", "Bearer " + config_.token);
  }
  http_response response;
  try {
    // Returns when the headers arrive; the body streams after.
    response = streaming.request(req, cancel).get();
  } catch (const std::exception& e) {
    throw KubeApiError(0, "", what + ": " + e.what());
  }
  if (response.status_code() != 200) {
    throw apiError(response.status_code(), response.extract_string(true).get(), what);
  }
  // Read in blocks, not with read_line: that takes the stream's lock and a
  // task continuation per byte, and a burst of new benchmarks streams
  // megabytes of pods (a third of the operator's CPU went to it). Wait for
  // one byte, then take whatever else has arrived, and split lines here.
  auto body = response.body().streambuf();
  using traits = Concurrency::streams::char_traits<uint8_t>;
  std::string pending, chunk;
  try {
    while (!cancel.is_canceled()) {
      const auto first = body.bumpc().get();
      if (first == traits::eof()) return;  // the server ended the watch
      pending.push_back(static_cast<char>(first));
      if (const size_t avail = body.in_avail(); avail > 0) {
        chunk.resize(avail);
        const size_t n = body.getn(reinterpret_cast<uint8_t*>(chunk.data()), avail).get();
        pending.append(chunk, 0, n);
      }
      size_t start = 0;
      for (size_t end; (end = pending.find('\n', start)) != std::string::npos; start = end + 1) {
        if (end == start) continue;
        const value event = value::parse(pending.substr(start, end - start));
        if (!onEvent({event.at("type").as_string(), event.at("object")})) return;
      }
      pending.erase(0, start);
    }
  } catch (const pplx::task_canceled&) {
    return;
  } catch (const std::exception& e) {
    if (cancel.is_canceled()) return;
    throw KubeApiError(0, "", what + ": stream broke: " + e.what());
  }
}

std::string corePath(const std::string& ns, const std::string& plural, const std::string& name) {
  return "/api/v1/" + (ns.empty() ? "" : "namespaces/" + ns + "/") + plural +
         (name.empty() ? "" : "/" + name);
}

std::string groupPath(const std::string& group, const std::string& version, const std::string& ns,
                      const std::string& plural, const std::string& name) {
  return "/apis/" + group + "/" + version + "/" + (ns.empty() ? "" : "namespaces/" + ns + "/") +
         plural + (name.empty() ? "" : "/" + name);
}

std::string queryEscape(const std::string& v) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : v) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

bool collectionServed(KubeClient& client, const std::string& path) {
  try {
    client.get(path + "?limit=1");
    return true;
  } catch (const KubeApiError& e) {
    if (e.notFound()) return false;
    throw;
  }
}

}  // namespace distbench::kube
