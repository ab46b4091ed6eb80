#include "distbench/cli/arg_parser.h"

#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>

namespace distbench::cli {

std::optional<std::string> ParsedArgs::value(const std::string& flag) const {
  auto it = values_.find(flag);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

ArgParser::ArgParser(std::vector<FlagSpec> flags) : flags_(std::move(flags)) {
  flags_.push_back({"--help", false});
}

const FlagSpec* ArgParser::find(const std::string& name) const {
  for (const FlagSpec& flag : flags_) {
    if (flag.name == name) return &flag;
  }
  return nullptr;
}

ParsedArgs ArgParser::parse(const std::vector<std::string>& args) const {
  ParsedArgs parsed;
  bool flagsEnded = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (flagsEnded || arg.size() < 2 || arg[0] != '-') {
      parsed.positionals_.push_back(arg);  // "-" (stdin, by convention) too
      continue;
    }
    if (arg == "--") {
      flagsEnded = true;
      continue;
    }
    std::string name = arg;
    std::optional<std::string> inlineValue;
    std::size_t equals = arg.find('=');
    if (arg.rfind("--", 0) == 0 && equals != std::string::npos) {
      name = arg.substr(0, equals);
      inlineValue = arg.substr(equals + 1);
    }
    if (name == "-h") name = "--help";
    const FlagSpec* flag = find(name);
    if (!flag) throw UsageError("unknown flag " + name);
    if (!flag->takesValue) {
      if (inlineValue) throw UsageError(name + " takes no value");
      parsed.values_[name] = "";
      continue;
    }
    if (inlineValue) {
      parsed.values_[name] = *inlineValue;
    } else if (i + 1 < args.size()) {
      parsed.values_[name] = args[++i];
    } else {
      throw UsageError(name + " needs a value");
    }
  }
  return parsed;
}

double parseNumberFlag(const std::string& flag, const std::string& text, const std::string& what) {
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno != 0 || !std::isfinite(value)) {
    throw UsageError(flag + " needs " + what + ", not '" + text + "'");
  }
  return value;
}

double parseSecondsFlag(const std::string& flag, const std::string& text) {
  errno = 0;
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno != 0 || !std::isfinite(value) || value < 0) {
    throw UsageError(flag + " needs a number of seconds >= 0, not '" + text + "'");
  }
  return value;
}

int parseNonNegativeIntFlag(const std::string& flag, const std::string& text) {
  errno = 0;
  char* end = nullptr;
  long value = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || value < 0 || value > INT_MAX) {
    throw UsageError(flag + " needs a whole number >= 0, not '" + text + "'");
  }
  return static_cast<int>(value);
}

}  // namespace distbench::cli
