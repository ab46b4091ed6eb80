// The helm and kubectl that tests run (chart tests, kubectl distbench's
// tests): from $DISTBENCH_HELM_BIN, else
// ${DISTBENCH_HELM_CACHE:-~/.cache/distbench/helm}/bin (where
// scripts/install-helm.sh puts them), else PATH. Not the machine's kubectl
// first: a dispatcher or an old one there is not what the tests pin.
#pragma once

#include <string>

namespace distbench::kubetest {

struct KubeTools {
  std::string helm;      // empty when not found
  std::string kubectl;   // empty when not found
  std::string searched;  // where they were looked for, for messages
};
const KubeTools& kubeTools();

// CI is set to true (as CI systems do): a missing tool is then a failure,
// not a skip.
bool inCi();

}  // namespace distbench::kubetest
