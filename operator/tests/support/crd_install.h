// The distbench CRDs installed on the shared test cluster: each applied once
// per test binary from crds/ and waited on until Established and served, for
// every test that needs the resource (the CRDs' own tests, the reconcilers').
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

namespace distbench::kubetest {

struct Crd {
  std::string name, group, version, plural;
  bool namespaced = true;
  YAML::Node schema;  // the served version's openAPIV3Schema
  // The collection; `ns` is ignored for a cluster-scoped resource.
  std::string path(const std::string& ns) const {
    return "/apis/" + group + "/" + version + (namespaced ? "/namespaces/" + ns : "") + "/" +
           plural;
  }
};

// Throws std::runtime_error (the same message on every later call) when the
// CRD cannot be applied or does not become Established within 60 s.
const Crd& establishedCrd();
// The same for DistBenchmarkSchedule.
const Crd& establishedScheduleCrd();
// The same for DistBenchPreflightPolicy (cluster-scoped).
const Crd& establishedPreflightPolicyCrd();
// Kueue v0.15.8's Workload and AdmissionCheck (third_party/kueue), the
// Workload's as scripts/kueue-crds-for-test-apiserver.py makes it loadable.
const Crd& establishedKueueWorkloadCrd();
const Crd& establishedKueueAdmissionCheckCrd();

std::string readFile(const std::string& path);

}  // namespace distbench::kubetest
