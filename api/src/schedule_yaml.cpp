// Reads a DistBenchmarkSchedule document with the strict reader of
// DistBenchmark (spec_reader.h); the template's spec is read by the same
// code as a DistBenchmark's, under spec.template.spec.
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <utility>

#include "distbench/api/schedule_spec.h"
#include "spec_reader.h"
#include "text_file.h"

namespace distbench::api {
namespace {

using detail::kDocument;
using detail::Reader;
using Node = YAML::Node;
using Path = std::string;

void readScheduleMetadata(Reader& r, const Node& node, const Path& path, ScheduleMetadata& m) {
  r.object(
      node, path,
      {
          {"name", [&](const Node& v, const Path& p) { r.string(v, p, m.name); }},
          {"namespace", [&](const Node& v, const Path& p) { r.string(v, p, m.namespace_); }},
          {"uid", [&](const Node& v, const Path& p) { r.string(v, p, m.uid); }},
          {"generation", [&](const Node& v, const Path& p) { r.integer(v, p, m.generation); }},
          {"creationTimestamp",
           [&](const Node& v, const Path& p) { r.string(v, p, m.creationTimestamp); }},
          {"labels", [&](const Node& v, const Path& p) { r.stringMap(v, p, m.labels); }},
          {"annotations", [&](const Node& v, const Path& p) { r.stringMap(v, p, m.annotations); }},
      },
      Reader::UnknownFields::Ignore);
}

void readConcurrencyPolicy(Reader& r, const Node& node, const Path& path, ConcurrencyPolicy& out) {
  if (node.IsScalar() && node.Scalar() == "Allow") {
    return r.fail(path,
                  "Allow is not supported: two runs at once disturb each other's numbers; use "
                  "Forbid or Replace");
  }
  r.enumeration(node, path, out, {ConcurrencyPolicy::Forbid, ConcurrencyPolicy::Replace});
}

void readBaseline(Reader& r, const Node& node, const Path& path, ScheduleBaseline& b) {
  r.object(node, path,
           {
               {"runs", [&](const Node& v, const Path& p) { r.integer(v, p, b.runs); }},
               {"thresholdPercent",
                [&](const Node& v, const Path& p) { r.number(v, p, b.thresholdPercent); }},
           });
}

void readTemplate(Reader& r, const Node& node, const Path& path, RunTemplate& t) {
  r.object(node, path,
           {
               {"metadata",
                [&](const Node& v, const Path& p) {
                  r.object(v, p,
                           {
                               {"labels", [&](const Node& m, const Path& mp) {
                                  r.stringMap(m, mp, t.metadata.labels);
                                }},
                               {"annotations", [&](const Node& m, const Path& mp) {
                                  r.stringMap(m, mp, t.metadata.annotations);
                                }},
                           });
                }},
               {"spec", [&](const Node& v, const Path& p) { detail::readSpec(r, v, p, t.spec); }},
           });
}

void readScheduleSpec(Reader& r, const Node& node, const Path& path, ScheduleSpec& s) {
  bool sawTemplate = false;
  r.object(
      node, path,
      {
          {"schedule", [&](const Node& v, const Path& p) { r.string(v, p, s.schedule); }},
          {"timeZone", [&](const Node& v, const Path& p) { r.string(v, p, s.timeZone); }},
          {"concurrencyPolicy",
           [&](const Node& v, const Path& p) { readConcurrencyPolicy(r, v, p, s.concurrencyPolicy); }},
          {"startingDeadlineSeconds",
           [&](const Node& v, const Path& p) { r.optionalInteger(v, p, s.startingDeadlineSeconds); }},
          {"suspend",
           [&](const Node& v, const Path& p) {
             std::optional<bool> suspend;
             r.optionalBoolean(v, p, suspend);
             s.suspend = suspend.value_or(s.suspend);
           }},
          {"successfulRunsHistoryLimit",
           [&](const Node& v, const Path& p) { r.integer(v, p, s.successfulRunsHistoryLimit); }},
          {"failedRunsHistoryLimit",
           [&](const Node& v, const Path& p) { r.integer(v, p, s.failedRunsHistoryLimit); }},
          {"baseline", [&](const Node& v, const Path& p) { readBaseline(r, v, p, s.baseline); }},
          {"template",
           [&](const Node& v, const Path& p) {
             sawTemplate = true;
             readTemplate(r, v, p, s.template_);
           }},
      });
  if (node.IsMap() && !sawTemplate) r.fail(detail::childPath(path, "template"), "required");
}

DistBenchmarkSchedule parseDocument(const std::string& text, const std::string& documentName) {
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(text);
  } catch (const YAML::Exception& e) {
    throw SpecError({{documentName, detail::describe(e)}});
  }
  if (documents.size() != 1) {
    throw SpecError({{documentName, "expected one DistBenchmarkSchedule document, found " +
                                        std::to_string(documents.size())}});
  }
  const YAML::Node& root = documents.front();
  if (!root.IsMap()) throw SpecError({{documentName, "must be a DistBenchmarkSchedule object"}});

  DistBenchmarkSchedule schedule;
  Reader r;
  bool sawApiVersion = false, sawKind = false, sawSpec = false;
  r.object(root, "",
           {
               {"apiVersion",
                [&](const Node& v, const Path& p) {
                  sawApiVersion = true;
                  r.string(v, p, schedule.apiVersion);
                }},
               {"kind",
                [&](const Node& v, const Path& p) {
                  sawKind = true;
                  r.string(v, p, schedule.kind);
                }},
               {"metadata",
                [&](const Node& v, const Path& p) {
                  readScheduleMetadata(r, v, p, schedule.metadata);
                }},
               {"spec",
                [&](const Node& v, const Path& p) {
                  sawSpec = true;
                  readScheduleSpec(r, v, p, schedule.spec);
                }},
               {"status", [](const Node&, const Path&) {}},
           });
  if (!sawApiVersion) r.fail("apiVersion", "required");
  if (!sawKind) r.fail("kind", "required");
  if (!sawSpec) r.fail("spec", "required");

  std::vector<FieldError>& errors = r.errors();
  // Without a spec, validation would only repeat "required" for its fields.
  if (sawSpec) detail::appendValidationErrors(errors, validate(schedule));
  for (FieldError& e : errors) {
    if (e.field == kDocument) e.field = documentName;
  }
  if (!errors.empty()) throw SpecError(std::move(errors));
  return schedule;
}

}  // namespace

DistBenchmarkSchedule parseDistBenchmarkSchedule(const std::string& yamlOrJsonText) {
  return parseDocument(yamlOrJsonText, kDocument);
}

DistBenchmarkSchedule loadDistBenchmarkScheduleFile(const std::string& path) {
  return parseDocument(detail::readTextFile(path), path);
}

}  // namespace distbench::api
