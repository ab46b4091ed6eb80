// spec.local as the --links and --slow text it stands for, and which of the
// two a run uses: a flag overrides its part of the block (--links the
// links, --slow the caps). Written as flag text, the block takes the one
// path the flags take (parsing, resolving, planning, the report's `local`
// block), so a spec and the flags cannot mean different things.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "distbench/api/benchmark_spec.h"

namespace distbench::cli {

// "bandwidth=1gbit;rank3=100mbit;rank1-rank2=50mbit" for {bandwidth: 1gbit,
// ranks: {rank3: 100mbit}, pairs: {rank1-rank2: 50mbit}}.
std::string linksText(const api::LocalLinks& links);
// "rank3=cpu:50%;trainer0=cpu:0.25"
std::string slowText(const std::map<std::string, api::LocalSlowRank>& slow);

struct SandboxRequest {
  std::string links;               // --links text; "" = no emulated links
  std::string slow;                // --slow text; "" = no CPU caps
  std::vector<std::string> notes;  // for the run's output: where each came from
};

// `linksFlag`/`slowFlag`: as given on the command line, "" when not given.
SandboxRequest sandboxRequest(const std::optional<api::LocalSpec>& local,
                              const std::string& linksFlag, const std::string& slowFlag);

}  // namespace distbench::cli
