// Where a subcommand's DistBenchmark comes from: a YAML file or a built-in
// preset. Shared by validate, render and run so all three report a bad spec
// the same way.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "distbench/api/benchmark_spec.h"
#include "distbench/cli/arg_parser.h"

namespace distbench::cli {

struct SpecSource {
  std::string file;    // set unless preset is
  std::string preset;

  // "FILE" or "preset NAME", for messages.
  std::string describe() const;
};

// From FILE positionals and a --preset flag: exactly one of the two.
// Throws UsageError.
SpecSource specSourceFrom(const ParsedArgs& args);

// Loads and validates. On failure writes the reasons to `err` ("field:
// message" lines for a spec error) and returns nothing.
std::optional<api::DistBenchmark> loadSpec(const SpecSource& source, std::ostream& err);

}  // namespace distbench::cli
