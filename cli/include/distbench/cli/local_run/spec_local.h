// spec.local as the parsed --links and --slow it stands for, and which of the
// two a run uses: a flag overrides its part of the block (--links the
// links, --slow the caps). The block's rates and caps, which validation
// checked with the same parsers (report::parseBitRate, api::parseCpuCap),
// become the LinkSpec and SlowSpec the flags parse into, so the block and
// the flags take one path from there (resolving, planning, the report's
// `local` block) and cannot mean different things. Only their text is
// written out, for the run's notes and the report; nothing parses it again.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "distbench/api/benchmark_spec.h"
#include "distbench/cli/local_run/link_spec.h"

namespace distbench::cli {

// "bandwidth=1gbit;rank3=100mbit;rank1-rank2=50mbit" for {bandwidth: 1gbit,
// ranks: {rank3: 100mbit}, pairs: {rank1-rank2: 50mbit}}.
std::string linksText(const api::LocalLinks& links);
// "rank3=cpu:50%;trainer0=cpu:0.25"
std::string slowText(const std::map<std::string, api::LocalSlowRank>& slow);

// A validated block's links and caps, as parseLinkSpec/parseSlowSpec would
// read linksText/slowText (that text in `text`, rank names in lower case).
LinkSpec linkSpecOf(const api::LocalLinks& links);
SlowSpec slowSpecOf(const std::map<std::string, api::LocalSlowRank>& slow);

struct SandboxRequest {
  LinkSpec links;                  // empty = no emulated links
  SlowSpec slow;                   // empty = no CPU caps
  std::vector<std::string> notes;  // for the run's output: where each came from
};

// `linksFlag`/`slowFlag`: as parsed from the command line, empty when not
// given.
SandboxRequest sandboxRequest(const std::optional<api::LocalSpec>& local,
                              const LinkSpec& linksFlag, const SlowSpec& slowFlag);

}  // namespace distbench::cli
