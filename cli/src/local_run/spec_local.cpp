#include "distbench/cli/local_run/spec_local.h"

namespace distbench::cli {

std::string linksText(const api::LocalLinks& links) {
  std::string text;
  auto add = [&text](const std::string& key, const std::string& rate) {
    text += (text.empty() ? "" : ";") + key + "=" + rate;
  };
  if (links.bandwidth) add("bandwidth", *links.bandwidth);
  for (const auto& [rank, rate] : links.ranks) add(rank, rate);
  for (const auto& [pair, rate] : links.pairs) add(pair, rate);
  return text;
}

std::string slowText(const std::map<std::string, api::LocalSlowRank>& slow) {
  std::string text;
  for (const auto& [rank, cap] : slow) text += (text.empty() ? "" : ";") + rank + "=cpu:" + cap.cpu;
  return text;
}

SandboxRequest sandboxRequest(const std::optional<api::LocalSpec>& local,
                              const std::string& linksFlag, const std::string& slowFlag) {
  SandboxRequest request{linksFlag, slowFlag, {}};
  if (!local) return request;
  if (local->links) {
    if (linksFlag.empty()) {
      request.links = linksText(*local->links);
      request.notes.push_back("distbench: spec.local.links, as --links \"" + request.links + "\"");
    } else {
      request.notes.push_back("distbench: --links overrides spec.local.links");
    }
  }
  if (!local->slow.empty()) {
    if (slowFlag.empty()) {
      request.slow = slowText(local->slow);
      request.notes.push_back("distbench: spec.local.slow, as --slow \"" + request.slow + "\"");
    } else {
      request.notes.push_back("distbench: --slow overrides spec.local.slow");
    }
  }
  return request;
}

}  // namespace distbench::cli
