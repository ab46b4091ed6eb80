// Runs `ip` and `tc` for the sandbox: to completion, with a deadline, and
// with their output kept for the refusal or warning that quotes it.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace distbench::cli {

struct ToolResult {
  bool ok = false;
  std::string output;  // stdout, then stderr
  std::string error;   // stderr, or why it could not run; trimmed
};

ToolResult runTool(const std::vector<std::string>& argv,
                   std::chrono::milliseconds timeout = std::chrono::seconds(20));

// Runs `argv` plus "-batch FILE" with `lines` in FILE (one fork per
// namespace instead of one per command). Empty `lines`: nothing, ok.
ToolResult runBatch(std::vector<std::string> argv, const std::vector<std::string>& lines);

// The absolute path of `name` in PATH, /usr/sbin or /sbin; "" if none.
std::string findTool(const std::string& name);

}  // namespace distbench::cli
