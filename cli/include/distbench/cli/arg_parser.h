// Command-line flags of one subcommand. Small on purpose: a few flags per
// subcommand do not justify a dependency, and errors must name the flag.
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace distbench::cli {

// Bad command line; main() prints it with a pointer to --help and exits 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct FlagSpec {
  std::string name;  // with dashes: "--report"
  bool takesValue = false;
};

class ParsedArgs {
 public:
  bool has(const std::string& flag) const { return values_.count(flag) != 0; }
  std::optional<std::string> value(const std::string& flag) const;
  const std::vector<std::string>& positionals() const { return positionals_; }

 private:
  friend class ArgParser;
  std::map<std::string, std::string> values_;
  std::vector<std::string> positionals_;
};

class ArgParser {
 public:
  // "-h" and "--help" are always accepted, as "--help".
  explicit ArgParser(std::vector<FlagSpec> flags);

  // Accepts "--flag value" and "--flag=value"; "--" ends the flags. A flag
  // given twice keeps its last value, as most tools do. Throws UsageError.
  ParsedArgs parse(const std::vector<std::string>& args) const;

 private:
  const FlagSpec* find(const std::string& name) const;
  std::vector<FlagSpec> flags_;
};

// Numbers in flags, with errors that name the flag.
// Any finite number; otherwise "FLAG needs WHAT, not 'TEXT'".
double parseNumberFlag(const std::string& flag, const std::string& text, const std::string& what);
double parseSecondsFlag(const std::string& flag, const std::string& text);
int parseNonNegativeIntFlag(const std::string& flag, const std::string& text);

}  // namespace distbench::cli
