#include "distbench/api/local_spec.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <set>
#include <stdexcept>

#include "distbench/api/rank_layout.h"
#include "distbench/report/bit_rate.h"

namespace distbench::api {
namespace {

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

bool isRankN(const std::string& name) {
  return name.size() > 4 && name.size() < 14 && name.rfind("rank", 0) == 0 &&
         std::all_of(name.begin() + 4, name.end(),
                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

}  // namespace

const char* const kNoLatencyReason =
    "latency cannot be emulated here; distbench shapes bandwidth only (tbf), since adding "
    "delay needs the netem qdisc, which this kernel does not have";

bool isLinkDelayOption(const std::string& word) {
  static const std::set<std::string> words = {"latency", "delay", "loss", "jitter", "rtt"};
  return words.count(word) != 0;
}

double parseCpuCap(const std::string& text) {
  std::string amount = text;
  while (!amount.empty() && std::isspace(static_cast<unsigned char>(amount.back()))) {
    amount.pop_back();
  }
  const bool percent = !amount.empty() && amount.back() == '%';
  if (percent) amount.pop_back();
  char* end = nullptr;
  const double number = std::strtod(amount.c_str(), &end);
  if (amount.empty() || std::isspace(static_cast<unsigned char>(amount[0])) ||
      end != amount.c_str() + amount.size()) {
    throw std::invalid_argument("'" + text + "' is not a number (write 50% or 0.5)");
  }
  const double cpus = percent ? number / 100.0 : number;
  // A cgroup quota below 1 % of a 10 ms period (100 us) is not enforced well.
  if (!(cpus >= 0.01) || cpus > 1024) {
    throw std::invalid_argument("the cap must be between 1% and 102400% of one CPU");
  }
  return cpus;
}

std::vector<std::string> rankLabels(const TopologySpec& topology) {
  std::vector<std::string> labels;
  const int world = 1 + topology.parameterServers + topology.trainers;
  for (int rank = 0; rank < world; ++rank) labels.push_back(rankLabel(topology, rank));
  return labels;
}

int resolveRankName(const std::string& name, const std::vector<std::string>& labels) {
  const std::string wanted = lower(name);
  const int world = static_cast<int>(labels.size());
  if (isRankN(wanted)) {
    const long rank = std::strtol(wanted.c_str() + 4, nullptr, 10);
    if (rank < world) return static_cast<int>(rank);
    throw std::invalid_argument("no rank " + std::to_string(rank) + ": the topology has " +
                                std::to_string(world) + " ranks (0 to " +
                                std::to_string(world - 1) + ")");
  }
  std::string known;
  for (int rank = 0; rank < world; ++rank) {
    if (lower(labels[rank]) == wanted) return rank;
    known += (known.empty() ? "" : ", ") + labels[rank];
  }
  throw std::invalid_argument("no rank '" + name + "' (use rankN or one of: " + known + ")");
}

std::pair<int, int> resolveRankPair(const std::string& pair,
                                    const std::vector<std::string>& labels) {
  // No rank name has a '-' in it (rankN, master, psN, trainerN).
  const std::size_t dash = pair.find('-');
  if (dash == std::string::npos || dash == 0 || dash + 1 == pair.size() ||
      pair.find('-', dash + 1) != std::string::npos) {
    throw std::invalid_argument("'" + pair + "' is not a pair of ranks (write trainer1-trainer3)");
  }
  const int a = resolveRankName(pair.substr(0, dash), labels);
  const int b = resolveRankName(pair.substr(dash + 1), labels);
  if (a == b) {
    throw std::invalid_argument("pairs rank " + std::to_string(a) + " with itself");
  }
  return {std::min(a, b), std::max(a, b)};
}

std::vector<FieldError> validateLocal(const DistBenchmarkSpec& spec) {
  std::vector<FieldError> errors;
  if (!spec.local) return errors;
  const LocalSpec& local = *spec.local;
  // Rank names mean something only in a topology validation accepted.
  const TopologySpec& t = spec.topology;
  const bool ranksKnown = t.trainers >= 1 && t.parameterServers >= 0 &&
                          worldSize(spec) <= kMaxWorldSize;
  const std::vector<std::string> labels = ranksKnown ? rankLabels(t) : std::vector<std::string>{};

  auto checkRate = [&](const std::string& field, const std::string& text) {
    try {
      report::parseBitRate(text);
    } catch (const report::BitRateError& error) {
      errors.push_back({field, error.what()});
    }
  };
  // Each rank once per list, whichever way it is named ("rank5" and "trainer2").
  auto checkRanks = [&](const std::string& list, const std::vector<std::string>& names) {
    if (!ranksKnown) return;
    std::map<int, std::string> named;
    for (const std::string& name : names) {
      try {
        const int rank = resolveRankName(name, labels);
        auto [it, fresh] = named.emplace(rank, name);
        if (!fresh) {
          errors.push_back({list + "." + name, "names rank " + std::to_string(rank) +
                                                   ", which " + it->second + " names too"});
        }
      } catch (const std::invalid_argument& error) {
        errors.push_back({list + "." + name, error.what()});
      }
    }
  };

  if (local.links) {
    const std::string lp = "spec.local.links";
    if (!local.links->bandwidth && local.links->ranks.empty() && local.links->pairs.empty()) {
      errors.push_back({lp, "set bandwidth, ranks, pairs or some of them (or leave links out)"});
    }
    if (local.links->bandwidth) checkRate(lp + ".bandwidth", *local.links->bandwidth);
    std::vector<std::string> names;
    for (const auto& [name, rate] : local.links->ranks) {
      checkRate(lp + ".ranks." + name, rate);
      names.push_back(name);
    }
    checkRanks(lp + ".ranks", names);
    // Each link once, whichever way round and however its ranks are named.
    std::map<std::pair<int, int>, std::string> pairs;
    for (const auto& [name, rate] : local.links->pairs) {
      const std::string field = lp + ".pairs." + name;
      checkRate(field, rate);
      if (!ranksKnown) continue;
      try {
        auto [it, fresh] = pairs.emplace(resolveRankPair(name, labels), name);
        if (!fresh) {
          errors.push_back({field, "names the link of ranks " + std::to_string(it->first.first) +
                                       " and " + std::to_string(it->first.second) + ", which " +
                                       it->second + " names too"});
        }
      } catch (const std::invalid_argument& error) {
        errors.push_back({field, error.what()});
      }
    }
  }
  std::vector<std::string> slowNames;
  for (const auto& [name, slow] : local.slow) {
    try {
      parseCpuCap(slow.cpu);
    } catch (const std::invalid_argument& error) {
      errors.push_back({"spec.local.slow." + name + ".cpu", error.what()});
    }
    slowNames.push_back(name);
  }
  checkRanks("spec.local.slow", slowNames);
  return errors;
}

}  // namespace distbench::api
