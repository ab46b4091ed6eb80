// What `distbench run --links` and `--slow` ask for, as written and before
// any rank exists: "bandwidth=1gbit;rank5=100mbit" and "rank3=cpu:50%".
// Pure parsing; resolving selectors against the rendered ranks is separate
// (resolveRanks), so errors can name the selector and the ranks that exist.
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "distbench/api/renderer.h"

namespace distbench::cli {

// Bad --links / --slow text; the message names the flag and the entry.
struct SandboxSpecError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

struct LinkSpec {
  std::string text;  // as given (or the text spec.local stands for, spec_local.h)
  std::optional<double> defaultBitsPerSecond;          // bandwidth=…, every rank
  std::vector<std::pair<std::string, double>> ranks;   // selector -> bit/s
  std::vector<std::pair<std::string, double>> pairs;   // "trainer1-trainer3" -> bit/s
  bool empty() const { return !defaultBitsPerSecond && ranks.empty() && pairs.empty(); }
};

// The two ranks of a link, lower first.
using RankPair = std::pair<int, int>;

struct SlowSpec {
  std::string text;  // as given (or the text spec.local stands for)
  std::vector<std::pair<std::string, double>> cpu;     // selector -> CPUs (0.5 = half of one)
  bool empty() const { return cpu.empty(); }
};

// "bandwidth=1gbit;rank5=100mbit;trainer1-trainer3=50mbit" (';' or ','
// between entries); a key with a '-' is a pair of rank selectors. Rates go
// through report::parseBitRate. latency/delay/loss/jitter are refused: this
// needs netem, which the kernel distbench was built on does not have, and
// shaping that only pretends to add delay would mislead.
LinkSpec parseLinkSpec(const std::string& text);

// "rank3=cpu:50%" or "trainer1=cpu:0.25" (a fraction of one CPU).
SlowSpec parseSlowSpec(const std::string& text);

// Global rank of "rank5", or of a rank label ("master", "ps0", "trainer2");
// throws SandboxSpecError naming the flag, the selector and what exists.
int resolveSelector(const std::string& flag, const std::string& selector,
                    const std::vector<api::RankProcess>& ranks);

// Per global rank: the link rate (default applied, overrides win) and the
// CPU cap. Ranks without either are absent.
std::map<int, double> resolveLinks(const LinkSpec& links,
                                   const std::vector<api::RankProcess>& ranks);
// Per link (unordered pair of global ranks): its rate. Throws
// SandboxSpecError naming the entry: an unknown rank, a rank paired with
// itself, or one link named twice (rank1-rank3 and trainer2-ps0 alike).
std::map<RankPair, double> resolvePairs(const LinkSpec& links,
                                        const std::vector<api::RankProcess>& ranks);
std::map<int, double> resolveSlow(const SlowSpec& slow,
                                  const std::vector<api::RankProcess>& ranks);

}  // namespace distbench::cli
