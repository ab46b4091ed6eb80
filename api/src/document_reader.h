// The reader of a whole resource document, shared by DistBenchmark
// (spec_yaml.cpp) and DistBenchmarkSchedule (schedule_yaml.cpp): exactly one
// YAML or JSON document, an object; apiVersion and kind required; metadata
// and spec read by the resource's own readers; status ignored; then the
// resource's validate(). Every error is collected and thrown at once.
// Internal to distbench_api.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <utility>
#include <vector>

#include "distbench/api/spec_error.h"
#include "spec_reader.h"

namespace distbench::api::detail {

// A DistBenchmark without spec is all defaults; a schedule without one has
// nothing to run, so its spec is required.
enum class SpecField { Optional, Required };

// `readMetadata(r, node, path, resource.metadata)` and `readSpec(r, node,
// path, resource.spec)` read those two fields; `validate(resource)` returns
// its errors and may keep what it parsed in it (a schedule's timing);
// `kindName` names the resource in the errors about the document as a
// whole. Throws SpecError.
template <typename Resource, typename ReadMetadata, typename ReadSpec, typename Validate>
Resource readDocument(const std::string& text, const std::string& documentName,
                      const char* kindName, SpecField specField, ReadMetadata readMetadata,
                      ReadSpec readSpec, Validate validate) {
  using Node = YAML::Node;
  using Path = std::string;
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(text);
  } catch (const YAML::Exception& e) {
    throw SpecError({{documentName, describe(e)}});
  }
  if (documents.size() != 1) {
    throw SpecError({{documentName, std::string("expected one ") + kindName +
                                        " document, found " + std::to_string(documents.size())}});
  }
  const YAML::Node& root = documents.front();
  if (!root.IsMap()) throw SpecError({{documentName, std::string("must be a ") + kindName + " object"}});

  Resource resource;
  Reader r;
  bool sawApiVersion = false, sawKind = false, sawSpec = false;
  r.object(root, "",
           {
               {"apiVersion",
                [&](const Node& v, const Path& p) {
                  sawApiVersion = true;
                  r.string(v, p, resource.apiVersion);
                }},
               {"kind",
                [&](const Node& v, const Path& p) {
                  sawKind = true;
                  r.string(v, p, resource.kind);
                }},
               {"metadata",
                [&](const Node& v, const Path& p) { readMetadata(r, v, p, resource.metadata); }},
               {"spec",
                [&](const Node& v, const Path& p) {
                  sawSpec = true;
                  readSpec(r, v, p, resource.spec);
                }},
               // Written by the operator; what the API server returns carries it.
               {"status", [](const Node&, const Path&) {}},
           });
  if (!sawApiVersion) r.fail("apiVersion", "required");
  if (!sawKind) r.fail("kind", "required");
  if (specField == SpecField::Required && !sawSpec) r.fail("spec", "required");

  // Validate what did parse; a field that failed to parse still holds its
  // default, so skip validation's opinion of it, or of anything inside it
  // (a list item that was not an object), rather than report it twice.
  // Without a required spec, validation would only repeat "required" for
  // its fields.
  std::vector<FieldError>& errors = r.errors();
  if (sawSpec || specField == SpecField::Optional) appendValidationErrors(errors, validate(resource));
  for (FieldError& e : errors) {
    if (e.field == kDocument) e.field = documentName;
  }
  if (!errors.empty()) throw SpecError(std::move(errors));
  return resource;
}

}  // namespace distbench::api::detail
