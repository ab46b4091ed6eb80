#include "kueue_harness.h"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "distbench/kube/json_fields.h"
#include "distbench/kube/rfc3339.h"

namespace distbench::kubetest {
namespace {

using web::json::value;
using kube::stringField;

const char* const kApi = "/apis/kueue.x-k8s.io/v1beta1";

std::string now() { return kube::formatRfc3339(std::chrono::system_clock::now()); }

value* condition(value& status, const std::string& type) {
  if (!status.has_field("conditions")) return nullptr;
  for (value& c : status["conditions"].as_array()) {
    if (stringField(c, "type") == type) return &c;
  }
  return nullptr;
}

bool isTrue(value& status, const std::string& type) {
  const value* c = condition(status, type);
  return c != nullptr && stringField(*c, "status") == "True";
}

// As Kueue's apimeta.SetStatusCondition: the transition time moves with
// the status only.
void setCondition(value& status, const std::string& type, bool isTrue, const std::string& reason,
                  const std::string& message) {
  if (!status.has_field("conditions")) status["conditions"] = value::array();
  value* c = condition(status, type);
  const std::string wanted = isTrue ? "True" : "False";
  if (c == nullptr) {
    value& list = status["conditions"];
    list[list.size()] = value::object();
    c = &list[list.size() - 1];
    (*c)["type"] = value::string(type);
    (*c)["lastTransitionTime"] = value::string(now());
  } else if (stringField(*c, "status") != wanted) {
    (*c)["lastTransitionTime"] = value::string(now());
  }
  (*c)["status"] = value::string(wanted);
  (*c)["reason"] = value::string(reason);
  (*c)["message"] = value::string(message);
}

void removeCondition(value& status, const std::string& type) {
  if (!status.has_field("conditions")) return;
  std::vector<value> kept;
  for (const value& c : status["conditions"].as_array()) {
    if (stringField(c, "type") != type) kept.push_back(c);
  }
  status["conditions"] = value::array(kept);
}

// Kueue's resetChecksOnEviction: every check not Pending back to Pending;
// a Retry's retryCount + 1.
void resetChecks(value& status) {
  if (!status.has_field("admissionChecks")) return;
  for (value& c : status["admissionChecks"].as_array()) {
    const std::string state = stringField(c, "state");
    if (state == "Pending") continue;
    if (state == "Retry") c["retryCount"] = value::number(kube::intField(c, "retryCount") + 1);
    c["state"] = value::string("Pending");
    c["message"] = value::string("Reset to Pending after eviction. Previously: " + state);
    c["lastTransitionTime"] = value::string(now());
  }
}

// The job reconciler's part once the job has stopped (Kueue leaves it to
// a job; a bare Workload's quota is released by whoever plays the job).
void releaseQuota(value& status, const std::string& reason, const std::string& message) {
  setCondition(status, "Requeued", false, reason, message);
  setCondition(status, "QuotaReserved", false, "Pending", message);
  if (status.has_field("admission")) status.erase("admission");
  if (isTrue(status, "Admitted")) {
    setCondition(status, "Admitted", false, "NoReservationUnsatisfiedChecks",
                 "The workload has no reservation and not all checks ready");
  }
}

std::vector<std::string> checksIn(value& status, const std::string& state) {
  std::vector<std::string> names;
  if (!status.has_field("admissionChecks")) return names;
  for (const value& c : status["admissionChecks"].as_array()) {
    if (stringField(c, "state") == state) names.push_back(stringField(c, "name"));
  }
  return names;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

KueueHarness::KueueHarness(kube::KubeClient& client, std::string ns)
    : client_(client), ns_(std::move(ns)) {}

std::string KueueHarness::path(const std::string& name) const {
  return std::string(kApi) + "/namespaces/" + ns_ + "/workloads" + (name.empty() ? "" : "/" + name);
}

value KueueHarness::get(const std::string& name) { return client_.get(path(name)); }

value KueueHarness::checkState(const std::string& name, const std::string& check) {
  const value w = get(name);
  const value* status = kube::fieldOf(w, "status");
  const value* checks = status != nullptr ? kube::fieldOf(*status, "admissionChecks") : nullptr;
  if (checks != nullptr && checks->is_array()) {
    for (const value& c : checks->as_array()) {
      if (stringField(c, "name") == check) return c;
    }
  }
  return value::null();
}

value KueueHarness::createAdmissionCheck(const std::string& name,
                                         const std::string& controllerName,
                                         const std::string& policy) {
  value check = value::object();
  check["apiVersion"] = value::string("kueue.x-k8s.io/v1beta1");
  check["kind"] = value::string("AdmissionCheck");
  check["metadata"]["name"] = value::string(name);
  check["spec"]["controllerName"] = value::string(controllerName);
  if (!policy.empty()) {
    check["spec"]["parameters"]["apiGroup"] = value::string("distbench.io");
    check["spec"]["parameters"]["kind"] = value::string("DistBenchPreflightPolicy");
    check["spec"]["parameters"]["name"] = value::string(policy);
  }
  return client_.create(std::string(kApi) + "/admissionchecks", check);
}

value KueueHarness::createWorkload(const std::string& name, int count,
                                   const std::vector<std::string>& checks) {
  value w = value::parse(R"({"apiVersion":"kueue.x-k8s.io/v1beta1","kind":"Workload",
      "spec":{"queueName":"gpu","podSets":[{"name":"main","count":1,
        "template":{"spec":{"containers":[{"name":"train","image":"busybox"}]}}}]}})");
  w["metadata"]["name"] = value::string(name);
  w["metadata"]["namespace"] = value::string(ns_);
  w["spec"]["podSets"][0]["count"] = value::number(count);
  client_.create(path(""), w);
  // P1: the ClusterQueue's checks, Pending, sorted by name.
  writeStatus(name, [&](value& status) {
    std::vector<value> entries;
    std::vector<std::string> sorted = checks;
    std::sort(sorted.begin(), sorted.end());
    for (const std::string& c : sorted) {
      value e = value::object();
      e["name"] = value::string(c);
      e["state"] = value::string("Pending");
      e["message"] = value::string("Waiting for the admission check");  // Kueue: ""
      e["lastTransitionTime"] = value::string(now());
      entries.push_back(e);
    }
    status["admissionChecks"] = value::array(entries);
  });
  return get(name);
}

void KueueHarness::reserveQuota(const std::string& name,
                                const std::optional<std::vector<std::string>>& hostnames) {
  writeStatus(name, [&](value& status) {
    const value w = get(name);
    value assignment = value::object();
    assignment["name"] = value::string("main");
    assignment["flavors"]["cpu"] = value::string("default");
    assignment["count"] = w.at("spec").at("podSets").at(0).at("count");
    if (hostnames) {
      std::vector<value> domains;
      for (const std::string& h : *hostnames) {
        value d = value::object();
        d["values"] = value::array({value::string(h)});
        d["count"] = value::number(1);
        domains.push_back(d);
      }
      assignment["topologyAssignment"]["levels"] =
          value::array({value::string("kubernetes.io/hostname")});
      assignment["topologyAssignment"]["domains"] = value::array(domains);
    }
    status["admission"]["clusterQueue"] = value::string("gpu");
    status["admission"]["podSetAssignments"] = value::array({assignment});
    setCondition(status, "QuotaReserved", true, "QuotaReserved", "Quota reserved in ClusterQueue gpu");
    if (value* evicted = condition(status, "Evicted");
        evicted != nullptr && stringField(*evicted, "status") == "True") {
      setCondition(status, "Evicted", false, "QuotaReserved",
                   "Previously: " + stringField(*evicted, "message"));
    }
  });
}

std::string KueueHarness::step(const std::string& name) {
  value w = get(name);
  value status = w.has_field("status") ? w.at("status") : value::object();
  const std::vector<std::string> rejected = checksIn(status, "Rejected");
  if (!rejected.empty()) {
    const std::string message = "Admission check(s): " + joined(rejected) + ", were rejected";
    writeStatus(name, [&](value& s) {
      setCondition(s, "DeactivationTarget", true, "AdmissionCheck", message);
    });
    for (int attempt = 0;; ++attempt) {  // spec.active through the main resource
      value current = get(name);
      current["spec"]["active"] = value::boolean(false);
      try {
        client_.replace(path(name), current);
        break;
      } catch (const kube::KubeApiError& e) {
        if (!e.conflict() || attempt == 5) throw;
      }
    }
    const std::string evicted = "The workload is deactivated due to " + message;
    writeStatus(name, [&](value& s) {
      removeCondition(s, "DeactivationTarget");
      setCondition(s, "Evicted", true, "DeactivatedDueToAdmissionCheck", evicted);
      resetChecks(s);
      releaseQuota(s, "DeactivatedDueToAdmissionCheck", evicted);
    });
    return "Deactivated";
  }
  if (!checksIn(status, "Retry").empty() && isTrue(status, "QuotaReserved")) {
    const std::string message = "At least one admission check is false";
    writeStatus(name, [&](value& s) {
      setCondition(s, "Evicted", true, "AdmissionCheck", message);
      resetChecks(s);
    });
    writeStatus(name, [&](value& s) { releaseQuota(s, "AdmissionCheck", message); });
    writeStatus(name, [&](value& s) {
      setCondition(s, "Requeued", true, "BackoffFinished", "The workload backoff was finished");
    });
    return "Evicted";
  }
  if (checksIn(status, "Pending").empty() && !checksIn(status, "Ready").empty() &&
      isTrue(status, "QuotaReserved") && !isTrue(status, "Admitted")) {
    writeStatus(name, [&](value& s) {
      setCondition(s, "Admitted", true, "Admitted", "The workload is admitted");
    });
    return "Admitted";
  }
  return "";
}

template <typename Change>
void KueueHarness::writeStatus(const std::string& name, Change change) {
  for (int attempt = 0;; ++attempt) {
    value w = get(name);
    if (!w.has_field("status")) w["status"] = value::object();
    change(w["status"]);
    try {
      client_.replace(path(name) + "/status", w);
      return;
    } catch (const kube::KubeApiError& e) {
      if (!e.conflict() || attempt == 5) throw;
    }
  }
}

}  // namespace distbench::kubetest
