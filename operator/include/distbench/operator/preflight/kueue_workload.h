// A Kueue Workload as the preflight gate reads and answers it: Kueue
// v0.15.8's kueue.x-k8s.io/v1beta1 (the pinned release: third_party/kueue),
// the fields an AdmissionCheck controller reads (its check's entry, the
// quota reservation, the node assignment) and the one it writes (its entry
// in status.admissionChecks). Pure: JSON in, JSON out.
#pragma once

#include <cpprest/json.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace distbench::op {

inline constexpr const char* kKueueApiPrefix = "/apis/kueue.x-k8s.io/v1beta1";
inline constexpr const char* kHostnameLabel = "kubernetes.io/hostname";

// The Workloads of `ns` (every namespace when empty), or one of them.
inline std::string kueueWorkloadsPath(const std::string& ns, const std::string& name = "") {
  return std::string(kKueueApiPrefix) + (ns.empty() ? "" : "/namespaces/" + ns) + "/workloads" +
         (name.empty() ? "" : "/" + name);
}

// One entry of status.admissionChecks.
struct AdmissionCheckEntry {
  std::string name;
  std::string state;  // Pending | Ready | Retry | Rejected
  std::string message;
  int64_t retryCount = 0;  // Kueue's count of this check's Retry answers
};

struct WorkloadView {
  std::string name;
  std::string namespace_;
  std::string uid;
  std::string resourceVersion;
  bool deleting = false;  // metadata.deletionTimestamp set
  bool active = true;     // spec.active
  bool quotaReserved = false;
  bool evicted = false;
  bool finished = false;
  std::vector<AdmissionCheckEntry> checks;
};

WorkloadView readWorkload(const web::json::value& workload);

// The entry of `check`, or null.
const AdmissionCheckEntry* findCheck(const WorkloadView& workload, const std::string& check);

// Whether an answer for `check` may be written now: its entry is Pending,
// quota is reserved, and the Workload is not evicted, finished, inactive or
// being deleted. Kueue resets entries to Pending on eviction; an answer
// written after that would leave the Workload failed forever (Kueue issue
// 3543), so the gate checks this before every write.
bool mayAnswer(const WorkloadView& workload, const std::string& check);

// The nodes the Workload was given, by their kubernetes.io/hostname label
// value, in the assignment's order without repeats, and the pods on each
// (its domains' counts summed over the pod sets); or why they are not
// known (`unknown` set, `hostnames` empty): topology-aware scheduling off
// for a pod set, a lowest topology level other than kubernetes.io/hostname,
// or an assignment Kueue delays until after the checks.
struct AssignedNodes {
  std::vector<std::string> hostnames;
  std::vector<int64_t> pods;  // same index as hostnames
  std::string unknown;
};
AssignedNodes assignedNodes(const web::json::value& workload);

// What the gate answers for its check.
struct CheckAnswer {
  std::string state;  // Ready | Retry | Rejected
  std::string message;
  std::optional<int64_t> requeueAfterSeconds;  // with Retry
};

// The JSON merge patch of the Workload's status subresource writing
// `answer` for `check`: the whole admissionChecks list (every other entry as
// read, ours changed as Kueue's SetAdmissionCheckState changes it: the
// transition time moves only when the state does; retryCount and
// podSetUpdates kept), with metadata.resourceVersion so that a Workload
// changed since it was read answers 409. Whole, because a merge patch
// replaces a list and an API server without the Workload's full schema
// treats every list as atomic. The message is never empty: some API servers
// refuse an empty string where Kueue's schema removes the default.
web::json::value checkAnswerPatch(const web::json::value& workload, const std::string& check,
                                  const CheckAnswer& answer, const std::string& nowRfc3339);

}  // namespace distbench::op
