#include "distbench/cli/local_run/sandbox_plan.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <stdexcept>

#include "distbench/report/alpha_beta.h"

namespace distbench::cli {

const RankSandbox* SandboxPlan::find(int rank) const {
  for (const RankSandbox& r : ranks) {
    if (r.rank == rank) return &r;
  }
  return nullptr;
}

std::string rankAddress(int rank) {
  // 198.18.0.0/16 holds 65,519 ranks from .0.16; kMaxWorldSize is far below.
  if (rank < 0 || rank > 65000) throw std::out_of_range("rank " + std::to_string(rank));
  const std::uint32_t host = 16u + static_cast<std::uint32_t>(rank);
  return "198.18." + std::to_string(host >> 8) + "." + std::to_string(host & 0xffu);
}

SandboxPlan planSandbox(const std::string& runId, const std::vector<api::RankProcess>& ranks,
                        const std::map<int, double>& links, const std::map<int, double>& cpu,
                        bool network, const std::map<std::pair<int, int>, double>& pairs) {
  SandboxPlan plan;
  plan.runId = runId;
  plan.network = network;
  if (network) plan.pairs = pairs;
  const std::string base = std::string(kSandboxPrefix) + runId;
  if (network) plan.hubNetns = base + "-hub";
  for (const api::RankProcess& process : ranks) {
    RankSandbox rank;
    rank.rank = process.rank;
    rank.label = process.rankLabel;
    if (network) {
      rank.netns = base + "-r" + std::to_string(process.rank);
      rank.address = rankAddress(process.rank);
      if (auto it = links.find(process.rank); it != links.end()) {
        rank.linkBitsPerSecond = it->second;
      }
      for (const auto& [pair, bitsPerSecond] : pairs) {
        if (pair.first == process.rank) rank.peerBitsPerSecond[pair.second] = bitsPerSecond;
        if (pair.second == process.rank) rank.peerBitsPerSecond[pair.first] = bitsPerSecond;
      }
    }
    if (auto it = cpu.find(process.rank); it != cpu.end()) {
      rank.cpuLimit = it->second;
      rank.cgroup = "distbench/" + runId + "/r" + std::to_string(process.rank);
    }
    plan.ranks.push_back(rank);
  }
  return plan;
}

std::string tbfLine(const std::string& device, double bitsPerSecond) {
  // 50 ms of queue never dropped a packet in the measurements behind this.
  return "qdisc add dev " + device + " root tbf rate " +
         std::to_string(std::llround(bitsPerSecond)) + "bit burst " +
         std::to_string(report::tbfBurstBytes(bitsPerSecond)) + " latency 50ms";
}

std::string pairClassId(int peer) {
  // Minor 1 is the rank's own class; class minors are hex, 16 bits.
  if (peer < 0 || peer > 0xfffd) throw std::out_of_range("rank " + std::to_string(peer));
  char text[16];
  std::snprintf(text, sizeof text, "1:%x", peer + 2);
  return text;
}

namespace {

std::string htbClassLine(const std::string& device, const std::string& classId,
                         double bitsPerSecond) {
  const std::string rate = std::to_string(std::llround(bitsPerSecond)) + "bit";
  const std::string burst = std::to_string(report::tbfBurstBytes(bitsPerSecond));
  // No class borrows (all hang off the root), so the quantum only has to be
  // one htb accepts without a warning at any rate.
  return "class add dev " + device + " parent 1: classid " + classId + " htb rate " + rate +
         " ceil " + rate + " burst " + burst + " cburst " + burst + " quantum 60000";
}

}  // namespace

std::vector<std::string> htbLines(const std::string& device, std::optional<double> ownBitsPerSecond,
                                  const std::map<int, double>& peers, const std::string& match) {
  std::vector<std::string> lines;
  lines.push_back("qdisc add dev " + device + " root handle 1: htb default " +
                  (ownBitsPerSecond ? "1" : "0"));
  if (ownBitsPerSecond) lines.push_back(htbClassLine(device, "1:1", *ownBitsPerSecond));
  for (const auto& [peer, bitsPerSecond] : peers) {
    lines.push_back(htbClassLine(device, pairClassId(peer), bitsPerSecond));
    lines.push_back("filter add dev " + device + " parent 1: protocol ip prio 1 u32 match ip " +
                    match + " " + rankAddress(peer) + "/32 flowid " + pairClassId(peer));
  }
  return lines;
}

std::string hubDevice(int rank) { return "r" + std::to_string(rank); }

std::vector<std::string> netnsAddLines(const SandboxPlan& plan) {
  std::vector<std::string> lines;
  if (!plan.network) return lines;
  lines.push_back("netns add " + plan.hubNetns);
  for (const RankSandbox& rank : plan.ranks) lines.push_back("netns add " + rank.netns);
  return lines;
}

std::vector<std::string> hubIpLines(const SandboxPlan& plan) {
  std::vector<std::string> lines;
  if (!plan.network) return lines;
  lines.push_back("link set lo up");
  lines.push_back("link add br0 type bridge");
  lines.push_back("link set br0 up");
  for (const RankSandbox& rank : plan.ranks) {
    const std::string device = hubDevice(rank.rank);
    lines.push_back("link add " + device + " type veth peer name " + kRankDevice + " netns " +
                    rank.netns);
    lines.push_back("link set " + device + " master br0");
    lines.push_back("link set " + device + " up");
  }
  return lines;
}

std::vector<std::string> rankIpLines(const SandboxPlan& plan, const RankSandbox& rank) {
  if (!plan.network) return {};
  // lo starts down in a new namespace, and the master reaches its own store
  // over 127.0.0.1.
  return {"link set lo up",
          "addr add " + rank.address + "/" + std::to_string(kRankPrefixLength) + " dev " +
              kRankDevice,
          std::string("link set ") + kRankDevice + " up",
          std::string("link set ") + kRankDevice + " gso_max_size " +
              std::to_string(kRankGsoMaxBytes)};
}

std::vector<std::string> hubTcLines(const SandboxPlan& plan) {
  std::vector<std::string> lines;
  for (const RankSandbox& rank : plan.ranks) {
    if (!rank.peerBitsPerSecond.empty()) {
      // Traffic into the rank, told apart by who sent it.
      for (std::string& line :
           htbLines(hubDevice(rank.rank), rank.linkBitsPerSecond, rank.peerBitsPerSecond, "src")) {
        lines.push_back(std::move(line));
      }
    } else if (rank.linkBitsPerSecond) {
      lines.push_back(tbfLine(hubDevice(rank.rank), *rank.linkBitsPerSecond));
    }
  }
  return lines;
}

std::vector<std::string> rankTcLines(const RankSandbox& rank) {
  if (!rank.peerBitsPerSecond.empty()) {
    return htbLines(kRankDevice, rank.linkBitsPerSecond, rank.peerBitsPerSecond, "dst");
  }
  if (!rank.linkBitsPerSecond) return {};
  return {tbfLine(kRankDevice, *rank.linkBitsPerSecond)};
}

long long cpuPeriodMicros(double cpus) {
  return std::max(10000LL, std::llround(1000.0 / cpus));
}

long long cpuQuotaMicros(double cpus) {
  return std::max(1000LL, std::llround(cpus * static_cast<double>(cpuPeriodMicros(cpus))));
}

}  // namespace distbench::cli
