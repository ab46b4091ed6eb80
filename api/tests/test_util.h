// Helpers shared by the api test files.
#pragma once

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

#include "distbench/api/benchmark_spec.h"
#include "distbench/api/spec_error.h"
#include "distbench/api/spec_validation.h"
#include "distbench/api/spec_yaml.h"

namespace distbench::api {

// gtest prints a mismatching DistBenchmark as YAML instead of raw bytes.
inline void PrintTo(const DistBenchmark& b, std::ostream* os) { *os << "\n" << toYaml(b); }

namespace test {

inline const std::string kHeader =
    "apiVersion: distbench.io/v1alpha1\n"
    "kind: DistBenchmark\n"
    "metadata:\n"
    "  name: small\n";

// The smallest valid resource.
inline const std::string kMinimal = kHeader +
                                    "spec:\n"
                                    "  topology:\n"
                                    "    trainers: 3\n"
                                    "    parameterServers: 2\n";

// kMinimal's value, built by hand.
inline DistBenchmark minimalBenchmark() {
  DistBenchmark b;
  b.metadata.name = "small";
  b.spec.topology.trainers = 3;
  b.spec.topology.parameterServers = 2;
  return b;
}

// kHeader followed by `spec` (which starts with "spec:").
inline std::string document(const std::string& spec) { return kHeader + spec; }

inline std::vector<std::string> strings(const std::vector<FieldError>& errors) {
  std::vector<std::string> out;
  for (const FieldError& e : errors) out.push_back(e.str());
  return out;
}

// The errors parsing `yaml` reports; empty when it parses.
inline std::vector<std::string> parseErrors(const std::string& yaml) {
  try {
    parseDistBenchmark(yaml);
  } catch (const SpecError& e) {
    return strings(e.errors());
  }
  return {};
}

inline std::vector<std::string> validationErrors(const DistBenchmark& b) {
  return strings(validate(b));
}

}  // namespace test
}  // namespace distbench::api
