// The rules attribution.cpp and each kind's file share: the bound from the
// exposed share, the straggler test, the slow link from `local`'s counters,
// and the what-if arithmetic. Private to the report library.
#pragma once

#include <cpprest/json.h>

#include <optional>
#include <string>
#include <vector>

#include "distbench/report/report.h"
#include "distbench/report/row_attribution.h"

namespace distbench::report::attribution_detail {

using web::json::value;

// A slow link must take at least this many times as long per run as any
// other link, and its traffic this share of the measured time.
inline constexpr double kLinkDominance = 1.5;
// Without link counters a link is inferred from timings, which on a loaded
// machine differ by 1.5x between identical trainers (measured: 1.6x on an
// unshaped 2-trainer run on 2 cores); a link a tenth of the others' rate
// shows 10x or more.
inline constexpr double kTimedLinkDominance = 3.0;
inline constexpr double kLinkRunShare = 0.1;
// A link is slower than the others when its rate is below this share of theirs.
inline constexpr double kSlowerRate = 0.9;

// JSON lookups that answer "absent" rather than throw.
const value* member(const value& object, const std::string& name);
std::optional<double> numberAt(const value& object, const std::string& name);
// The `mean` of summary `phases[name]`, absent if either is.
std::optional<double> phaseMean(const value& phases, const std::string& name);
// Its `p50`, else its `mean`: what the straggler test compares, so that one
// slow iteration (a page fault, the scheduler) does not make a straggler.
std::optional<double> phaseMedian(const value& phases, const std::string& name);

double median(std::vector<double> values);
double mean(const std::vector<double>& values);
double p50(std::vector<double> values);

// "compute" | "communication" | "mixed" by the share of exposed communication.
std::string boundOf(double exposedShare);

// "0.210 s", "12.4 ms", "310 us": ASCII, so it travels in any message.
std::string seconds(double s);
std::string percent(double share);

// One rank of `local.ranks`, as far as attribution reads it.
struct LocalRank {
  int rank = 0;
  std::string name;
  std::optional<double> linkBitsPerSecond;
  double linkBytes = 0;  // max(egress, ingress) bytes over the run
  std::optional<double> cpuLimit;
  std::optional<double> throttledSeconds;
};

struct Local {
  bool present = false;
  std::vector<LocalRank> ranks;
  std::optional<double> unshapedBitsPerSecond;
};

Local readLocal(const Report& report);

// How the report names `rank`: from `local` where it lists it, else by the
// kind's rank layout (master 0; HybridDDPRPC's parameter servers next).
std::string rankName(const Report& report, const Local& local, int rank);

struct RankCompute {
  int rank = 0;
  double compute = 0;  // forward + backward + optimizerStep, per step
  double wait = 0;     // allreduceWait per step
};

struct StragglerFinding {
  int rank = 0;
  double excess = 0;  // per step, over the median of the others
  double othersMedian = 0;
  double compute = 0;
};

// The fallback for reports without per-step samples (straggler_interval.h
// is the test where they exist): the rank whose compute exceeds
// kStragglerFactor × the median of the
// others' and whose wait is the smallest; none with fewer than two ranks.
// Its excess must also be at least kStragglerMinShare of `stepSeconds` (the
// step its compute is per): a rank 15 % slower in a compute phase that is
// 1 % of the step holds nobody back worth naming.
inline constexpr double kStragglerMinShare = 0.05;
// A hybrid trainer's own work includes its RPCs, whose times vary between
// identical trainers far more than dense compute does: measured on 2 cores,
// an unshaped 2-trainer run showed one trainer 10-18 % of the step ahead of
// the other, a trainer capped at 20 % of a CPU 48-60 %.
inline constexpr double kHybridStragglerMinShare = 0.25;
std::optional<StragglerFinding> findStraggler(const std::vector<RankCompute>& ranks,
                                              double stepSeconds, double factor,
                                              double minShare = kStragglerMinShare);

// kStragglerFactor, or kSharedCoresStragglerFactor where the report's ranks
// share the cores of one host (a CPU run with more ranks than it has).
double stragglerFactor(const Report& report);

// "compute 2.00x the others' median (...), the smallest allreduceWait",
// plus the rank's CPU cap from `local` where it has one.
// `what` names what RankCompute::compute held ("compute").
std::string stragglerEvidence(const StragglerFinding& s, const Local& local,
                              const std::string& perWhat, const std::string& what = "compute");

// "; CPU capped at 25%, throttled 1.31 s" where `local` capped the rank; "" otherwise.
std::string cpuCapText(int rank, const Local& local);

// A CPU limit stalls a rank wherever its quota runs out. Where the ranks
// spend their CPU in a collective (a hybrid trainer's dense allreduce) that
// is inside the collective: every rank's timings then show the same wait,
// and the throttled rank runs its own phases faster than the rest
// (uncontended while they wait) -- measured, a hybrid trainer capped at 25 %
// of a CPU: lookup 1.0 ms vs 3.2, backward 9 ms vs 16, allreduceWait 37 ms
// vs 25-29. No timing tells that from waiting for peers; the cgroup's
// throttle counter (local.ranks[].throttledSeconds; a pod's cpu.stat) does.
// A rank of `ranks` throttled for at least kStarvedShare of the measured
// run, where no other of them was throttled half as long, is named from it.
inline constexpr double kStarvedShare = 0.1;
struct StarvedFinding {
  int rank = 0;
  double throttledSeconds = 0;
  double share = 0;  // of the measured run, capped at 1
  std::string evidence;
};
// The most throttled rank of `ranks`, if at least `minShare` of the
// measured run and twice any other's.
std::optional<StarvedFinding> findStarved(const Local& local, const std::vector<int>& ranks,
                                          double measuredSeconds, double minShare);

// Throttling for this share of the run is too little to name a rank by
// itself, but where the timing test shows a significant, material excess
// it is the likelier cause: a throttled rank's stalls land in the
// collective and make the others look slower (measured: DDP trainers capped
// at 75 %, throttled 1-2 % of the run, left the other trainer 5-6x their
// own work). The one rank so throttled is named in place of the timing's;
// several are: inconclusive.
inline constexpr double kThrottleDoubtShare = 0.01;

// The throttle counters over the timing test's result (row.straggler and
// row.stragglerCheck, set already; `excess` its excess, per batch or
// iteration): a starved rank of `ranks` is named, with no excess (how much
// of its throttled time the others waited is not in the report), in place
// of a rank the timing named. `stalled`: the timing test found a
// significant excess of at least the share that matters (named, or
// inconclusive with an interval above 0); then a rank throttled
// kThrottleDoubtShare is named as its cause (see there). The timing's own
// verdict and name stay in stragglerCheck.timingVerdict / timingName.
void applyThrottleCounters(RowAttribution& row, const Report& report, const Local& local,
                           const std::vector<int>& ranks, double measuredSeconds, bool stalled,
                           double& excess);

struct LinkFinding {
  int rank = 0;
  std::string name;
  double bitsPerSecond = 0;
  double othersBitsPerSecond = 0;  // 0: the others are unshaped and unmeasured
  double runShare = 0;             // its traffic's time / the measured time (capped at 1)
  std::string evidence;
};

// The shaped rank slower than the others whose traffic takes longest on its
// link, if that is kLinkDominance × any other link's time and kLinkRunShare
// of `measuredSeconds` (the run's measured time, warm-up excluded).
std::optional<LinkFinding> findSlowLink(const Report& report, const Local& local,
                                        double measuredSeconds);

// How much of the exposed communication a link would stop adding at the
// others' rate: the time its `slowSeconds` of traffic per step would save,
// never more than what is exposed. Others' rate unknown: all of it.
double linkSaving(double slowSeconds, const LinkFinding& link, double exposedSeconds);

SlowLink toSlowLink(const LinkFinding& link);

// Combines what-ifs: the straggler's excess and the link's saving off the
// step, never below `floorSeconds` (what the step's compute alone takes).
void setWhatIf(RowAttribution& row, double excess, double saving, double floorSeconds);

// The kinds' rows (attribution_ddp.cpp, attribution_hybrid.cpp,
// attribution.cpp for Collectives).
std::vector<RowAttribution> attributeDdp(const Report& report, const value& results,
                                         const Local& local,
                                         const std::optional<LinkFinding>& link);
std::vector<RowAttribution> attributeHybrid(const Report& report, const value& results,
                                            const Local& local,
                                            const std::optional<LinkFinding>& link);

// The run's measured seconds, warm-up excluded, as each kind's series hold them.
double measuredSeconds(const Report& report, const value& results);

}  // namespace distbench::report::attribution_detail
