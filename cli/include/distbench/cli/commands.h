// The subcommands, each taking the arguments after its name and returning
// the process exit status (exit_codes.h). UsageError escapes to main(),
// which prints it the same way for every subcommand.
#pragma once

#include <string>
#include <vector>

namespace distbench::cli {

int validateCommand(const std::vector<std::string>& args);
int renderCommand(const std::vector<std::string>& args);
int runCommand(const std::vector<std::string>& args);
int diffCommand(const std::vector<std::string>& args);
int reportCommand(const std::vector<std::string>& args);
int predictCommand(const std::vector<std::string>& args);

extern const char* const kMainUsage;
extern const char* const kValidateUsage;
extern const char* const kRenderUsage;
extern const char* const kRunUsage;
extern const char* const kDiffUsage;
extern const char* const kReportUsage;
extern const char* const kPredictUsage;

}  // namespace distbench::cli
