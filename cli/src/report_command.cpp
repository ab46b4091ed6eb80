#include <cstdio>
#include <iostream>
#include <optional>
#include <set>
#include <stdexcept>

#include "distbench/api/regression_threshold.h"
#include "distbench/cli/arg_parser.h"
#include "distbench/cli/commands.h"
#include "distbench/cli/diff_options.h"
#include "distbench/cli/exit_codes.h"
#include "distbench/cli/report_page/chart_libraries.h"
#include "distbench/cli/report_page/report_page.h"
#include "distbench/process/replace_file.h"
#include "distbench/report/baseline_trend.h"
#include "distbench/report/report_diff.h"
#include "distbench/report/report_json.h"

namespace distbench::cli {

const char* const kReportUsage =
    R"USAGE(usage: distbench report RUN.json -o PAGE.html [--baseline BASE.json] [flags]
       distbench report --trend RUN.json... -o PAGE.html [flags]

Write one self-contained HTML page of a report (distbench run --report):
charts of the run (HybridDDPRPC: epoch-time distributions per trainer and
the per-batch phases; DDP: throughput and scaling efficiency against world
size and the phase split; Collectives: latency and bus bandwidth against
message size), the measurements, and the environment and config. The chart
libraries are inside the page: it opens offline and fetches nothing.

With --baseline, the page also compares RUN with BASE.json as
`distbench diff BASE.json RUN.json` does, row by row, with the median's
bootstrap confidence interval, and marks the regressions. Reports of
different kinds, models, batch sizes or other group keys are refused.

With --trend, RUN.json... are runs of one benchmark, oldest first (in the
order given). Each is compared with the pooled samples of the up to N runs
before it that did not regress (a rolling baseline, as a
DistBenchmarkSchedule keeps), and the page opens with a trend section: each
row's p50 per run, the baseline's median and the band up to median x (1 +
threshold), and the regressed runs. Each run's verdict is printed too, one
line per run. The rest of the page shows the newest run.

flags:
  -o, --output FILE    the page to write (required)
  --baseline FILE      a report to compare RUN with
  --trend              RUN.json... are a series of runs, oldest first
  --baseline-runs N    with --trend: runs pooled into each baseline (default 5)
and, with --baseline or --trend, as for distbench diff:
  --threshold PCT      a row regresses when its median is slower by more than
                       PCT percent and its interval lies above 0; exit 1 if
                       one does (the page is written either way); with
                       --trend the default is 5 and exit 1 means the newest
                       run regressed
  --percentiles LIST   percentiles to compare, whole numbers 0-100 (default 75,95)
  --confidence C       of the median's interval, in (0, 1) (default 0.95)
  --resamples N        bootstrap resamples (default 2000)
  --seed S             bootstrap seed (default 1)

exit status: 0 written (and no regression over --threshold), 1 written and a
row regressed over --threshold, 2 nothing written: bad command line,
unreadable report, a baseline that cannot be compared, an unwritable FILE, or
a distbench built without the chart libraries (-DDISTBENCH_REPORT_HTML=OFF);
also 2, after writing, when --baseline compared no row at all, or when the
newest run of a --trend could not be compared with the runs before it
)USAGE";

namespace {

const char* const kNotBuiltIn =
    "this distbench was built without the chart libraries (cmake "
    "-DDISTBENCH_REPORT_HTML=OFF), so it cannot write HTML pages. Build distbench with "
    "-DDISTBENCH_REPORT_HTML=ON after scripts/install-chart-libraries.sh, or run `distbench "
    "report` where such a build is (a report is a plain JSON file and can be copied there)";

struct PageNotWritten : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Written whole or not at all: an interrupted write leaves no half page
// behind under the name asked for, and nothing planted beside it is followed
// (distbench report may run as root in a shared directory).
void writePage(const std::string& path, const std::string& page) {
  try {
    process::replaceFile(path, page);
  } catch (const std::runtime_error& error) {
    throw PageNotWritten(error.what());
  }
}

std::string baseName(const std::string& path) {
  std::string name = path.substr(path.find_last_of('/') + 1);
  const std::string json = ".json";
  if (name.size() > json.size() &&
      name.compare(name.size() - json.size(), json.size(), json) == 0) {
    name.resize(name.size() - json.size());
  }
  return name;
}

// "run-3: Regression against 2 runs; worst smallcnn with batch size 16 / 1M/2R +12.0% [+8.1%,
// +15.9%]"
std::string trendLine(const report::TrendRun& run) {
  std::string line = run.name + ": " + report::verdictName(run.verdict);
  if (!run.pool.empty()) line += " against " + std::to_string(run.pool.size()) + " runs";
  if (const report::TrendPoint* worst = report::worstPoint(run)) {
    char change[96];
    std::snprintf(change, sizeof change, " %+.1f%% [%+.1f%%, %+.1f%%]",
                  worst->change->pointChange * 100, worst->change->low * 100,
                  worst->change->high * 100);
    line += "; worst " + worst->group + " / " + worst->row + change;
  }
  if (!run.note.empty()) line += " (" + run.note + ")";
  return line;
}

// Every run replayed against the rolling baseline, a line each on stdout,
// and the page of the newest with the trend on top.
int trendPage(const std::vector<std::string>& files, const std::string& output,
              const report::TrendOptions& options, const std::vector<ChartLibrary>& libraries,
              const ReportLoader& load) {
  // Runs are named by their files; as given where two share a name.
  std::vector<std::string> names;
  for (const std::string& file : files) names.push_back(baseName(file));
  const bool unique = std::set<std::string>(names.begin(), names.end()).size() == names.size();
  std::vector<report::PooledRun> runs;
  for (size_t i = 0; i < files.size(); ++i) {
    runs.push_back({unique ? names[i] : files[i], load(files[i])});
  }
  const std::vector<report::TrendRun> trend = report::replayTrend(runs, options);
  ReportPageInput input;
  input.run = &runs.back().report;
  input.runSource = files.back();
  input.options = options.diff;
  input.trend = &trend;
  input.trendOptions = options;
  writePage(output, renderReportPage(input, libraries));
  for (const report::TrendRun& run : trend) std::cout << trendLine(run) << "\n";
  std::cerr << "distbench report: wrote " << output << "\n";
  switch (trend.back().verdict) {
    case report::PoolVerdict::Regression:
      std::cerr << "distbench report: the newest run regressed over "
                << *options.diff.thresholdPercent
                << "% against the runs before it (see the page)\n";
      return kExitRegression;
    case report::PoolVerdict::Incomparable:
      std::cerr << "distbench report: the newest run could not be compared with the runs before "
                   "it: "
                << trend.back().note << "\n";
      return kExitUsage;
    default:
      return kExitOk;
  }
}

int parseBaselineRuns(const std::string& text) {
  const int n = parseNonNegativeIntFlag("--baseline-runs", text);
  if (n < 1) throw UsageError("--baseline-runs needs a whole number >= 1, not '" + text + "'");
  return n;
}

ParsedArgs parseReportArgs(const std::vector<std::string>& args) {
  return ArgParser(reportFlags()).parse(args);
}

// What `distbench report` was asked for, checked before any file is read.
struct ReportRequest {
  bool trend = false;
  std::vector<std::string> files;
  std::string output;
  std::optional<std::string> baselinePath;
  report::DiffOptions options;
  report::TrendOptions trendOptions;  // with --trend
};

// The reports given: one, or with --trend a series. Throws UsageError.
void checkReportFiles(const ParsedArgs& parsed, bool trend) {
  const std::vector<std::string>& files = parsed.positionals();
  if (files.empty()) throw UsageError("missing RUN, the report to show");
  if (trend) {
    if (files.size() < 2) {
      throw UsageError("--trend needs at least two reports, oldest first, not " +
                       std::to_string(files.size()));
    }
    if (parsed.has("--baseline")) {
      throw UsageError(
          "--trend compares each run with the runs before it; --baseline goes "
          "without --trend");
    }
  } else if (parsed.has("--baseline-runs")) {
    throw UsageError("--baseline-runs needs --trend");
  } else if (files.size() > 1) {
    throw UsageError("expected one report, RUN, not " + std::to_string(files.size()) +
                     " files (a second one to compare with goes after --baseline)");
  }
}

// Throws UsageError naming the flag.
ReportRequest reportRequest(const ParsedArgs& parsed) {
  ReportRequest request;
  request.trend = parsed.has("--trend");
  checkReportFiles(parsed, request.trend);
  request.files = parsed.positionals();
  std::optional<std::string> output = parsed.value("--output");
  if (auto o = parsed.value("-o")) output = o;
  if (!output || output->empty()) throw UsageError("missing -o FILE, the page to write");
  request.output = *output;
  request.baselinePath = parsed.value("--baseline");
  request.options = diffOptionsFrom(parsed);
  if (request.trend) {
    if (!request.options.thresholdPercent) {
      request.options.thresholdPercent = api::kDefaultRegressionThresholdPercent;
    }
    if (auto n = parsed.value("--baseline-runs")) {
      request.trendOptions.baselineRuns = parseBaselineRuns(*n);
    }
    request.trendOptions.diff = request.options;
  } else if (!request.baselinePath) {
    for (const FlagSpec& flag : diffOptionFlags()) {
      if (parsed.has(flag.name)) throw UsageError(flag.name + " needs --baseline");
    }
  }
  return request;
}

// The page of one run, compared with --baseline where given; the exit
// status as diff's.
int runPage(const ReportRequest& request, const std::vector<ChartLibrary>& libraries,
            const ReportLoader& load) {
  const report::Report run = load(request.files[0]);
  ReportPageInput input;
  input.run = &run;
  input.runSource = request.files[0];
  input.options = request.options;
  std::optional<report::Report> baseline;
  std::optional<report::ReportDiff> diff;
  if (request.baselinePath) {
    baseline = load(*request.baselinePath);
    diff = report::compareReports(*baseline, run, request.options);
    input.baseline = &*baseline;
    input.baselineSource = *request.baselinePath;
    input.diff = &*diff;
  }
  writePage(request.output, renderReportPage(input, libraries));
  std::cerr << "distbench report: wrote " << request.output << "\n";
  if (!diff) return kExitOk;
  // As diff: a gate that compared nothing must not pass.
  if (diff->comparedRows() == 0) {
    std::cerr << "distbench report: no row could be compared with the baseline (see the "
                 "page's notes)\n";
    return kExitUsage;
  }
  if (report::anyRegression(*diff)) {
    std::cerr << "distbench report: regressions over " << *request.options.thresholdPercent
              << "% against the baseline (see the page)\n";
    return kExitRegression;
  }
  return kExitOk;
}

}  // namespace

std::vector<FlagSpec> reportFlags() {
  std::vector<FlagSpec> flags = diffOptionFlags();
  flags.push_back({"--output", true});
  flags.push_back({"-o", true});
  flags.push_back({"--baseline", true});
  flags.push_back({"--trend", false});
  flags.push_back({"--baseline-runs", true});
  return flags;
}

int reportCommand(const std::vector<std::string>& args, const ReportLoader& load) {
  const ParsedArgs parsed = parseReportArgs(args);
  if (parsed.has("--help")) {
    std::cout << kReportUsage;
    return kExitOk;
  }
  const ReportRequest request = reportRequest(parsed);

  const std::vector<ChartLibrary>& libraries = chartLibraries();
  if (libraries.empty()) {
    std::cerr << "distbench report: " << kNotBuiltIn << "\n";
    return kExitUsage;
  }

  // As for diff: nothing written, so 1 (a regression) would lie.
  try {
    if (request.trend) {
      return trendPage(request.files, request.output, request.trendOptions, libraries, load);
    }
    return runPage(request, libraries, load);
  } catch (const report::ReportError& error) {
    std::cerr << "distbench report: " << error.what() << "\n";
  } catch (const report::IncomparableReports& error) {
    std::cerr << "distbench report: " << error.what() << "\n";
  } catch (const PageNotWritten& error) {
    std::cerr << "distbench report: " << error.what() << "\n";
  }
  return kExitUsage;
}

}  // namespace distbench::cli
