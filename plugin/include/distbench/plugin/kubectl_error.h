// One sentence for a kubectl call that failed: what kubectl said, and what
// to do about the cases a kubectl distbench user meets (the CRDs not
// installed, an RBAC refusal, credentials refused, no API server, an
// object not found).
#pragma once

#include <string>
#include <vector>

#include "distbench/plugin/kubectl.h"

namespace distbench::plugin {

enum class KubectlFailure { NoCrd, Forbidden, Unauthorized, Unreachable, NotFound, Other };

KubectlFailure classifyKubectlFailure(const std::string& stderrText);

// "kubectl get distbenchmarks ...: <kubectl's line>; <advice>"
std::string explainKubectlFailure(const std::vector<std::string>& args,
                                  const KubectlResult& result);

}  // namespace distbench::plugin
