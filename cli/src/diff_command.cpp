#include <iostream>

#include "distbench/cli/arg_parser.h"
#include "distbench/cli/commands.h"
#include "distbench/cli/diff_options.h"
#include "distbench/cli/exit_codes.h"
#include "distbench/report/diff_table.h"
#include "distbench/report/report_diff.h"
#include "distbench/report/report_json.h"

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

int diffCommand(const std::vector<std::string>& args, const ReportLoader& load) {
  ParsedArgs parsed = ArgParser(diffOptionFlags()).parse(args);
  if (parsed.has("--help")) {
    std::cout << kDiffUsage;
    return kExitOk;
  }
  const std::vector<std::string>& files = parsed.positionals();
  if (files.size() < 2) throw UsageError(files.empty() ? "missing BASE and TEST" : "missing TEST");
  if (files.size() > 2)
    throw UsageError("expected two reports, BASE and TEST, not " + std::to_string(files.size()) +
                     " files");
  const report::DiffOptions options = diffOptionsFrom(parsed);

  // Both are usage problems: nothing was compared, so 1 (a regression) would lie.
  try {
    const report::Report base = load(files[0]);
    const report::Report test = load(files[1]);
    const report::ReportDiff diff = report::compareReports(base, test, options);
    std::cout << report::formatDiff(base, test, diff, options);
    // A gate that compared nothing must not pass: it would pass forever.
    if (diff.comparedRows() == 0) {
      std::cerr << "distbench diff: no row could be compared (see 'not compared' above)\n";
      return kExitUsage;
    }
    return report::anyRegression(diff) ? kExitRegression : kExitOk;
  } catch (const report::ReportError& error) {
    std::cerr << "distbench diff: " << error.what() << "\n";
  } catch (const report::IncomparableReports& error) {
    std::cerr << "distbench diff: " << error.what() << "\n";
  }
  return kExitUsage;
}

}  // namespace distbench::cli
