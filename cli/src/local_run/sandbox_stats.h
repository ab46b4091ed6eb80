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
  std::optional<QdiscCounters> egress;   // tbf on the rank's eth0 (upload)
  std::optional<QdiscCounters> ingress;  // tbf on the hub-side veth (download)
  std::optional<double> throttledSeconds;
  std::optional<double> cpuSeconds;
};

// The tbf root qdisc's counters in `tc -s -j qdisc show dev DEV` output;
// nullopt when there is none or the text is not that JSON.
std::optional<QdiscCounters> parseTbfCounters(const std::string& tcJson);

// The `local` object (JSON text) of the report.
std::string localBlockJson(const SandboxPlan& plan, const std::string& links,
                           const std::string& slow, const std::map<int, RankCounters>& counters);

}  // namespace distbench::cli
