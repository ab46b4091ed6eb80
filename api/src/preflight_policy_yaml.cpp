// Reads a DistBenchPreflightPolicy document with the document reader and the
// strict reader of DistBenchmark (document_reader.h, spec_reader.h): its
// template is read by the same code as a schedule's.
#include <yaml-cpp/yaml.h>

#include <string>

#include "distbench/api/preflight_policy.h"
#include "document_reader.h"
#include "run_template_reader.h"
#include "spec_reader.h"
#include "text_file.h"

namespace distbench::api {
namespace {

using detail::Reader;
using Node = YAML::Node;
using Path = std::string;


void readPolicySpec(Reader& r, const Node& node, const Path& path, PreflightPolicySpec& s) {
  bool sawTemplate = false;
  r.object(
      node, path,
      {
          {"template",
           [&](const Node& v, const Path& p) {
             sawTemplate = true;
             detail::readRunTemplate(r, v, p, s.template_);
           }},
          {"attempts", [&](const Node& v, const Path& p) { r.integer(v, p, s.attempts); }},
          {"retryDelaySeconds",
           [&](const Node& v, const Path& p) { r.integer(v, p, s.retryDelaySeconds); }},
          {"timeoutSeconds", [&](const Node& v, const Path& p) { r.integer(v, p, s.timeoutSeconds); }},
          {"inconclusive",
           [&](const Node& v, const Path& p) {
             r.enumeration(v, p, s.inconclusive,
                           {PreflightInconclusive::Retry, PreflightInconclusive::Ready});
           }},
          {"unassigned",
           [&](const Node& v, const Path& p) {
             r.enumeration(v, p, s.unassigned,
                           {PreflightUnassigned::Reject, PreflightUnassigned::Ready});
           }},
          {"suspectNodes",
           [&](const Node& v, const Path& p) {
             r.enumeration(v, p, s.suspectNodes,
                           {PreflightSuspectNodes::None, PreflightSuspectNodes::Label,
                            PreflightSuspectNodes::Taint});
           }},
          {"ranksPerNode",
           [&](const Node& v, const Path& p) {
             r.enumeration(v, p, s.ranksPerNode,
                           {PreflightRanksPerNode::One, PreflightRanksPerNode::Pods});
           }},
      });
  if (node.IsMap() && !sawTemplate) r.fail(detail::childPath(path, "template"), "required");
}

DistBenchPreflightPolicy parseDocument(const std::string& text, const std::string& documentName) {
  return detail::readDocument<DistBenchPreflightPolicy>(text, documentName, kPreflightPolicyKind,
                                                        detail::SpecField::Required,
                                                        detail::readStoredMetadata, readPolicySpec,
                                                        [](const DistBenchPreflightPolicy& p) {
                                                          return validate(p);
                                                        });
}

}  // namespace

DistBenchPreflightPolicy parseDistBenchPreflightPolicy(const std::string& yamlOrJsonText) {
  return parseDocument(yamlOrJsonText, detail::kDocument);
}

DistBenchPreflightPolicy loadDistBenchPreflightPolicyFile(const std::string& path) {
  return parseDocument(detail::readTextFile(path), path);
}

}  // namespace distbench::api
