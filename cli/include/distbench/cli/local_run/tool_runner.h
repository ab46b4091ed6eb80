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

// Where findTool looks, in order. As root (a --links run) only the system
// directories /usr/sbin, /usr/bin, /sbin and /bin: under `sudo -E`, or a root
// shell that kept a user's PATH, a directory on PATH may be someone else's,
// and an `ip` planted there would run as root. Otherwise `envPath` (PATH;
// null: none), then /usr/sbin and /sbin.
std::vector<std::string> toolSearchPath(bool root, const char* envPath);

// Whether root may run the file at `path`: it (links followed) and the
// directory it is in are owned by root and writable by no group or other.
// Else false, with `why` saying what is wrong.
bool trustedForRoot(const std::string& path, std::string& why);

// The absolute path of the executable `name` in toolSearchPath(euid is 0,
// $PATH); as root, one that is not trustedForRoot is skipped. "" if none.
std::string findTool(const std::string& name);

// Where findTool looks, in words, for a message saying it found nothing.
std::string toolSearchPlaces();

}  // namespace distbench::cli
