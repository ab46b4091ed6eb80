// spec.local's rules, shared by validation and by `distbench run`'s --links
// and --slow flags, so the YAML block and the flags accept the same rates,
// caps and rank names and refuse the same things for the same reasons.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "distbench/api/benchmark_spec.h"
#include "distbench/api/spec_error.h"

namespace distbench::api {

// Why latency, delay, loss and jitter are refused: adding delay needs the
// netem qdisc, which the kernel distbench was built on does not have, and
// shaping that only pretends to add delay would mislead.
extern const char* const kNoLatencyReason;
// latency, delay, loss, jitter, rtt (lower case): options that need netem.
bool isLinkDelayOption(const std::string& word);

// A CPU cap in CPUs: "50%" is 0.5, "0.25" a quarter of one CPU; 1 % to
// 102400 %. Throws std::invalid_argument saying what is wrong with it.
double parseCpuCap(const std::string& text);

// Each global rank's label (master, ps0.., trainer0..), indexed by rank.
std::vector<std::string> rankLabels(const TopologySpec& topology);
// Global rank of "rank5" or of a label (any case). Throws
// std::invalid_argument: "no rank 9: the topology has 4 ranks (0 to 3)" or
// "no rank 'trainer7' (use rankN or one of: master, ps0, ...)".
int resolveRankName(const std::string& name, const std::vector<std::string>& labels);

// The two ranks of a link pair "trainer1-trainer3" (each any form
// resolveRankName takes, joined by one '-'), as {lower, higher}. Throws
// std::invalid_argument: not two names, an unknown name, or a rank paired
// with itself.
std::pair<int, int> resolveRankPair(const std::string& pair,
                                    const std::vector<std::string>& labels);

// The errors of spec.local, each naming its field
// (spec.local.links.ranks.rank9). Empty when there is no block. Rank names are
// resolved only against a topology that is itself valid.
std::vector<FieldError> validateLocal(const DistBenchmarkSpec& spec);

}  // namespace distbench::api
