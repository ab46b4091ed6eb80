#include "distbench/operator/benchmarks/desired_objects.h"

#include <map>

#include "distbench/api/object_names.h"
#include "distbench/api/renderer.h"
#include "distbench/api/resource_estimate.h"
#include "distbench/api/spec_yaml.h"
#include "distbench/api/worker_env.h"
#include "distbench/kube/json_fields.h"
#include "distbench/operator/benchmarks/fabric_placement.h"

namespace distbench::op {
namespace {

using web::json::value;

value str(const std::string& s) { return value::string(s); }

value labels(const api::DistBenchmark& b) {
  value l = value::object();
  l[kLabelBenchmark] = str(b.metadata.name);
  l["app.kubernetes.io/name"] = str("distbench");
  l["app.kubernetes.io/managed-by"] = str("distbench-operator");
  return l;
}

value metadata(const std::string& name, const api::DistBenchmark& b, const Owner& owner,
               value extraLabels = value::object()) {
  value m = value::object();
  m["name"] = str(name);
  m["namespace"] = str(b.metadata.namespace_);
  value l = labels(b);
  for (const auto& [k, v] : extraLabels.as_object()) l[k] = v;
  m["labels"] = l;
  value ref = value::object();
  ref["apiVersion"] = str(api::kApiVersion);
  ref["kind"] = str(api::kKind);
  ref["name"] = str(owner.name);
  ref["uid"] = str(owner.uid);
  // The garbage collector deletes children with the resource, and
  // foreground deletion waits for them.
  ref["controller"] = value::boolean(true);
  ref["blockOwnerDeletion"] = value::boolean(true);
  m["ownerReferences"] = value::array({ref});
  return m;
}

value port(const std::string& name, int number) {
  value p = value::object();
  p["name"] = str(name);
  p["port"] = value::number(number);
  p["targetPort"] = value::number(number);
  p["protocol"] = str("TCP");
  return p;
}

value envVar(const std::string& name, const std::string& v) {
  value e = value::object();
  e["name"] = str(name);
  e["value"] = str(v);
  return e;
}

value fieldEnv(const std::string& name, const std::string& fieldPath) {
  value e = value::object();
  e["name"] = str(name);
  e["valueFrom"]["fieldRef"]["fieldPath"] = str(fieldPath);
  return e;
}

const api::PodTemplate& templateOf(const api::DistBenchmark& b, api::Role role) {
  switch (role) {
    case api::Role::Master:
      return b.spec.podTemplates.master;
    case api::Role::ParameterServer:
      return b.spec.podTemplates.parameterServer;
    case api::Role::Trainer:
      break;
  }
  return b.spec.podTemplates.trainer;
}

// A core/v1 Toleration: empty strings and an unset tolerationSeconds left out,
// as the API server itself would omit them.
value toleration(const api::Toleration& t) {
  value out = value::object();
  if (!t.key.empty()) out["key"] = str(t.key);
  if (!t.operator_.empty()) out["operator"] = str(t.operator_);
  if (!t.value.empty()) out["value"] = str(t.value);
  if (!t.effect.empty()) out["effect"] = str(t.effect);
  if (t.tolerationSeconds) out["tolerationSeconds"] = value::number(*t.tolerationSeconds);
  return out;
}

// The role template's image and resources on the worker container: only what
// the template sets, so an empty template leaves the pod as it was.
void applyTemplate(const api::DistBenchmark& b, const api::PodTemplate& t,
                   const WorkerImages& images, value& container) {
  container["image"] = str(workerImage(b, t, images));
  if (!t.requests.empty()) container["resources"]["requests"] = kube::stringMapJson(t.requests);
  if (!t.limits.empty()) container["resources"]["limits"] = kube::stringMapJson(t.limits);
}

// A CUDA trainer's GPUs. Limits and requests alike: the scheduler cannot
// overcommit an extended resource, and the API server refuses a request
// without an equal limit. A template that names the GPU resource in either
// map has decided for itself (a fractional or vendor-specific setup), so
// nothing is added next to it. Only trainers compute on a GPU: the master
// coordinates and the parameter servers keep their shards on CPU.
void applyGpus(const api::DistBenchmark& b, api::Role role, const api::PodTemplate& t,
               value& container) {
  if (role != api::Role::Trainer) return;
  const int gpus = api::gpusPerTrainer(b.spec.runtime);
  if (gpus == 0 || t.limits.count(kGpuResource) || t.requests.count(kGpuResource)) return;
  container["resources"]["limits"][kGpuResource] = str(std::to_string(gpus));
  container["resources"]["requests"][kGpuResource] = str(std::to_string(gpus));
}

// And its nodeSelector and tolerations on the pod.
void applyTemplateToPod(const api::PodTemplate& t, value& spec) {
  if (!t.nodeSelector.empty()) spec["nodeSelector"] = kube::stringMapJson(t.nodeSelector);
  if (!t.tolerations.empty()) {
    value tolerations = value::array();
    for (const api::Toleration& tol : t.tolerations) {
      tolerations[tolerations.size()] = toleration(tol);
    }
    spec["tolerations"] = tolerations;
  }
}

}  // namespace

std::pair<value, value> securityContexts(const api::PodTemplate& t) {
  const api::PodSecurityOverrides& p = t.podSecurityContext;
  value pod = value::object();
  pod["runAsNonRoot"] = value::boolean(p.runAsNonRoot.value_or(true));
  pod["runAsUser"] = value::number(p.runAsUser.value_or(kWorkerUid));
  pod["runAsGroup"] = value::number(p.runAsGroup.value_or(kWorkerUid));
  pod["fsGroup"] = value::number(p.fsGroup.value_or(kWorkerUid));
  const api::SeccompProfile profile = p.seccompProfile.value_or(api::SeccompProfile{"RuntimeDefault", ""});
  pod["seccompProfile"]["type"] = str(profile.type);
  if (!profile.localhostProfile.empty())
    pod["seccompProfile"]["localhostProfile"] = str(profile.localhostProfile);

  const api::ContainerSecurityOverrides& c = t.securityContext;
  value container = value::object();
  container["allowPrivilegeEscalation"] = value::boolean(c.allowPrivilegeEscalation.value_or(false));
  container["readOnlyRootFilesystem"] = value::boolean(c.readOnlyRootFilesystem.value_or(true));
  auto list = [](const std::vector<std::string>& items) {
    value out = value::array();
    for (const std::string& i : items) out[out.size()] = str(i);
    return out;
  };
  container["capabilities"]["drop"] = list(c.capabilitiesDrop.value_or(std::vector<std::string>{"ALL"}));
  if (c.capabilitiesAdd && !c.capabilitiesAdd->empty())
    container["capabilities"]["add"] = list(*c.capabilitiesAdd);
  return {pod, container};
}

value desiredConfigMap(const api::DistBenchmark& b, const Owner& owner) {
  value cm = value::object();
  cm["apiVersion"] = str("v1");
  cm["kind"] = str("ConfigMap");
  cm["metadata"] = metadata(api::configMapName(b.metadata.name), b, owner);
  cm["data"] = value::object();
  cm["data"][kConfigFile] = str(api::render(b).configYaml);
  return cm;
}

value desiredRunKeySecret(const api::DistBenchmark& b, const Owner& owner,
                          const std::string& runKey) {
  value secret = value::object();
  secret["apiVersion"] = str("v1");
  secret["kind"] = str("Secret");
  secret["metadata"] = metadata(api::runKeySecretName(b.metadata.name), b, owner);
  secret["type"] = str("Opaque");
  secret["immutable"] = value::boolean(true);
  secret["stringData"][kRunKeyFile] = str(runKey);
  return secret;
}

namespace {

// A ConfigMap `name` of the benchmark's holding `data`.
value dataConfigMap(const std::string& name, const api::DistBenchmark& b, const Owner& owner,
                    value data) {
  value cm = value::object();
  cm["apiVersion"] = str("v1");
  cm["kind"] = str("ConfigMap");
  cm["metadata"] = metadata(name, b, owner);
  cm["data"] = std::move(data);
  return cm;
}

}  // namespace

value desiredReportConfigMap(const api::DistBenchmark& b, const Owner& owner, value data) {
  return dataConfigMap(api::reportConfigMapName(b.metadata.name), b, owner, std::move(data));
}

value desiredRankLogsConfigMap(const api::DistBenchmark& b, const Owner& owner, value data) {
  return dataConfigMap(api::rankLogsConfigMapName(b.metadata.name), b, owner, std::move(data));
}

namespace {

// A Service selecting this benchmark's pods, ready or not: ranks reach each
// other during rendezvous, before any readiness could be known.
value service(const std::string& name, const api::DistBenchmark& b, const Owner& owner,
              value firstPort) {
  value s = value::object();
  s["apiVersion"] = str("v1");
  s["kind"] = str("Service");
  s["metadata"] = metadata(name, b, owner);
  s["spec"]["publishNotReadyAddresses"] = value::boolean(true);
  s["spec"]["selector"][kLabelBenchmark] = str(b.metadata.name);
  s["spec"]["selector"][kLabelRun] = str(owner.uid);
  s["spec"]["ports"] = value::array({std::move(firstPort)});
  return s;
}

}  // namespace

value desiredHeadlessService(const api::DistBenchmark& b, const Owner& owner) {
  value s = service(api::workersServiceName(b.metadata.name), b, owner,
                    port("metrics", b.spec.runtime.metricsPort));
  s["spec"]["clusterIP"] = str("None");  // per-pod DNS records, no virtual IP
  return s;
}

value desiredNetworkPolicy(const api::DistBenchmark& b, const Owner& owner,
                           const ClusterOptions& options) {
  value gang = value::object();
  gang["matchLabels"][kLabelBenchmark] = str(b.metadata.name);
  gang["matchLabels"][kLabelRun] = str(owner.uid);
  value fromGang = value::object();
  fromGang["podSelector"] = gang;
  value sameBenchmark = value::object();
  sameBenchmark["from"] = value::array({fromGang});
  value metricsPort = value::object();
  metricsPort["protocol"] = str("TCP");
  metricsPort["port"] = value::number(b.spec.runtime.metricsPort);
  value metrics = value::object();
  metrics["ports"] = value::array({metricsPort});
  // No "from": any source, as the chart's default documents.
  if (options.metricsFrom.is_array() && options.metricsFrom.size() > 0)
    metrics["from"] = options.metricsFrom;

  value np = value::object();
  np["apiVersion"] = str("networking.k8s.io/v1");
  np["kind"] = str("NetworkPolicy");
  np["metadata"] = metadata(api::networkPolicyName(b.metadata.name), b, owner);
  np["spec"]["podSelector"] = gang;
  np["spec"]["policyTypes"] = value::array({str("Ingress")});
  np["spec"]["ingress"] = value::array({sameBenchmark, metrics});
  return np;
}

value desiredMasterService(const api::DistBenchmark& b, const Owner& owner) {
  value s = service(api::masterServiceName(b.metadata.name), b, owner,
                    port("store", b.spec.runtime.masterPort));
  s["spec"]["type"] = str("ClusterIP");
  s["spec"].erase("selector");
  return s;
}

value desiredMasterEndpoints(const api::DistBenchmark& b, const Owner& owner) {
  value e = value::object();
  e["apiVersion"] = str("v1");
  e["kind"] = str("Endpoints");
  e["metadata"] = metadata(api::masterServiceName(b.metadata.name), b, owner);
  e["subsets"] = value::array();
  return e;
}

value desiredMasterEndpoints(const api::DistBenchmark& b, const Owner& owner,
                             const value& masterPod) {
  const value& podMeta = masterPod.at("metadata");
  value target = value::object();
  target["kind"] = str("Pod");
  target["namespace"] = str(b.metadata.namespace_);
  target["name"] = podMeta.at("name");
  target["uid"] = podMeta.at("uid");
  value address = value::object();
  address["ip"] = masterPod.at("status").at("podIP");
  address["targetRef"] = target;
  value storePort = value::object();
  storePort["name"] = str("store");
  storePort["port"] = value::number(b.spec.runtime.masterPort);
  storePort["protocol"] = str("TCP");
  value subset = value::object();
  subset["addresses"] = value::array({address});
  subset["ports"] = value::array({storePort});
  value e = desiredMasterEndpoints(b, owner);
  e["subsets"] = value::array({subset});
  return e;
}

namespace {

// The labels a rank's pod carries besides the benchmark's.
value podLabels(const api::RankProcess& rank, int gang, const Owner& owner) {
  value extra = value::object();
  extra[kLabelRole] = str(api::toString(rank.role));
  extra[kLabelRank] = str(std::to_string(rank.rank));
  extra[kLabelGang] = str(std::to_string(gang));
  extra[kLabelRun] = str(owner.uid);
  return extra;
}

// The rendered environment, and what only the pod knows of itself.
value workerEnv(const api::RankProcess& rank) {
  value env = value::array();
  for (const api::EnvVar& e : rank.env) env[env.size()] = envVar(e.name, e.value);
  // Gloo binds to the pod's own address; no DNS needed for it.
  env[env.size()] = fieldEnv(api::kEnvPodIp, "status.podIP");
  env[env.size()] = fieldEnv(api::kEnvPodName, "metadata.name");
  // The full report outgrows a termination message (4 KiB); the operator
  // reads it from the master's log instead (run_report.h).
  if (rank.role == api::Role::Master) env[env.size()] = envVar(api::kEnvReportToLog, "1");
  return env;
}

value workerPorts(const api::DistBenchmark& b, const api::RankProcess& rank) {
  value ports = value::array();
  for (int p : rank.ports) {
    value cp = value::object();
    cp["name"] = str(p == b.spec.runtime.masterPort ? "store" : "metrics");
    cp["containerPort"] = value::number(p);
    ports[ports.size()] = cp;
  }
  return ports;
}

value volumeMount(const char* name, const char* path, bool readOnly) {
  value mount = value::object();
  mount["name"] = str(name);
  mount["mountPath"] = str(path);
  if (readOnly) mount["readOnly"] = value::boolean(true);
  return mount;
}

// The one container: the worker, as the role's template has it.
value workerContainer(const api::DistBenchmark& b, const api::RankProcess& rank,
                      const api::PodTemplate& podTemplate, const ClusterOptions& clusterOptions,
                      const value& securityContext) {
  value container = value::object();
  container["name"] = str("worker");
  applyTemplate(b, podTemplate, clusterOptions.workerImages, container);
  applyGpus(b, rank.role, podTemplate, container);
  // Memory from the spec's estimate (api/resource_estimate.h), so the
  // scheduler places a rank where it fits and a runaway rank is stopped
  // by its own limit, not by the node's OOM killer. A template that names
  // memory in either map has decided for itself.
  if (!podTemplate.requests.count("memory") && !podTemplate.limits.count("memory")) {
    const api::MemoryResources memory = api::defaultMemory(b.spec, rank.role);
    container["resources"]["requests"]["memory"] = str(memory.request);
    container["resources"]["limits"]["memory"] = str(memory.limit);
  }
  value command = value::array();
  for (size_t i = 0; i < rank.command.size(); ++i) command[i] = str(rank.command[i]);
  container["command"] = command;
  container["env"] = workerEnv(rank);
  container["ports"] = workerPorts(b, rank);
  container["volumeMounts"] = value::array({volumeMount("config", kConfigDir, true),
                                            volumeMount("scratch", kScratchDir, false),
                                            volumeMount("run-key", kRunKeyDir, true)});
  container["securityContext"] = securityContext;
  // The master's result summary reaches status through here.
  container["terminationMessagePolicy"] = str("FallbackToLogsOnError");
  return container;
}

// The config, the scratch space and the run key.
value podVolumes(const api::DistBenchmark& b) {
  value volume = value::object();
  volume["name"] = str("config");
  volume["configMap"]["name"] = str(api::configMapName(b.metadata.name));
  value scratchVolume = value::object();
  scratchVolume["name"] = str("scratch");
  // Bounded, so a rank that fills /tmp is evicted rather than the node's disk.
  scratchVolume["emptyDir"]["sizeLimit"] = str(kScratchSizeLimit);
  value runKeyVolume = value::object();
  runKeyVolume["name"] = str("run-key");
  runKeyVolume["secret"]["secretName"] = str(api::runKeySecretName(b.metadata.name));
  // Readable by the worker's non-root user; the pod has no other user.
  runKeyVolume["secret"]["defaultMode"] = value::number(0440);
  return value::array({volume, scratchVolume, runKeyVolume});
}

// The pod's spec around its container, before the template's and Fabric's
// additions.
value podSpec(const api::DistBenchmark& b, const api::RankProcess& rank, value securityContext,
              value container) {
  value spec = value::object();
  spec["hostname"] = str(rank.name);
  spec["subdomain"] = str(api::workersServiceName(b.metadata.name));
  // A failed rank restarts the whole gang (DDP cannot go on without it):
  // the operator decides, not the kubelet.
  spec["restartPolicy"] = str("Never");
  // Ranks never call the Kubernetes API: no token in their filesystem.
  spec["automountServiceAccountToken"] = value::boolean(false);
  spec["terminationGracePeriodSeconds"] = value::number(kTerminationGraceSeconds);
  // The pause process is PID 1, not the worker. A PID 1 ignores SIGTERM
  // until it installs a handler, and LibTorch's libraries load for a
  // second or more before main(): a rank deleted then was lost to its
  // whole grace period (measured in the e2e), its gang's restart with it.
  spec["shareProcessNamespace"] = value::boolean(true);
  spec["securityContext"] = std::move(securityContext);
  spec["containers"] = value::array({std::move(container)});
  spec["volumes"] = podVolumes(b);
  return spec;
}

value desiredPod(const api::DistBenchmark& b, const Owner& owner, const api::RankProcess& rank,
                 int gang, const ClusterOptions& clusterOptions) {
  const api::PodTemplate& podTemplate = templateOf(b, rank.role);
  const auto [podSecurity, containerSecurity] = securityContexts(podTemplate);
  value pod = value::object();
  pod["apiVersion"] = str("v1");
  pod["kind"] = str("Pod");
  pod["metadata"] = metadata(rank.name, b, owner, podLabels(rank, gang, owner));
  value& spec = pod["spec"];
  spec = podSpec(b, rank, podSecurity,
                 workerContainer(b, rank, podTemplate, clusterOptions, containerSecurity));
  applyTemplateToPod(podTemplate, spec);
  applyFabricPlacement(b, rank, owner.uid, spec, spec["containers"][0]["env"]);
  return pod;
}

}  // namespace

std::vector<value> desiredPods(const api::DistBenchmark& b, const Owner& owner,
                               const std::string& masterAddr, int gang,
                               const ClusterOptions& clusterOptions) {
  api::RenderOptions options;
  options.masterAddr = masterAddr;
  options.configPath = std::string(kConfigDir) + "/" + kConfigFile;
  options.runKeyFile = std::string(kRunKeyDir) + "/" + kRunKeyFile;
  // Trainer 0's lines become status.progress (run_progress.h).
  options.progress = true;
  const api::RenderedBenchmark rendered = api::render(b, options);
  std::vector<value> pods;
  for (const api::RankProcess& rank : rendered.ranks)
    pods.push_back(desiredPod(b, owner, rank, gang, clusterOptions));
  return pods;
}

}  // namespace distbench::op
