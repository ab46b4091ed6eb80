#include "desired_objects.h"

#include "distbench/api/renderer.h"
#include "distbench/api/spec_yaml.h"

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

}  // namespace

std::string configMapName(const api::DistBenchmark& b) { return b.metadata.name + "-config"; }
std::string headlessServiceName(const api::DistBenchmark& b) { return b.metadata.name; }
std::string masterServiceName(const api::DistBenchmark& b) { return b.metadata.name + "-master"; }

value desiredConfigMap(const api::DistBenchmark& b, const Owner& owner) {
  value cm = value::object();
  cm["apiVersion"] = str("v1");
  cm["kind"] = str("ConfigMap");
  cm["metadata"] = metadata(configMapName(b), b, owner);
  cm["data"] = value::object();
  cm["data"][kConfigFile] = str(api::render(b).configYaml);
  return cm;
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
  s["spec"]["ports"] = value::array({std::move(firstPort)});
  return s;
}

}  // namespace

value desiredHeadlessService(const api::DistBenchmark& b, const Owner& owner) {
  value s = service(headlessServiceName(b), b, owner, port("metrics", b.spec.runtime.metricsPort));
  s["spec"]["clusterIP"] = str("None");  // per-pod DNS records, no virtual IP
  return s;
}

value desiredMasterService(const api::DistBenchmark& b, const Owner& owner) {
  value s = service(masterServiceName(b), b, owner, port("store", b.spec.runtime.masterPort));
  s["spec"]["type"] = str("ClusterIP");
  s["spec"]["selector"][kLabelRole] = str("master");
  return s;
}

std::vector<value> desiredPods(const api::DistBenchmark& b, const Owner& owner,
                               const std::string& masterAddr, int gang) {
  api::RenderOptions options;
  options.masterAddr = masterAddr;
  options.configPath = std::string(kConfigDir) + "/" + kConfigFile;
  const api::RenderedBenchmark rendered = api::render(b, options);

  std::vector<value> pods;
  for (const api::RankProcess& rank : rendered.ranks) {
    value extra = value::object();
    extra[kLabelRole] = str(api::toString(rank.role));
    extra[kLabelRank] = str(std::to_string(rank.rank));
    extra[kLabelGang] = str(std::to_string(gang));

    value container = value::object();
    container["name"] = str("worker");
    container["image"] = str(b.spec.runtime.image);
    value command = value::array();
    for (size_t i = 0; i < rank.command.size(); ++i) command[i] = str(rank.command[i]);
    container["command"] = command;
    value env = value::array();
    for (const api::EnvVar& e : rank.env) env[env.size()] = envVar(e.name, e.value);
    // Gloo binds to the pod's own address; no DNS needed for it.
    env[env.size()] = fieldEnv("POD_IP", "status.podIP");
    env[env.size()] = fieldEnv("POD_NAME", "metadata.name");
    container["env"] = env;
    value ports = value::array();
    for (int p : rank.ports) {
      value cp = value::object();
      cp["name"] = str(p == b.spec.runtime.masterPort ? "store" : "metrics");
      cp["containerPort"] = value::number(p);
      ports[ports.size()] = cp;
    }
    container["ports"] = ports;
    value mount = value::object();
    mount["name"] = str("config");
    mount["mountPath"] = str(kConfigDir);
    mount["readOnly"] = value::boolean(true);
    container["volumeMounts"] = value::array({mount});
    // The master's result summary reaches status through here.
    container["terminationMessagePolicy"] = str("FallbackToLogsOnError");

    value pod = value::object();
    pod["apiVersion"] = str("v1");
    pod["kind"] = str("Pod");
    pod["metadata"] = metadata(rank.name, b, owner, extra);
    value& spec = pod["spec"];
    spec["hostname"] = str(rank.name);
    spec["subdomain"] = str(headlessServiceName(b));
    // A failed rank restarts the whole gang (DDP cannot go on without it):
    // the operator decides, not the kubelet.
    spec["restartPolicy"] = str("Never");
    // Ranks never call the Kubernetes API: no token in their filesystem.
    spec["automountServiceAccountToken"] = value::boolean(false);
    spec["containers"] = value::array({container});
    value volume = value::object();
    volume["name"] = str("config");
    volume["configMap"]["name"] = str(configMapName(b));
    spec["volumes"] = value::array({volume});
    pods.push_back(pod);
  }
  return pods;
}

}  // namespace distbench::op
