// A small client of the Kubernetes REST API over cpprestsdk: JSON in and
// out, TLS verified against the cluster's CA, bearer token or client
// certificate. Errors carry the API's Status (code, reason, message), so a
// caller can tell 404 from 409 from 410 and a person reads what the API
// server said.
#pragma once

#include <cpprest/json.h>
#include <pplx/pplxtasks.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "distbench/kube/kube_config.h"

namespace distbench::kube {

class KubeApiError : public std::runtime_error {
 public:
  // code 0: the request never got an HTTP answer (connection, TLS, timeout).
  KubeApiError(int code, std::string reason, const std::string& message)
      : std::runtime_error(message), code_(code), reason_(std::move(reason)) {}
  int code() const { return code_; }
  const std::string& reason() const { return reason_; }  // "NotFound", "Conflict", "Expired"
  bool notFound() const { return code_ == 404; }
  bool conflict() const { return code_ == 409; }
  bool alreadyExists() const { return code_ == 409 && reason_ == "AlreadyExists"; }
  bool gone() const { return code_ == 410; }
  // The server judged the request itself (admission, quota, a LimitRange,
  // validation): sending it again as it is gets the same answer.
  bool refused() const { return code_ == 400 || code_ == 403 || code_ == 422; }
  // The server failed to judge the request (an admission webhook that does
  // not answer, an overloaded API server): it may answer so for as long as
  // the cause lasts.
  bool serverFailed() const { return code_ >= 500; }
  // No answer (code 0: no connection, a timeout), too many requests, or a
  // failure on the server's side: nothing to change in the request, and a
  // retry may succeed once the server is back (work_queue.h retries these
  // within seconds).
  bool unavailable() const { return code_ == 0 || code_ == 429 || code_ >= 500; }

 private:
  int code_;
  std::string reason_;
};

// A 2xx answer longer than the caller allowed (getText's `maxBytes`): no
// more of it was read than that, and the connection was dropped.
class ResponseTooLarge : public KubeApiError {
 public:
  ResponseTooLarge(int code, std::size_t limit, const std::string& message)
      : KubeApiError(code, "ResponseTooLarge", message), limit_(limit) {}
  std::size_t limit() const { return limit_; }

 private:
  std::size_t limit_;
};

struct WatchEvent {
  std::string type;  // ADDED, MODIFIED, DELETED, BOOKMARK, ERROR
  web::json::value object;
};

// metav1.DeleteOptions, the fields the operator sets.
struct DeleteOptions {
  // Unset: the object's own (a pod's terminationGracePeriodSeconds); 0
  // removes a pod at once, without waiting for its kubelet.
  std::optional<int64_t> gracePeriodSeconds;
  // preconditions.uid: deletes only this incarnation of the name.
  std::string uid;
};

class KubeClient {
 public:
  explicit KubeClient(KubeConfig config,
                      std::chrono::seconds requestTimeout = std::chrono::seconds(30));
  ~KubeClient();

  const KubeConfig& config() const { return config_; }

  // `path` is the API path with any query, e.g. "/api/v1/namespaces/x/pods".
  web::json::value get(const std::string& path);
  // A body that is not JSON, such as a pod's log (".../pods/<name>/log"),
  // of at most `maxBytes`: a longer one throws ResponseTooLarge once that
  // much has come, so that memory stays bounded whatever the other end
  // sends (cpprest would otherwise buffer the whole body as fast as it
  // arrives, whether or not anyone reads it).
  std::string getText(const std::string& path, std::size_t maxBytes);
  web::json::value create(const std::string& path, const web::json::value& body);
  web::json::value replace(const std::string& path, const web::json::value& body);
  // JSON merge patch (RFC 7386); for `/status` paths too.
  web::json::value mergePatch(const std::string& path, const web::json::value& patch);
  // Deletes with propagationPolicy Background; a 404 is not an error, nor
  // (with `options.uid`) a 409 from an object of that name with another UID.
  void remove(const std::string& path, const DeleteOptions& options = {});

  // Streams the events of `path` (a collection) from `resourceVersion`,
  // with bookmarks, until the server ends the stream (after
  // `timeoutSeconds`), `onEvent` returns false, or `cancel` fires. A 410
  // (as HTTP status) throws KubeApiError; an ERROR event is handed to
  // `onEvent` like any other.
  void watch(const std::string& path, const std::string& resourceVersion, int timeoutSeconds,
             const std::function<bool(const WatchEvent&)>& onEvent,
             pplx::cancellation_token cancel = pplx::cancellation_token::none());

 private:
  web::json::value request(const std::string& method, const std::string& path,
                           const web::json::value* body, const std::string& contentType);
  // The body of a 2xx answer as it came; other answers throw KubeApiError.
  // `maxBytes` 0: no bound (the API server's own objects).
  std::string requestText(const std::string& method, const std::string& path,
                          const web::json::value* body, const std::string& contentType,
                          const std::string& accept, std::size_t maxBytes = 0);

  struct Http;
  KubeConfig config_;
  std::unique_ptr<Http> http_;
  std::chrono::seconds requestTimeout_;
};

// "/api/v1/namespaces/<ns>/<plural>" and "/apis/<group>/<version>/…" paths.
std::string corePath(const std::string& ns, const std::string& plural,
                     const std::string& name = "");
std::string groupPath(const std::string& group, const std::string& version, const std::string& ns,
                      const std::string& plural, const std::string& name = "");
// Whether the API server serves the collection at `path` (a list of one:
// it needs only the list right a controller holds anyway, and answers 404
// exactly when the resource is not served). Throws KubeApiError when it
// cannot tell.
bool collectionServed(KubeClient& client, const std::string& path);
// Query-string value escaping for label selectors and the like.
std::string queryEscape(const std::string& value);

}  // namespace distbench::kube
