// Reads a DistBenchmark document (document_reader.h reads the document,
// spec_reader.cpp its metadata and spec) and writes one (through
// spec_to_tree.cpp).
#include "distbench/api/spec_yaml.h"

#include <yaml-cpp/yaml.h>

#include <string>

#include "distbench/api/spec_error.h"
#include "distbench/api/spec_validation.h"
#include "document_reader.h"
#include "spec_reader.h"
#include "spec_tree.h"
#include "text_file.h"

namespace distbench::api {
namespace {

DistBenchmark parseDocument(const std::string& text, const std::string& documentName) {
  return detail::readDocument<DistBenchmark>(
      text, documentName, kKind, detail::SpecField::Optional,
      [](detail::Reader& r, const YAML::Node& v, const std::string& p, ObjectMeta& m) {
        detail::readMetadata(r, v, p, m);
      },
      detail::readSpec, [](const DistBenchmark& b) { return validate(b); });
}

}  // namespace

DistBenchmark parseDistBenchmark(const std::string& yamlText) {
  return parseDocument(yamlText, detail::kDocument);
}

DistBenchmark loadDistBenchmarkFile(const std::string& path) {
  return parseDocument(detail::readTextFile(path), path);
}

// Both writers go through one tree, so they cannot carry different fields.
std::string toYaml(const DistBenchmark& b) { return detail::emitYaml(detail::specToTree(b)); }

std::string toJson(const DistBenchmark& b) { return detail::emitJson(detail::specToTree(b)); }

}  // namespace distbench::api
