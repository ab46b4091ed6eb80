#include "distbench/operator/preflight/kueue_workload.h"

#include <algorithm>

#include "distbench/kube/bounded_message.h"
#include "distbench/kube/json_fields.h"
#include "distbench/operator/common/status_conditions.h"

namespace distbench::op {
namespace {

using web::json::value;
using kube::fieldOf;
using kube::stringField;

// Kueue's bound on an admission check message.
constexpr std::size_t kMaxCheckMessageBytes = 32768;

bool conditionTrue(const value& workload, const char* type) {
  const value* status = fieldOf(workload, "status");
  return status != nullptr && conditionIsTrue(*status, type);
}

const value* admissionChecks(const value& workload) {
  const value* status = fieldOf(workload, "status");
  const value* checks = status != nullptr ? fieldOf(*status, "admissionChecks") : nullptr;
  return checks != nullptr && checks->is_array() ? checks : nullptr;
}

// One pod set's hostnames and pods on each, added to `out`; or why it has none.
std::string podSetHostnames(const value& assignment, AssignedNodes& out) {
  const std::string podSet = stringField(assignment, "name");
  const value* topology = fieldOf(assignment, "topologyAssignment");
  if (topology == nullptr) {
    return stringField(assignment, "delayedTopologyRequest") == "Pending"
               ? "pod set " + podSet + ": Kueue assigns its nodes only after the admission checks "
                 "(a ProvisioningRequest or MultiKueue check on its flavor)"
               : "pod set " + podSet + " has no topology assignment (topology-aware scheduling "
                 "is off for it)";
  }
  const value* levels = fieldOf(*topology, "levels");
  if (levels == nullptr || !levels->is_array() || levels->as_array().size() == 0) {
    return "pod set " + podSet + ": its topology assignment has no levels";
  }
  const auto& levelList = levels->as_array();
  const value& lowest = levelList.at(levelList.size() - 1);
  if (!lowest.is_string() || lowest.as_string() != kHostnameLabel) {
    return "pod set " + podSet + ": its lowest topology level is " +
           (lowest.is_string() ? lowest.as_string() : std::string("?")) + ", not " +
           kHostnameLabel + ", so the nodes are chosen after admission";
  }
  const value* domains = fieldOf(*topology, "domains");
  if (domains == nullptr || !domains->is_array() || domains->as_array().size() == 0) {
    return "pod set " + podSet + ": its topology assignment names no domain";
  }
  for (const value& d : domains->as_array()) {
    const value* values = fieldOf(d, "values");
    if (values == nullptr || !values->is_array() || values->as_array().size() == 0) {
      return "pod set " + podSet + ": a domain without values";
    }
    const auto& vs = values->as_array();
    const value& host = vs.at(vs.size() - 1);
    if (!host.is_string() || host.as_string().empty()) {
      return "pod set " + podSet + ": a domain whose hostname is not a string";
    }
    const int64_t count = kube::intField(d, "count");
    if (count < 1) {
      return "pod set " + podSet + ": the domain " + host.as_string() + " has no pod count";
    }
    const auto at = std::find(out.hostnames.begin(), out.hostnames.end(), host.as_string());
    if (at == out.hostnames.end()) {
      out.hostnames.push_back(host.as_string());
      out.pods.push_back(count);
    } else {
      out.pods[static_cast<std::size_t>(at - out.hostnames.begin())] += count;
    }
  }
  return "";
}

}  // namespace

WorkloadView readWorkload(const value& workload) {
  WorkloadView w;
  w.name = kube::metadataField(workload, "name");
  w.namespace_ = kube::metadataField(workload, "namespace");
  w.uid = kube::metadataField(workload, "uid");
  w.resourceVersion = kube::metadataField(workload, "resourceVersion");
  w.deleting = !kube::metadataField(workload, "deletionTimestamp").empty();
  const value* spec = fieldOf(workload, "spec");
  const value* active = spec != nullptr ? fieldOf(*spec, "active") : nullptr;
  w.active = active == nullptr || !active->is_boolean() || active->as_bool();
  w.quotaReserved = conditionTrue(workload, "QuotaReserved");
  w.evicted = conditionTrue(workload, "Evicted");
  w.finished = conditionTrue(workload, "Finished");
  if (const value* checks = admissionChecks(workload)) {
    for (const value& c : checks->as_array()) {
      w.checks.push_back({stringField(c, "name"), stringField(c, "state"),
                          stringField(c, "message"), kube::intField(c, "retryCount")});
    }
  }
  return w;
}

const AdmissionCheckEntry* findCheck(const WorkloadView& workload, const std::string& check) {
  for (const AdmissionCheckEntry& e : workload.checks) {
    if (e.name == check) return &e;
  }
  return nullptr;
}

bool mayAnswer(const WorkloadView& w, const std::string& check) {
  const AdmissionCheckEntry* entry = findCheck(w, check);
  return entry != nullptr && entry->state == "Pending" && w.quotaReserved && !w.evicted &&
         !w.finished && w.active && !w.deleting;
}

AssignedNodes assignedNodes(const value& workload) {
  AssignedNodes out;
  const value* status = fieldOf(workload, "status");
  const value* admission = status != nullptr ? fieldOf(*status, "admission") : nullptr;
  const value* assignments =
      admission != nullptr ? fieldOf(*admission, "podSetAssignments") : nullptr;
  if (assignments == nullptr || !assignments->is_array() || assignments->as_array().size() == 0) {
    out.unknown = "the Workload has no admission (no quota reserved)";
    return out;
  }
  for (const value& a : assignments->as_array()) {
    std::string why = podSetHostnames(a, out);
    if (!why.empty()) {
      out.hostnames.clear();
      out.pods.clear();
      out.unknown = std::move(why);
      return out;
    }
  }
  return out;
}

value checkAnswerPatch(const value& workload, const std::string& check, const CheckAnswer& answer,
                       const std::string& nowRfc3339) {
  std::vector<value> entries;
  if (const value* checks = admissionChecks(workload)) {
    for (const value& c : checks->as_array()) {
      if (stringField(c, "name") != check) {
        entries.push_back(c);
        continue;
      }
      value mine = c;
      if (stringField(c, "state") != answer.state) {
        mine["state"] = value::string(answer.state);
        mine["lastTransitionTime"] = value::string(nowRfc3339);
      }
      const std::string message =
          answer.message.empty() ? answer.state : answer.message;
      mine["message"] = value::string(kube::boundedMessage(message, kMaxCheckMessageBytes));
      if (mine.has_field("requeueAfterSeconds")) mine.erase("requeueAfterSeconds");
      if (answer.requeueAfterSeconds) {
        mine["requeueAfterSeconds"] = value::number(*answer.requeueAfterSeconds);
      }
      entries.push_back(mine);
    }
  }
  value patch = value::object();
  patch["metadata"]["resourceVersion"] =
      value::string(kube::metadataField(workload, "resourceVersion"));
  patch["status"]["admissionChecks"] = value::array(entries);
  return patch;
}

}  // namespace distbench::op
