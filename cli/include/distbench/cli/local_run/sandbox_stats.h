// What `distbench run` knows about its ranks that they cannot see
// themselves: the tbf counters of both directions of each link, CPU seconds
// and cgroup throttling. Written into the report as its `local` block
// (docs/report-schema.md, "## `local`").
#pragma once

#include <map>
#include <optional>
#include <string>

#include "distbench/cli/local_run/sandbox_plan.h"

namespace distbench::cli {

struct QdiscCounters {
  long long bytes = 0;
  long long packets = 0;
  long long overlimits = 0;
  long long drops = 0;
};

struct RankCounters {
  std::optional<QdiscCounters> egress;      // tbf/htb on the rank's eth0 (upload)
  std::optional<QdiscCounters> ingress;     // tbf/htb on the hub-side veth (download)
  std::map<int, QdiscCounters> sentToPeer;  // peer -> the pair class on eth0
  std::optional<double> throttledSeconds;
  std::optional<double> cpuSeconds;
};

// The tbf or htb root qdisc's counters in `tc -s -j qdisc show dev DEV`
// output (htb's: all the device's traffic, pair classes included); nullopt
// when there is none or the text is not that JSON.
std::optional<QdiscCounters> parseTbfCounters(const std::string& tcJson);
// One htb class's counters in `tc -s class show dev DEV classid ID` text
// (iproute2 6.1 writes htb classes as text even with -j); nullopt without
// its "Sent ... pkt (dropped ..., overlimits ..." line.
std::optional<QdiscCounters> parseClassCounters(const std::string& tcText);

// The `local` object (JSON text) of the report; `pairs` lists each pair
// link with its rate and what each end sent through it.
std::string localBlockJson(const SandboxPlan& plan, const std::string& links,
                           const std::string& slow, const std::map<int, RankCounters>& counters);

}  // namespace distbench::cli
