// The subcommands, each taking the arguments after its name and returning
// the process exit status (exit_codes.h). UsageError escapes to main(),
// which prints it the same way for every subcommand.
#pragma once

#include <string>
#include <vector>

#include "distbench/cli/arg_parser.h"
#include "distbench/cli/report_loader.h"

namespace distbench::cli {

int validateCommand(const std::vector<std::string>& args);
int renderCommand(const std::vector<std::string>& args);
int runCommand(const std::vector<std::string>& args);
// The report commands read each report named on their command line with
// `load` (report_loader.h).
int diffCommand(const std::vector<std::string>& args, const ReportLoader& load = fileReports());
int reportCommand(const std::vector<std::string>& args, const ReportLoader& load = fileReports());
int predictCommand(const std::vector<std::string>& args, const ReportLoader& load = fileReports());

// The flags of report and predict (diff's: diffOptionFlags(), diff_options.h),
// for a front end that must tell a flag's value from a report's name.
std::vector<FlagSpec> reportFlags();
std::vector<FlagSpec> predictFlags();

extern const char* const kMainUsage;
extern const char* const kValidateUsage;
extern const char* const kRenderUsage;
extern const char* const kRunUsage;
extern const char* const kDiffUsage;
extern const char* const kReportUsage;
extern const char* const kPredictUsage;

}  // namespace distbench::cli
