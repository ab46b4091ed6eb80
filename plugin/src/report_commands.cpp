// report, diff and predict: distbench's own commands (cli/commands.h) on the
// reports the operator stored, named by their runs (cluster_reports.h).
#include <cpprest/json.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <optional>
#include <set>

#include "distbench/cli/arg_parser.h"
#include "distbench/cli/commands.h"
#include "distbench/plugin/cluster_objects.h"
#include "distbench/plugin/cluster_reports.h"
#include "distbench/plugin/commands.h"
#include "distbench/plugin/object_fields.h"

namespace distbench::plugin {
namespace {

using web::json::value;

bool wantsHelp(const std::vector<std::string>& args) {
  return std::find(args.begin(), args.end(), "--help") != args.end() ||
         std::find(args.begin(), args.end(), "-h") != args.end();
}

// The flags of distbench's report commands that take a value, so that
// their values are not read as run names.
bool takesValue(const std::string& flag) {
  static const std::set<std::string> flags = [] {
    std::set<std::string> names;
    for (const auto& specs : {cli::reportFlags(), cli::predictFlags()}) {
      for (const cli::FlagSpec& f : specs) {
        if (f.takesValue) names.insert(f.name);
      }
    }
    return names;
  }();
  return flags.count(flag) != 0;
}

// args with each run name (a positional, or --baseline's value) made a
// report source.
std::vector<std::string> withSources(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.rfind("--baseline=", 0) == 0) {
      out.push_back("--baseline=" + reportSource(a.substr(11)));
    } else if (a == "--baseline" && i + 1 < args.size()) {
      out.push_back(a);
      out.push_back(reportSource(args[++i]));
    } else if (takesValue(a) && i + 1 < args.size()) {
      out.push_back(a);
      out.push_back(args[++i]);
    } else if (!a.empty() && a[0] == '-') {
      out.push_back(a);
    } else {
      out.push_back(reportSource(a));
    }
  }
  return out;
}

// The schedule's runs (status.runs: name and uid, which alone make a run
// its own) whose report is stored: a run still going, or failed, has none.
std::set<std::string> storedRuns(const Kubectl& kubectl, const value& schedule) {
  std::map<std::string, std::string> uids;  // name -> uid
  const value& runs = fieldAt(fieldAt(schedule, "status"), "runs");
  if (runs.is_array()) {
    for (const value& r : runs.as_array()) uids[textAt(r, "name")] = textAt(r, "uid");
  }
  std::set<std::string> stored;
  for (const value& b : listObjects(kubectl, kBenchmarks)) {
    const std::string name = textAt(fieldAt(b, "metadata"), "name");
    const auto it = uids.find(name);
    const value* reported = conditionOf(b, "ReportStored");
    if (it != uids.end() && it->second == textAt(fieldAt(b, "metadata"), "uid") &&
        reported != nullptr && textAt(*reported, "status") == "True") {
      stored.insert(name);
    }
  }
  return stored;
}

// A schedule's kept runs with a stored report (`kept` of them), oldest
// first, as report sources; and its baseline
// settings as --trend flags.
std::vector<std::string> trendArgs(const value& schedule, const std::set<std::string>& stored,
                                   std::size_t& kept) {
  std::vector<std::pair<std::string, std::string>> runs;  // scheduledTime, name
  const value& listed = fieldAt(fieldAt(schedule, "status"), "runs");
  if (listed.is_array()) {
    for (const value& r : listed.as_array()) {
      runs.emplace_back(textAt(r, "scheduledTime"), textAt(r, "name"));
    }
  }
  std::sort(runs.begin(), runs.end());
  std::vector<std::string> args = {"--trend"};
  for (const auto& run : runs) {
    if (stored.count(run.second) != 0) args.push_back(reportSource(run.second));
  }
  kept = args.size() - 1;
  const value& baseline = fieldAt(fieldAt(schedule, "spec"), "baseline");
  if (fieldAt(baseline, "runs").is_number()) {
    args.insert(args.end(), {"--baseline-runs", std::to_string(integerAt(baseline, "runs"))});
  }
  if (fieldAt(baseline, "thresholdPercent").is_number()) {
    args.insert(args.end(),
                {"--threshold", std::to_string(fieldAt(baseline, "thresholdPercent").as_double())});
  }
  return args;
}

}  // namespace

const char* const kReportHelp =
    R"(usage: kubectl distbench report NAME [-o PAGE.html] [--baseline NAME2] [flags]

Write the HTML page of a run from the report the operator stored
(ConfigMap NAME-report): the same page `distbench report` writes from that
report saved as configmap/NAME-report. With --baseline, compared with
another run's report (or a file). NAME may be a DistBenchmarkSchedule: the
page then shows the trend over its kept runs, each compared with the runs
before it, pooled as the schedule's spec.baseline says (distbench report
--trend), one verdict line per run.

  -o, --output FILE   the page (default NAME.html)
and distbench report's flags (--threshold, --percentiles, ...; see
`distbench report --help`).

examples:
  kubectl distbench report small
  kubectl distbench -n team-a report small --baseline small-yesterday -o cmp.html
  kubectl distbench report nightly-canary     # a schedule: the trend page
)";

int reportCommand(const Kubectl& kubectl, const std::vector<std::string>& args) {
  if (wantsHelp(args)) {
    std::cout << kReportHelp;
    return 0;
  }
  std::vector<std::string> rest;
  std::string name;
  bool output = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-o" || args[i] == "--output" || args[i].rfind("--output=", 0) == 0)
      output = true;
    if (takesValue(args[i]) && i + 1 < args.size()) {
      rest.push_back(args[i]);
      rest.push_back(args[++i]);
    } else if (!args[i].empty() && args[i][0] != '-' && name.empty()) {
      name = args[i];
    } else {
      rest.push_back(args[i]);
    }
  }
  if (name.empty()) throw cli::UsageError("missing NAME, the run (or schedule) to show");
  const std::string plain = name.substr(name.rfind('/') + 1);
  if (!output) rest.insert(rest.end(), {"-o", plain + ".html"});
  std::vector<std::string> forwarded = withSources(rest);
  // A run, else a schedule of that name; schedule/NAME only the schedule;
  // a file or configmap/NAME as given.
  const bool scheduleNamed = name.rfind("schedule/", 0) == 0;
  const bool plainName = name.find('/') == std::string::npos && reportSource(name) != name;
  std::optional<value> schedule;
  if (scheduleNamed || (plainName && !getObject(kubectl, kBenchmarks, name))) {
    schedule = getObject(kubectl, kSchedules, plain);
    if (!schedule && scheduleNamed) throw KubectlError("no DistBenchmarkSchedule " + plain);
  }
  if (schedule) {
    std::size_t kept = 0;
    const std::vector<std::string> trend =
        trendArgs(*schedule, storedRuns(kubectl, *schedule), kept);
    if (kept < 2) {
      std::cerr << "kubectl distbench report: schedule " << plain << " keeps " << kept
                << " run(s) with a stored report; a trend needs two or more (status.runs)\n";
      return 2;
    }
    forwarded.insert(forwarded.begin(), trend.begin(), trend.end());
  } else {
    // A run, a file, or a name the loader says is neither.
    forwarded.insert(forwarded.begin(), reportSource(name));
  }
  return cli::reportCommand(forwarded, clusterReports(kubectl));
}

const char* const kDiffHelp =
    R"(usage: kubectl distbench diff BASE TEST [flags]

Compare two runs' stored reports row by row, as `distbench diff` compares
two files (either may be a file: a path with '/' or ending in .json).
Flags as distbench diff's (--threshold, --percentiles, --confidence, ...).

examples:
  kubectl distbench diff small-monday small-tuesday --threshold 5
)";

int diffCommand(const Kubectl& kubectl, const std::vector<std::string>& args) {
  if (wantsHelp(args)) {
    std::cout << kDiffHelp;
    return 0;
  }
  return cli::diffCommand(withSources(args), clusterReports(kubectl));
}

const char* const kPredictHelp =
    R"(usage: kubectl distbench predict NAME --bandwidth RATE [flags]

Predict each row of a run's stored report at another link speed or world
size, as `distbench predict` does for a file. Flags as distbench predict's
(--bandwidth, --rank N=RATE, --world-size, --json, ...).

examples:
  kubectl distbench predict small --bandwidth 10gbit
  kubectl distbench predict small --world-size 64 --json
)";

int predictCommand(const Kubectl& kubectl, const std::vector<std::string>& args) {
  if (wantsHelp(args)) {
    std::cout << kPredictHelp;
    return 0;
  }
  return cli::predictCommand(withSources(args), clusterReports(kubectl));
}

}  // namespace distbench::plugin
