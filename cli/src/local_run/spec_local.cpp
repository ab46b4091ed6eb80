#include "distbench/cli/local_run/spec_local.h"

#include <cctype>

#include "distbench/api/local_spec.h"
#include "distbench/report/bit_rate.h"

namespace distbench::cli {
namespace {

// As parseLinkSpec and parseSlowSpec read a rank name.
std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace

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

LinkSpec linkSpecOf(const api::LocalLinks& links) {
  LinkSpec spec;
  spec.text = linksText(links);
  if (links.bandwidth) spec.defaultBitsPerSecond = report::parseBitRate(*links.bandwidth);
  for (const auto& [rank, rate] : links.ranks) {
    spec.ranks.emplace_back(lower(rank), report::parseBitRate(rate));
  }
  for (const auto& [pair, rate] : links.pairs) {
    spec.pairs.emplace_back(lower(pair), report::parseBitRate(rate));
  }
  return spec;
}

SlowSpec slowSpecOf(const std::map<std::string, api::LocalSlowRank>& slow) {
  SlowSpec spec;
  spec.text = slowText(slow);
  for (const auto& [rank, cap] : slow) spec.cpu.emplace_back(lower(rank), api::parseCpuCap(cap.cpu));
  return spec;
}

SandboxRequest sandboxRequest(const std::optional<api::LocalSpec>& local,
                              const LinkSpec& linksFlag, const SlowSpec& slowFlag) {
  SandboxRequest request{linksFlag, slowFlag, {}};
  if (!local) return request;
  if (local->links) {
    if (linksFlag.empty()) {
      request.links = linkSpecOf(*local->links);
      request.notes.push_back("distbench: spec.local.links, as --links \"" + request.links.text +
                              "\"");
    } else {
      request.notes.push_back("distbench: --links overrides spec.local.links");
    }
  }
  if (!local->slow.empty()) {
    if (slowFlag.empty()) {
      request.slow = slowSpecOf(local->slow);
      request.notes.push_back("distbench: spec.local.slow, as --slow \"" + request.slow.text + "\"");
    } else {
      request.notes.push_back("distbench: --slow overrides spec.local.slow");
    }
  }
  return request;
}

}  // namespace distbench::cli
