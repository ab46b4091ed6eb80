// kubectl distbench's commands, each taking the arguments after its name
// (kubectl's own flags already taken out, kubectl_flags.h) and returning
// the exit status (exit_codes.h). cli::UsageError escapes to main().
#pragma once

#include <string>
#include <vector>

#include "distbench/plugin/kubectl.h"

namespace distbench::plugin {

int reportCommand(const Kubectl& kubectl, const std::vector<std::string>& args);
int diffCommand(const Kubectl& kubectl, const std::vector<std::string>& args);
int predictCommand(const Kubectl& kubectl, const std::vector<std::string>& args);
int getCommand(const Kubectl& kubectl, const std::vector<std::string>& args);
int listCommand(const Kubectl& kubectl, const std::vector<std::string>& args);
int logsCommand(const Kubectl& kubectl, const std::vector<std::string>& args);
int runCommand(const Kubectl& kubectl, const std::vector<std::string>& args);

extern const char* const kMainUsage;

}  // namespace distbench::plugin
