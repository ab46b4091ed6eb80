#include "distbench/cli/local_run/link_spec.h"

#include <cctype>
#include <set>

#include "distbench/api/local_spec.h"
#include "distbench/report/bit_rate.h"

namespace distbench::cli {
namespace {

std::string trim(const std::string& text) {
  std::size_t begin = 0;
  std::size_t end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return text.substr(begin, end - begin);
}

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// "k=v;k=v" (also ','), empty entries skipped; each entry must have '='.
std::vector<std::pair<std::string, std::string>> entries(const std::string& flag,
                                                         const std::string& text) {
  std::vector<std::pair<std::string, std::string>> result;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find_first_of(";,", start);
    if (end == std::string::npos) end = text.size();
    std::string entry = trim(text.substr(start, end - start));
    start = end + 1;
    if (entry.empty()) continue;
    std::size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == entry.size()) {
      throw SandboxSpecError(flag + ": '" + entry + "' is not KEY=VALUE");
    }
    result.emplace_back(lower(trim(entry.substr(0, eq))), trim(entry.substr(eq + 1)));
  }
  if (result.empty()) throw SandboxSpecError(flag + " needs at least one KEY=VALUE entry");
  return result;
}

[[noreturn]] void refuseLatency(const std::string& entry) {
  throw SandboxSpecError("--links: '" + entry + "': " + api::kNoLatencyReason);
}

double rate(const std::string& flag, const std::string& key, const std::string& value) {
  try {
    return report::parseBitRate(value);
  } catch (const report::BitRateError& error) {
    throw SandboxSpecError(flag + ": " + key + "=" + value + ": " + error.what());
  }
}

void checkUnique(const std::string& flag, std::set<std::string>& seen, const std::string& key) {
  if (!seen.insert(key).second) throw SandboxSpecError(flag + ": " + key + " is given twice");
}

}  // namespace

LinkSpec parseLinkSpec(const std::string& text) {
  LinkSpec spec;
  spec.text = text;
  std::set<std::string> seen;
  for (const auto& [key, value] : entries("--links", text)) {
    if (api::isLinkDelayOption(key)) refuseLatency(key + "=" + value);
    checkUnique("--links", seen, key);
    std::string rateText = value;
    // "rank5=bandwidth:100mbit" reads the same as "rank5=100mbit".
    std::size_t colon = value.find(':');
    if (colon != std::string::npos) {
      std::string what = lower(trim(value.substr(0, colon)));
      if (api::isLinkDelayOption(what)) refuseLatency(key + "=" + value);
      if (what != "bandwidth") {
        throw SandboxSpecError("--links: " + key + "=" + value + ": only bandwidth:RATE or RATE");
      }
      rateText = trim(value.substr(colon + 1));
    }
    if (key == "bandwidth") {
      spec.defaultBitsPerSecond = rate("--links", key, rateText);
    } else if (key.find('-') != std::string::npos) {
      spec.pairs.emplace_back(key, rate("--links", key, rateText));
    } else {
      spec.ranks.emplace_back(key, rate("--links", key, rateText));
    }
  }
  return spec;
}

SlowSpec parseSlowSpec(const std::string& text) {
  SlowSpec spec;
  spec.text = text;
  std::set<std::string> seen;
  for (const auto& [key, value] : entries("--slow", text)) {
    checkUnique("--slow", seen, key);
    const std::string where = "--slow: " + key + "=" + value;
    std::string lowered = lower(value);
    if (lowered.rfind("cpu:", 0) != 0) throw SandboxSpecError(where + ": expected cpu:PERCENT%");
    double cpus = 0;
    try {
      cpus = api::parseCpuCap(trim(value.substr(4)));
    } catch (const std::invalid_argument& error) {
      throw SandboxSpecError(where + ": " + error.what());
    }
    spec.cpu.emplace_back(key, cpus);
  }
  return spec;
}

int resolveSelector(const std::string& flag, const std::string& selector,
                    const std::vector<api::RankProcess>& ranks) {
  // Rendered ranks come in global-rank order, so their labels index by rank.
  std::vector<std::string> labels;
  for (const auto& process : ranks) labels.push_back(process.rankLabel);
  try {
    return api::resolveRankName(selector, labels);
  } catch (const std::invalid_argument& error) {
    throw SandboxSpecError(flag + ": " + selector + ": " + error.what());
  }
}

std::map<int, double> resolveLinks(const LinkSpec& links,
                                   const std::vector<api::RankProcess>& ranks) {
  std::map<int, double> result;
  if (links.defaultBitsPerSecond) {
    for (const auto& process : ranks) result[process.rank] = *links.defaultBitsPerSecond;
  }
  std::set<int> overridden;
  for (const auto& [selector, bitsPerSecond] : links.ranks) {
    int rank = resolveSelector("--links", selector, ranks);
    if (!overridden.insert(rank).second) {
      throw SandboxSpecError("--links: " + selector + " names rank " + std::to_string(rank) +
                             ", which another entry names too");
    }
    result[rank] = bitsPerSecond;
  }
  return result;
}

std::map<RankPair, double> resolvePairs(const LinkSpec& links,
                                        const std::vector<api::RankProcess>& ranks) {
  std::vector<std::string> labels;
  for (const auto& process : ranks) labels.push_back(process.rankLabel);
  std::map<RankPair, double> result;
  std::map<RankPair, std::string> named;
  for (const auto& [pair, bitsPerSecond] : links.pairs) {
    RankPair ranksOf;
    try {
      ranksOf = api::resolveRankPair(pair, labels);
    } catch (const std::invalid_argument& error) {
      throw SandboxSpecError("--links: " + pair + ": " + error.what());
    }
    if (auto [it, fresh] = named.emplace(ranksOf, pair); !fresh) {
      throw SandboxSpecError(
          "--links: " + pair + " names the link of ranks " + std::to_string(ranksOf.first) +
          " and " + std::to_string(ranksOf.second) + ", which " + it->second + " names too");
    }
    result[ranksOf] = bitsPerSecond;
  }
  return result;
}

std::map<int, double> resolveSlow(const SlowSpec& slow,
                                  const std::vector<api::RankProcess>& ranks) {
  std::map<int, double> result;
  for (const auto& [selector, cpus] : slow.cpu) {
    int rank = resolveSelector("--slow", selector, ranks);
    if (!result.emplace(rank, cpus).second) {
      throw SandboxSpecError("--slow: " + selector + " names rank " + std::to_string(rank) +
                             ", which another entry names too");
    }
  }
  return result;
}

}  // namespace distbench::cli
