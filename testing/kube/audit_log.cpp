#include "distbench/testing/kube/audit_log.h"

#include <cpprest/json.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace distbench::kubetest {
namespace {

std::string field(const web::json::value& object, const char* name) {
  if (!object.is_object() || !object.has_field(name) || !object.at(name).is_string()) return "";
  return utility::conversions::to_utf8string(object.at(name).as_string());
}

}  // namespace

std::string AuditRequest::describe() const {
  return apiGroup + "/" + resource + ":" + verb + (ns.empty() ? "" : " in " + ns);
}

std::uint64_t auditLogSize(const std::string& path) {
  std::error_code error;
  const auto size = std::filesystem::file_size(path, error);
  return error ? 0 : static_cast<std::uint64_t>(size);
}

std::vector<AuditRecord> readAuditLog(const std::string& path, const std::string& user, std::uint64_t from) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read the audit log " + path);
  in.seekg(static_cast<std::streamoff>(from));
  std::vector<AuditRecord> records;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    // Cheap pre-filter: most lines of a shared cluster's log are the admin's.
    if (!user.empty() && line.find("\"" + user + "\"") == std::string::npos) continue;
    web::json::value event;
    try {
      event = web::json::value::parse(line);
    } catch (const std::exception&) {
      continue;
    }
    if (!event.is_object() || field(event, "kind") != "Event") continue;
    AuditRecord r;
    r.auditId = field(event, "auditID");
    r.stage = field(event, "stage");
    r.user = event.has_field("user") ? field(event.at("user"), "username") : "";
    if (!user.empty() && r.user != user) continue;
    r.verb = field(event, "verb");
    r.requestUri = field(event, "requestURI");
    if (event.has_field("objectRef")) {
      const web::json::value& ref = event.at("objectRef");
      r.apiGroup = field(ref, "apiGroup");
      r.resource = field(ref, "resource");
      const std::string sub = field(ref, "subresource");
      if (!sub.empty()) r.resource += "/" + sub;
      r.ns = field(ref, "namespace");
      r.name = field(ref, "name");
    }
    if (event.has_field("responseStatus") && event.at("responseStatus").has_field("code"))
      r.code = event.at("responseStatus").at("code").as_integer();
    if (event.has_field("requestObject") && event.at("requestObject").is_object() &&
        event.at("requestObject").has_field("preconditions"))
      r.preconditionUid = field(event.at("requestObject").at("preconditions"), "uid");
    records.push_back(std::move(r));
  }
  return records;
}

std::map<std::string, std::set<AuditRequest>> auditRequestsByUser(const std::vector<AuditRecord>& records) {
  std::map<std::string, std::set<AuditRequest>> byUser;
  for (const AuditRecord& r : records) byUser[r.user].insert({r.apiGroup, r.resource, r.verb, r.ns});
  return byUser;
}

}  // namespace distbench::kubetest
