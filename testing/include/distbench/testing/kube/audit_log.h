// Reads kube-apiserver's JSON-lines audit log (KubeTestCluster::auditLogPath)
// into what a test compares with RBAC rules: who asked for which
// (apiGroup, resource[/subresource], verb, namespace), and what the server
// answered; for a delete, which object's UID it was conditioned on.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace distbench::kubetest {

// One audit event (stage ResponseStarted, ResponseComplete or Panic).
struct AuditRecord {
  std::string auditId;
  std::string stage;
  std::string user;
  std::string verb;         // get, list, watch, create, update, patch, delete, ...
  std::string apiGroup;     // "" for the core group
  std::string resource;     // "pods", or "pods/status" for a subresource; "" for non-resource URLs
  std::string ns;           // "" for cluster-scoped objects and non-resource URLs
  std::string name;
  std::string requestUri;
  int code = 0;             // responseStatus.code; 0 when the event has none
  // A delete's DeleteOptions.preconditions.uid (deletes are logged with
  // their body); "" when it has none.
  std::string preconditionUid;
};

// What RBAC authorizes: an API group, a resource (with "/subresource"), a
// verb, in a namespace.
struct AuditRequest {
  std::string apiGroup;
  std::string resource;
  std::string verb;
  std::string ns;
  bool operator<(const AuditRequest& o) const {
    return std::tie(apiGroup, resource, verb, ns) < std::tie(o.apiGroup, o.resource, o.verb, o.ns);
  }
  bool operator==(const AuditRequest& o) const {
    return std::tie(apiGroup, resource, verb, ns) == std::tie(o.apiGroup, o.resource, o.verb, o.ns);
  }
  // "apiGroup/resource:verb in ns", e.g. "/pods:create in bench".
  std::string describe() const;
};

// Every event of the log, in order, from byte `from` on (an auditLogSize()
// taken earlier: what happened since); those of `user` only when it is not
// empty. A line that is not an audit event (a partly written last line) is
// skipped. Throws std::runtime_error when the file cannot be read.
std::vector<AuditRecord> readAuditLog(const std::string& path, const std::string& user = "",
                                      std::uint64_t from = 0);

// The log's size in bytes now (0 when it does not exist yet).
std::uint64_t auditLogSize(const std::string& path);

// user -> the requests of that user's events.
std::map<std::string, std::set<AuditRequest>> auditRequestsByUser(const std::vector<AuditRecord>& records);

}  // namespace distbench::kubetest
