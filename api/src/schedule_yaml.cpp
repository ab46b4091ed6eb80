// Reads a DistBenchmarkSchedule document with the document reader and the
// strict reader of DistBenchmark (document_reader.h, spec_reader.h): its
// metadata by the same reader as a DistBenchmark's plus the fields the
// controller keeps, and the template's spec by the same code as a
// DistBenchmark's spec, under spec.template.spec.
#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>

#include "distbench/api/schedule_spec.h"
#include "document_reader.h"
#include "run_template_reader.h"
#include "spec_reader.h"
#include "text_file.h"

namespace distbench::api {
namespace {

using detail::Reader;
using Node = YAML::Node;
using Path = std::string;


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
             detail::readRunTemplate(r, v, p, s.template_);
           }},
      });
  if (node.IsMap() && !sawTemplate) r.fail(detail::childPath(path, "template"), "required");
}

DistBenchmarkSchedule parseDocument(const std::string& text, const std::string& documentName) {
  return detail::readDocument<DistBenchmarkSchedule>(
      text, documentName, kScheduleKind, detail::SpecField::Required, detail::readStoredMetadata,
      readScheduleSpec,
      // Validation parses spec.schedule and spec.timeZone; the result keeps them.
      [](DistBenchmarkSchedule& s) { return validate(s, s.spec.timing); });
}

}  // namespace

DistBenchmarkSchedule parseDistBenchmarkSchedule(const std::string& yamlOrJsonText) {
  return parseDocument(yamlOrJsonText, detail::kDocument);
}

DistBenchmarkSchedule loadDistBenchmarkScheduleFile(const std::string& path) {
  return parseDocument(detail::readTextFile(path), path);
}

}  // namespace distbench::api
