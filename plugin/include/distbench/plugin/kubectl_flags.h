// kubectl's global flags among a plugin's arguments. kubectl refuses them
// before a plugin's name (`kubectl -n x distbench` is an error), so users
// write `kubectl distbench -n x report y`; the plugin hands them to every
// kubectl call it makes and keeps the rest for itself.
#pragma once

#include <string>
#include <vector>

namespace distbench::plugin {

struct SplitArgs {
  std::vector<std::string> kubectl;  // as given, values included
  std::vector<std::string> rest;
};

// Everything after "--" is left in `rest`.
SplitArgs splitKubectlFlags(const std::vector<std::string>& args);

// The flags taken, for --help.
extern const char* const kKubectlFlagsHelp;

}  // namespace distbench::plugin
