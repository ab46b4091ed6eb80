// For tests that run a built executable (distbench, helm): run a shell
// command with its stdout and stderr sent to files, and read back its exit
// code and both outputs.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

namespace distbench::process {

struct BinaryResult {
  int exitCode = -1;  // -1 when it did not exit normally
  std::string out;
  std::string err;
};

// `text` as one word for /bin/sh, whatever it holds.
inline std::string shellQuoted(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs `command` through /bin/sh with " >'OUT' 2>'ERR'" appended, so the
// redirections apply to its last command.
inline BinaryResult runCaptured(const std::string& command, const std::string& outPath,
                                const std::string& errPath) {
  const std::string line = command + " >'" + outPath + "' 2>'" + errPath + "'";
  const int status = std::system(line.c_str());
  BinaryResult result;
  result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.out = slurp(outPath);
  result.err = slurp(errPath);
  return result;
}

}  // namespace distbench::process
