#include "distbench/plugin/kubectl_error.h"

namespace distbench::plugin {
namespace {

bool has(const std::string& text, const char* part) { return text.find(part) != std::string::npos; }

// kubectl's last non-empty line, without its "Error from server" prefix.
std::string lastLine(const std::string& text) {
  std::string line;
  std::size_t end = text.size();
  while (end > 0) {
    const std::size_t start = text.rfind('\n', end - 1);
    const std::size_t from = start == std::string::npos ? 0 : start + 1;
    line = text.substr(from, end - from);
    if (line.find_first_not_of(" \t\r") != std::string::npos) break;
    if (start == std::string::npos) break;
    end = start;
  }
  for (const char* prefix : {"error: ", "Error: "}) {
    if (line.rfind(prefix, 0) == 0) line = line.substr(std::string(prefix).size());
  }
  return line;
}

}  // namespace

KubectlFailure classifyKubectlFailure(const std::string& e) {
  if (has(e, "doesn't have a resource type \"distbench") ||
      has(e, "no matches for kind \"DistBench")) {
    return KubectlFailure::NoCrd;
  }
  // RBAC's refusal names a user who cannot; a quota or an admission
  // webhook is forbidden too, and is not about rights.
  if ((has(e, "(Forbidden)") || has(e, " is forbidden: ")) && has(e, " cannot ")) {
    return KubectlFailure::Forbidden;
  }
  if (has(e, "(Unauthorized)") || has(e, "You must be logged in"))
    return KubectlFailure::Unauthorized;
  if (has(e, "Unable to connect to the server") || has(e, "connection refused") ||
      has(e, "was refused - did you specify the right host")) {
    return KubectlFailure::Unreachable;
  }
  // The server's answer only: "context was not found" is the kubeconfig's.
  if (has(e, "(NotFound)")) return KubectlFailure::NotFound;
  return KubectlFailure::Other;
}

std::string explainKubectlFailure(const std::vector<std::string>& args, const KubectlResult& r) {
  std::string call = "kubectl";
  for (std::size_t i = 0; i < args.size() && i < 3; ++i) call += " " + args[i];
  const std::string said = lastLine(r.err.empty() ? r.out : r.err);
  switch (classifyKubectlFailure(r.err)) {
    case KubectlFailure::NoCrd:
      return "distbench's CRDs are not installed in this cluster (" + said +
             "): install the operator's chart, charts/distbench-operator (docs/deploy.md)";
    case KubectlFailure::Forbidden:
      return "refused by the cluster's RBAC: " + said +
             " (docs/kubectl-plugin.md lists the rights kubectl distbench needs)";
    case KubectlFailure::Unauthorized:
      return "the cluster did not accept your credentials: " + said +
             " (check your kubeconfig's user, or log in again)";
    case KubectlFailure::Unreachable:
      return "cannot reach the cluster's API server: " + said;
    case KubectlFailure::NotFound:
      return said;
    case KubectlFailure::Other:
      break;
  }
  return call + " failed (exit " + std::to_string(r.exitCode) + "): " + said;
}

}  // namespace distbench::plugin
