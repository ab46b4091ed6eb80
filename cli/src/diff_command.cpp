#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iostream>

#include "arg_parser.h"
#include "commands.h"
#include "diff_table.h"
#include "distbench/report/report_json.h"
#include "exit_codes.h"
#include "report_diff.h"

namespace distbench::cli {

const char* const kDiffUsage = R"USAGE(usage: distbench diff BASE TEST [flags]

Compare two reports (distbench run --report) row by row, laid out like
PyTorch's ddp/diff.py: the metadata of both side by side, then per benchmark
group TEST's time and rate at each percentile with the change from BASE, and
the change of the median with its bootstrap confidence interval. Changes are
of time: positive means TEST is slower. "n.s." marks a change whose interval
contains 0 (not significant). Reports of different kinds, models, batch sizes
or other group keys are refused.

flags:
  --percentiles LIST   percentiles to show, whole numbers 0-100 (default 75,95)
  --threshold PCT      exit 1 when a row's median is slower by more than PCT
                       percent and its interval lies above 0
  --confidence C       of the median's interval, in (0, 1) (default 0.95)
  --resamples N        bootstrap resamples (default 2000)
  --seed S             bootstrap seed; the same seed gives the same intervals
                       (default 1)

exit status: 0 compared (and no regression over --threshold), 1 a regression
over --threshold, 2 bad command line, unreadable report or reports that
cannot be compared
)USAGE";

namespace {

std::vector<int> parsePercentiles(const std::string& text) {
  const std::string error =
      "--percentiles needs whole numbers 0-100 separated by commas, not '" + text + "'";
  std::vector<int> percentiles;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma - start);
    char* end = nullptr;
    errno = 0;
    const long p = std::strtol(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || errno != 0 || p < 0 || p > 100) throw UsageError(error);
    percentiles.push_back(static_cast<int>(p));
    if (comma == std::string::npos) return percentiles;
    start = comma + 1;
  }
}

double parseNumber(const std::string& flag, const std::string& text, const std::string& what) {
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno != 0 || !std::isfinite(value)) {
    throw UsageError(flag + " needs " + what + ", not '" + text + "'");
  }
  return value;
}

uint64_t parseSeed(const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long seed = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || text[0] == '-' || *end != '\0' || errno != 0) {
    throw UsageError("--seed needs a whole number >= 0, not '" + text + "'");
  }
  return seed;
}

DiffOptions optionsFrom(const ParsedArgs& parsed) {
  DiffOptions options;
  if (auto text = parsed.value("--percentiles")) options.percentiles = parsePercentiles(*text);
  if (auto text = parsed.value("--threshold")) {
    const double pct = parseNumber("--threshold", *text, "a percentage >= 0");
    if (pct < 0) throw UsageError("--threshold needs a percentage >= 0, not '" + *text + "'");
    options.thresholdPercent = pct;
  }
  if (auto text = parsed.value("--confidence")) {
    const std::string what = "a confidence between 0 and 1 (0.95 for 95%)";
    const double c = parseNumber("--confidence", *text, what);
    if (!(c > 0 && c < 1)) throw UsageError("--confidence needs " + what + ", not '" + *text + "'");
    options.bootstrap.confidence = c;
  }
  if (auto text = parsed.value("--resamples")) {
    const int n = parseNonNegativeIntFlag("--resamples", *text);
    if (n < 1) throw UsageError("--resamples needs a whole number >= 1, not '" + *text + "'");
    options.bootstrap.resamples = n;
  }
  if (auto text = parsed.value("--seed")) options.bootstrap.seed = parseSeed(*text);
  return options;
}

}  // namespace

int diffCommand(const std::vector<std::string>& args) {
  ParsedArgs parsed = ArgParser({{"--percentiles", true},
                                 {"--threshold", true},
                                 {"--confidence", true},
                                 {"--resamples", true},
                                 {"--seed", true}})
                          .parse(args);
  if (parsed.has("--help")) {
    std::cout << kDiffUsage;
    return kExitOk;
  }
  const std::vector<std::string>& files = parsed.positionals();
  if (files.size() < 2) throw UsageError(files.empty() ? "missing BASE and TEST" : "missing TEST");
  if (files.size() > 2)
    throw UsageError("expected two reports, BASE and TEST, not " + std::to_string(files.size()) +
                     " files");
  const DiffOptions options = optionsFrom(parsed);

  // Both are usage problems: nothing was compared, so 1 (a regression) would lie.
  try {
    const report::Report base = report::loadReportFile(files[0]);
    const report::Report test = report::loadReportFile(files[1]);
    const ReportDiff diff = compareReports(base, test, options);
    std::cout << formatDiff(base, test, diff, options);
    // A gate that compared nothing must not pass: it would pass forever.
    if (diff.comparedRows() == 0) {
      std::cerr << "distbench diff: no row could be compared (see 'not compared' above)\n";
      return kExitUsage;
    }
    for (const GroupDiff& group : diff.groups) {
      for (const RowDiff& row : group.rows) {
        if (row.regressed) return kExitRegression;
      }
    }
    return kExitOk;
  } catch (const report::ReportError& error) {
    std::cerr << "distbench diff: " << error.what() << "\n";
  } catch (const IncomparableReports& error) {
    std::cerr << "distbench diff: " << error.what() << "\n";
  }
  return kExitUsage;
}

}  // namespace distbench::cli
