#include "distbench/operator/benchmarks/gang_state.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "distbench/api/run_key.h"
#include "distbench/kube/json_fields.h"

namespace distbench::op {
namespace {

using web::json::value;

int intLabel(const value& labels, const char* name) {
  const std::string text = kube::stringField(labels, name);
  if (text.empty()) return -1;
  try {
    size_t used = 0;
    const int n = std::stoi(text, &used);
    return used == text.size() ? n : -1;
  } catch (const std::exception&) {
    return -1;
  }
}

// The worker container's state: the first container's, as pods have one.
const value* containerState(const value& status, const char* which) {
  const value* statuses = kube::fieldOf(status, "containerStatuses");
  if (statuses == nullptr || !statuses->is_array() || statuses->size() == 0) return nullptr;
  const value* state = kube::fieldOf(statuses->at(0), "state");
  const value* s = state == nullptr ? nullptr : kube::fieldOf(*state, which);
  // A container that restarted in place (not ours: restartPolicy Never)
  // would keep its last termination here.
  if (s == nullptr && std::string(which) == "terminated") {
    const value* last = kube::fieldOf(statuses->at(0), "lastState");
    s = last == nullptr ? nullptr : kube::fieldOf(*last, which);
  }
  return s;
}

// The worker container's spec (the first, as pods have one).
const value* containerSpec(const value& pod) {
  const value* spec = kube::fieldOf(pod, "spec");
  const value* containers = spec == nullptr ? nullptr : kube::fieldOf(*spec, "containers");
  if (containers == nullptr || !containers->is_array() || containers->size() == 0) return nullptr;
  return &containers->at(0);
}

std::string memoryLimit(const value& pod) {
  const value* c = containerSpec(pod);
  const value* resources = c == nullptr ? nullptr : kube::fieldOf(*c, "resources");
  const value* limits = resources == nullptr ? nullptr : kube::fieldOf(*resources, "limits");
  return limits == nullptr ? "" : kube::stringField(*limits, "memory");
}

std::string imageOf(const value& pod, const value& status) {
  if (const value* statuses = kube::fieldOf(status, "containerStatuses");
      statuses != nullptr && statuses->is_array() && statuses->size() > 0) {
    const std::string image = kube::stringField(statuses->at(0), "image");
    if (!image.empty()) return image;
  }
  const value* c = containerSpec(pod);
  return c == nullptr ? "" : kube::stringField(*c, "image");
}

// Enough of a log line to name an error; the event and condition carry
// every failed rank's detail.
constexpr size_t kLastLineChars = 200;

std::string lastLine(const std::string& text, size_t limit) {
  const size_t end = text.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return "";
  const size_t newline = text.find_last_of('\n', end);
  const size_t begin = newline == std::string::npos ? 0 : newline + 1;
  std::string line = text.substr(begin, end - begin + 1);
  if (line.size() > limit) line = line.substr(0, limit) + "...";
  return line;
}

// Failed: `cause` is set when Kubernetes ended the pod (the kernel's OOM
// killer at the container's memory limit, an eviction, the pod's own
// deadline); otherwise the worker exited on its own error.
std::string failureDetail(const value& pod, const value& status, std::string& cause) {
  std::string out;
  // The pod's own reason first: an evicted pod's container often reads
  // "exit code 137, Error", which hides why.
  const std::string podReason = kube::stringField(status, "reason");  // Evicted, DeadlineExceeded
  if (podReason == "Evicted" || podReason == "DeadlineExceeded") cause = podReason;
  if (!podReason.empty()) out = podReason;
  if (const value* t = containerState(status, "terminated")) {
    std::string container;
    if (const value* code = kube::fieldOf(*t, "exitCode"); code != nullptr && code->is_integer())
      container = "exit code " + std::to_string(code->as_integer());
    const std::string reason = kube::stringField(*t, "reason");
    if (!reason.empty()) container += (container.empty() ? "" : ", ") + reason;
    if (reason == "OOMKilled") {
      if (cause.empty()) cause = reason;
      const std::string limit = memoryLimit(pod);
      if (!limit.empty()) container += " (memory limit " + limit + ")";
    }
    // The worker's own last words: the kubelet keeps the end of a failed
    // container's log as its message (terminationMessagePolicy
    // FallbackToLogsOnError), and the worker's error is its last line, so a
    // rank that failed once and was replaced by a restart still says why.
    // Redacted before the cut: a cut key is a prefix no rule recognises.
    const std::string said =
        lastLine(api::redactRunKeys(kube::stringField(*t, "message")), kLastLineChars);
    if (!said.empty()) container += " (last log line: " + said + ")";
    if (!container.empty()) out += (out.empty() ? "" : ", ") + container;
  }
  const std::string message = kube::stringField(status, "message");
  if (!message.empty()) out += (out.empty() ? "" : ": ") + message;
  return out.empty() ? "failed" : out;
}

// Pending: `cause` is set when the pod cannot start without someone acting
// (an image the node cannot get, no node that fits), not when it is merely
// being scheduled or started.
std::string pendingDetail(const value& pod, const value& status, std::string& cause) {
  if (const value* w = containerState(status, "waiting")) {
    const std::string reason = kube::stringField(*w, "reason");
    const std::string message = kube::stringField(*w, "message");
    if (!reason.empty() && reason != "ContainerCreating") {
      std::string out = reason;
      if (reason == "ImagePullBackOff" || reason == "ErrImagePull" ||
          reason == "ErrImageNeverPull" || reason == "InvalidImageName") {
        // The two alternate while the kubelet retries one missing image.
        cause = reason == "ErrImagePull" ? "ImagePullBackOff" : reason;
        const std::string image = imageOf(pod, status);
        if (!image.empty() && message.find(image) == std::string::npos)
          out += " (image " + image + ")";
      }
      return out + (message.empty() ? "" : ": " + message);
    }
  }
  if (const value* conditions = kube::fieldOf(status, "conditions");
      conditions && conditions->is_array()) {
    for (const value& c : conditions->as_array()) {
      if (kube::stringField(c, "type") == "PodScheduled" &&
          kube::stringField(c, "status") == "False") {
        const std::string reason = kube::stringField(c, "reason");
        const std::string message = kube::stringField(c, "message");
        cause = reason.empty() ? "Unschedulable" : reason;
        return cause + (message.empty() ? "" : ": " + message);
      }
    }
  }
  return kube::stringField(status, "hostIP").empty() ? "not scheduled yet" : "starting";
}

bool readyCondition(const value& status) {
  const value* conditions = kube::fieldOf(status, "conditions");
  if (conditions == nullptr || !conditions->is_array()) return false;
  for (const value& c : conditions->as_array())
    if (kube::stringField(c, "type") == "Ready") return kube::stringField(c, "status") == "True";
  return false;
}

}  // namespace

PodState podState(const value& pod) {
  PodState s;
  const value empty = value::object();
  const value* metadata = kube::fieldOf(pod, "metadata");
  const value& meta = metadata ? *metadata : empty;
  const value* labelsField = kube::fieldOf(meta, "labels");
  const value& labels = labelsField ? *labelsField : empty;
  s.name = kube::stringField(meta, "name");
  s.role = kube::stringField(labels, "distbench.io/role");
  s.rank = intLabel(labels, "distbench.io/rank");
  s.gang = intLabel(labels, "distbench.io/gang");
  s.deleting = kube::fieldOf(meta, "deletionTimestamp") != nullptr;
  s.creationTimestamp = kube::stringField(meta, "creationTimestamp");
  const value* statusField = kube::fieldOf(pod, "status");
  const value& status = statusField ? *statusField : empty;
  s.phase = kube::stringField(status, "phase");
  if (s.phase.empty()) s.phase = "Pending";
  s.ready = s.phase == "Running" && readyCondition(status);
  if (s.phase == "Failed") s.detail = failureDetail(pod, status, s.cause);
  if (s.phase == "Pending") s.detail = pendingDetail(pod, status, s.cause);
  if (s.lost()) {
    s.detail = "deleted while the gang ran (" + s.phase + ")";
    s.cause.clear();
  }
  if (const value* t = containerState(status, "terminated")) {
    s.terminationMessage = api::redactRunKeys(kube::stringField(*t, "message"));
    if (const value* code = kube::fieldOf(*t, "exitCode"); code != nullptr && code->is_integer())
      s.exitCode = code->as_integer();
  }
  return s;
}

const RoleCounts& GangState::counts(const std::string& role) const {
  if (role == "master") return master;
  if (role == "ps") return parameterServers;
  return trainers;
}

bool GangState::succeeded(int expectedTrainers) const {
  return master.succeeded == 1 && trainers.succeeded == expectedTrainers;
}

std::vector<const PodState*> GangState::failedPods() const {
  std::vector<const PodState*> out;
  for (const PodState& p : pods)
    if (p.phase == "Failed" || p.lost()) out.push_back(&p);
  return out;
}

std::vector<const PodState*> GangState::pendingPods() const {
  std::vector<const PodState*> out;
  for (const PodState& p : pods)
    if (p.phase == "Pending") out.push_back(&p);
  return out;
}

bool GangState::allStarted(int expectedPods) const {
  if (static_cast<int>(pods.size()) < expectedPods) return false;
  return std::none_of(pods.begin(), pods.end(), [](const PodState& p) {
    return p.phase == "Pending" || p.phase == "Unknown" || p.phase.empty();
  });
}

std::string GangState::startedAt() const {
  std::string earliest;
  // RFC 3339 in UTC with a fixed layout sorts as text.
  for (const PodState& p : pods)
    if (!p.creationTimestamp.empty() && (earliest.empty() || p.creationTimestamp < earliest))
      earliest = p.creationTimestamp;
  return earliest;
}

GangState gangState(const std::vector<value>& pods) {
  GangState g;
  for (const value& pod : pods) g.pods.push_back(podState(pod));
  std::sort(g.pods.begin(), g.pods.end(),
            [](const PodState& a, const PodState& b) { return a.rank < b.rank; });
  for (const PodState& p : g.pods) {
    RoleCounts& c = p.role == "master" ? g.master : p.role == "ps" ? g.parameterServers : g.trainers;
    if (p.phase == "Succeeded") {
      ++c.succeeded;
    } else if (p.phase == "Failed" || p.lost()) {
      ++c.failed;
    } else {
      ++c.active;
      if (p.ready) ++c.ready;
    }
  }
  return g;
}

value roleCountsJson(const RoleCounts& counts) {
  value v = value::object();
  v["active"] = value::number(counts.active);
  v["ready"] = value::number(counts.ready);
  v["succeeded"] = value::number(counts.succeeded);
  v["failed"] = value::number(counts.failed);
  return v;
}

std::string describePods(const std::vector<const PodState*>& pods, std::size_t maxBytes) {
  std::string out;
  for (const PodState* p : pods) {
    std::string one = p->name + " (rank " + std::to_string(p->rank) + "): " + p->detail;
    if (!out.empty()) one = "; " + one;
    if (out.size() + one.size() > maxBytes) {
      out += out.empty() ? one.substr(0, maxBytes) : "; …";
      break;
    }
    out += one;
  }
  return out;
}

std::string firstCause(const std::vector<const PodState*>& pods) {
  for (const PodState* p : pods)
    if (!p->cause.empty()) return p->cause;
  return "";
}

namespace {

// Why `v` (at `path`) cannot go into status, or "" when it can.
std::string unsendable(const value& v, const std::string& path) {
  if (v.is_number()) {
    const double x = v.as_double();
    if (!std::isfinite(x)) return path + ": not a finite number";
    if (std::fabs(x) > kMaxResultNumber) {
      char text[64];
      std::snprintf(text, sizeof text, "%g is beyond %g", x, kMaxResultNumber);
      return path + ": " + text;
    }
  } else if (v.is_array()) {
    for (size_t i = 0; i < v.size(); ++i) {
      const std::string why = unsendable(v.at(i), path + "[" + std::to_string(i) + "]");
      if (!why.empty()) return why;
    }
  } else if (v.is_object()) {
    for (const auto& [name, field] : v.as_object()) {
      const std::string why = unsendable(field, path.empty() ? name : path + "." + name);
      if (!why.empty()) return why;
    }
  }
  return "";
}

}  // namespace

std::optional<value> resultSummary(const PodState& master, std::string* problem) {
  if (master.terminationMessage.empty()) return std::nullopt;
  value v;
  try {
    v = value::parse(master.terminationMessage);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (!v.is_object()) return std::nullopt;
  std::string why = unsendable(v, "");
  // The CRD's schema types these two; any other field is kept as given.
  if (why.empty() && v.has_field("p50") && !v.at("p50").is_string()) why = "p50: not a string";
  if (why.empty() && v.has_field("summary") && !v.at("summary").is_object())
    why = "summary: not an object";
  if (why.empty()) return v;
  if (problem != nullptr) *problem = "the master's result summary (termination message): " + why;
  return std::nullopt;
}

}  // namespace distbench::op
