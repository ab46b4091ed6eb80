// The whole sandbox of one `distbench run --links/--slow`, decided before
// anything is made: namespace names, addresses, the `ip`/`tc` batch lines
// per namespace and the cgroup of each capped rank. Pure, so golden tests
// pin every command; net_sandbox.h and cgroup_cpu.h carry it out.
//
// Layout: one hub namespace per run holding the bridge, one namespace per
// rank joined to it by a veth pair (eth0 in the rank, r<rank> in the hub).
// Nothing is made in the root namespace, so there are no 15-character name
// limits there, no clash with podman's bridge or its FORWARD rules, and
// deleting the hub removes every veth.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "distbench/api/renderer.h"

namespace distbench::cli {

// Every name this feature makes starts with it; the sweep touches nothing else.
inline constexpr const char* kSandboxPrefix = "dbl-";

struct RankSandbox {
  int rank = 0;
  std::string label;                     // "master", "trainer2"
  std::string netns;                     // "dbl-<id>-r<rank>"; empty: no --links
  std::string address;                   // "198.18.0.16"; empty: no --links
  std::optional<double> linkBitsPerSecond;
  std::map<int, double> peerBitsPerSecond;  // peer rank -> the rate of their pair link
  std::optional<double> cpuLimit;        // of one CPU
  std::string cgroup;                    // "distbench/<id>/r<rank>"; empty: not capped
};

struct SandboxPlan {
  std::string runId;                     // 8 hex characters
  bool network = false;                  // --links given: namespaces for every rank
  std::string hubNetns;                  // "dbl-<id>-hub"
  std::vector<RankSandbox> ranks;        // in the order of the rendered ranks
  std::map<std::pair<int, int>, double> pairs;  // {lower, higher rank} -> bit/s

  const RankSandbox* find(int rank) const;
};

SandboxPlan planSandbox(const std::string& runId, const std::vector<api::RankProcess>& ranks,
                        const std::map<int, double>& links, const std::map<int, double>& cpu,
                        bool network, const std::map<std::pair<int, int>, double>& pairs = {});

// 198.18.0.0/15 is RFC 2544's benchmarking range, never a private one. Each
// run is its own L2 domain, so every run can use the same plan:
// rank r -> 198.18.0.0 + 16 + r (198.18.0.1 stays free for a host leg).
std::string rankAddress(int rank);
inline constexpr int kRankPrefixLength = 16;

// Every rank's eth0 builds TCP segments of at most this many bytes. tbf
// splits, in software, any GSO packet larger than its bucket (32 KiB at
// the least, report::tbfBurstBytes) into MTU-sized packets: 64 KiB GSO
// packets cost the 2-vCPU CI VM about 0.4 of a CPU per 200 Mbit/s, taken
// from the ranks' compute (a DDP backward 40 % slower than unshaped).
// Segments that fit the bucket pass whole.
inline constexpr int kRankGsoMaxBytes = 30000;
// "qdisc add dev DEV root tbf rate Nbit burst B latency 50ms" (a tc batch line);
// B is report::tbfBurstBytes
std::string tbfLine(const std::string& device, double bitsPerSecond);

// A rank in a pair gets htb instead of tbf on both of its devices: class
// 1:1 at its own rate (the default class; without one, other traffic goes
// out unshaped through htb's direct queue), and per peer a class at the
// pair's rate that a u32 filter on the peer's address picks (destination on
// eth0, source on the hub-side r<rank>). Both ends shape the pair, so each
// direction holds the rate whatever either rank's own rate.
std::string pairClassId(int peer);  // "1:<peer + 2, hex>"
std::vector<std::string> htbLines(const std::string& device, std::optional<double> ownBitsPerSecond,
                                  const std::map<int, double>& peers, const std::string& match);

// Batch lines, each list for one `ip`/`tc` invocation.
std::vector<std::string> netnsAddLines(const SandboxPlan& plan);  // ip -batch, root ns
std::vector<std::string> hubIpLines(const SandboxPlan& plan);     // ip -n hub -batch
std::vector<std::string> rankIpLines(const SandboxPlan& plan, const RankSandbox& rank);
std::vector<std::string> hubTcLines(const SandboxPlan& plan);     // download of each shaped rank
std::vector<std::string> rankTcLines(const RankSandbox& rank);    // its upload

// The device of each direction: upload = eth0 in the rank's namespace,
// download = the hub-side end r<rank> (the bridge sends into it).
std::string hubDevice(int rank);
inline constexpr const char* kRankDevice = "eth0";

// cgroup cpu settings for a cap: a 10 ms period, so a capped rank stalls for
// a few ms at a time rather than 50 ms, which steps of milliseconds would
// see as jitter. Quota covers all threads of the rank together.
// The kernel refuses quotas under 1 ms, so caps under 10 % get a longer period.
long long cpuPeriodMicros(double cpus);
long long cpuQuotaMicros(double cpus);

}  // namespace distbench::cli
