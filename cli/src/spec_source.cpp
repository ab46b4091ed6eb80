#include "distbench/cli/spec_source.h"

#include <ostream>
#include <stdexcept>

#include "distbench/api/presets.h"
#include "distbench/api/spec_error.h"
#include "distbench/api/spec_validation.h"
#include "distbench/api/spec_yaml.h"

namespace distbench::cli {

std::string SpecSource::describe() const {
  return preset.empty() ? file : "preset " + preset;
}

SpecSource specSourceFrom(const ParsedArgs& args) {
  SpecSource source;
  const auto& positionals = args.positionals();
  std::optional<std::string> preset = args.value("--preset");
  if (preset && !positionals.empty()) {
    throw UsageError("give a FILE or --preset NAME, not both");
  }
  if (preset) {
    if (preset->empty()) throw UsageError("--preset needs a name");
    source.preset = *preset;
    return source;
  }
  if (positionals.empty()) throw UsageError("missing FILE (or --preset NAME)");
  if (positionals.size() > 1) throw UsageError("unexpected argument '" + positionals[1] + "'");
  source.file = positionals[0];
  return source;
}

std::optional<api::DistBenchmark> loadSpec(const SpecSource& source, std::ostream& err) {
  try {
    api::DistBenchmark benchmark = source.preset.empty()
                                       ? api::loadDistBenchmarkFile(source.file)
                                       : api::preset(source.preset);
    // Parsing validates already; a preset is only as good as its code, so
    // check it the same way rather than trust it.
    api::validateOrThrow(benchmark);
    return benchmark;
  } catch (const api::SpecError& error) {
    err << source.describe() << ": invalid DistBenchmark\n";
    for (const api::FieldError& field : error.errors()) err << field.str() << "\n";
  } catch (const std::invalid_argument& error) {
    // Unknown preset: the message lists the known ones.
    err << "distbench: " << error.what() << "\n";
  } catch (const std::exception& error) {
    // An unreadable file: the api's message names the file already.
    err << "distbench: " << error.what() << "\n";
  }
  return std::nullopt;
}

}  // namespace distbench::cli
