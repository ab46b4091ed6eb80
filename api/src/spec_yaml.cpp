// Reads a DistBenchmark document (spec_reader.cpp reads its spec) and
// writes one (through spec_to_tree.cpp).
#include "distbench/api/spec_yaml.h"

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <utility>

#include "distbench/api/spec_error.h"
#include "distbench/api/spec_validation.h"
#include "spec_reader.h"
#include "spec_tree.h"
#include "text_file.h"

namespace distbench::api {
namespace {

using detail::appendValidationErrors;
using detail::describe;
using detail::kDocument;
using detail::readMetadata;
using detail::Reader;
using detail::readSpec;
using Node = YAML::Node;
using Path = std::string;

DistBenchmark parseDocument(const std::string& text, const std::string& documentName) {
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(text);
  } catch (const YAML::Exception& e) {
    throw SpecError({{documentName, describe(e)}});
  }
  if (documents.size() != 1) {
    throw SpecError({{documentName, "expected one DistBenchmark document, found " +
                                        std::to_string(documents.size())}});
  }
  const YAML::Node& root = documents.front();
  if (!root.IsMap()) throw SpecError({{documentName, "must be a DistBenchmark object"}});

  DistBenchmark benchmark;
  Reader r;
  bool sawApiVersion = false;
  bool sawKind = false;
  r.object(root, "",
           {
               {"apiVersion",
                [&](const Node& v, const Path& p) {
                  sawApiVersion = true;
                  r.string(v, p, benchmark.apiVersion);
                }},
               {"kind",
                [&](const Node& v, const Path& p) {
                  sawKind = true;
                  r.string(v, p, benchmark.kind);
                }},
               {"metadata",
                [&](const Node& v, const Path& p) { readMetadata(r, v, p, benchmark.metadata); }},
               {"spec", [&](const Node& v, const Path& p) { readSpec(r, v, p, benchmark.spec); }},
               // Written by the operator; what the API server returns carries it.
               {"status", [](const Node&, const Path&) {}},
           });
  if (!sawApiVersion) r.fail("apiVersion", "required");
  if (!sawKind) r.fail("kind", "required");

  // Validate what did parse; a field that failed to parse still holds its
  // default, so skip validation's opinion of it, or of anything inside it
  // (a list item that was not an object), rather than report it twice.
  std::vector<FieldError>& errors = r.errors();
  appendValidationErrors(errors, validate(benchmark));
  for (FieldError& e : errors) {
    if (e.field == kDocument) e.field = documentName;
  }
  if (!errors.empty()) throw SpecError(std::move(errors));
  return benchmark;
}

}  // namespace

DistBenchmark parseDistBenchmark(const std::string& yamlText) {
  return parseDocument(yamlText, kDocument);
}

DistBenchmark loadDistBenchmarkFile(const std::string& path) {
  return parseDocument(detail::readTextFile(path), path);
}

// Both writers go through one tree, so they cannot carry different fields.
std::string toYaml(const DistBenchmark& b) { return detail::emitYaml(detail::specToTree(b)); }

std::string toJson(const DistBenchmark& b) { return detail::emitJson(detail::specToTree(b)); }

}  // namespace distbench::api
