// Keeps crds/distbench.io_distbenchmarkschedules.yaml and the api library in
// agreement, as crd_schema_test.cpp does for DistBenchmark: every field the
// schema gives the schedule, its default, enum values and bounds are taken
// from the schema and put to parseDistBenchmarkSchedule. The template's spec
// schema must be DistBenchmark's. (That the file is what
// scripts/gen-schedule-crd.py writes is the ctest schedule_crd_generated.)
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "crd_schema_util.h"
#include "distbench/api/schedule_spec.h"
#include "test_util.h"

namespace distbench::api {
namespace {

using test::rootSchema;

const YAML::Node& scheduleCrd() {
  static const YAML::Node node = YAML::LoadFile(DISTBENCH_SCHEDULE_CRD);
  return node;
}
const YAML::Node& benchmarkCrd() {
  static const YAML::Node node = YAML::LoadFile(DISTBENCH_CRD);
  return node;
}
YAML::Node scheduleSpecSchema() { return rootSchema(scheduleCrd())["properties"]["spec"]; }

// Leaves of the schedule's spec by dotted path below spec; template.spec is
// one leaf (the DistBenchmark spec, checked whole below).
std::map<std::string, YAML::Node> specLeaves() {
  std::map<std::string, YAML::Node> out;
  test::schemaLeaves(scheduleSpecSchema(), "", {"template.spec"}, out);
  return out;
}

// The library's value of each plain field, as the text a YAML scalar would hold.
const std::map<std::string, std::function<std::string(const ScheduleSpec&)>>& libraryFields() {
  static const std::map<std::string, std::function<std::string(const ScheduleSpec&)>> fields = {
      {"schedule", [](const ScheduleSpec& s) { return s.schedule; }},
      {"timeZone", [](const ScheduleSpec& s) { return s.timeZone; }},
      {"concurrencyPolicy",
       [](const ScheduleSpec& s) { return std::string(toString(s.concurrencyPolicy)); }},
      {"startingDeadlineSeconds",
       [](const ScheduleSpec& s) {
         return s.startingDeadlineSeconds ? std::to_string(*s.startingDeadlineSeconds) : "";
       }},
      {"suspend", [](const ScheduleSpec& s) { return std::string(s.suspend ? "true" : "false"); }},
      {"successfulRunsHistoryLimit",
       [](const ScheduleSpec& s) { return std::to_string(s.successfulRunsHistoryLimit); }},
      {"failedRunsHistoryLimit",
       [](const ScheduleSpec& s) { return std::to_string(s.failedRunsHistoryLimit); }},
      {"baseline.runs", [](const ScheduleSpec& s) { return std::to_string(s.baseline.runs); }},
      {"baseline.thresholdPercent",
       [](const ScheduleSpec& s) { return std::to_string(s.baseline.thresholdPercent); }},
  };
  return fields;
}

// A valid schedule with `path` (below spec) set to the YAML text `value`.
std::string scheduleWith(const std::string& path, const std::string& value) {
  YAML::Node doc = YAML::Load(
      "apiVersion: distbench.io/v1alpha1\nkind: DistBenchmarkSchedule\n"
      "metadata: {name: nightly}\n"
      "spec: {schedule: '@daily', template: {spec: {topology: {trainers: 2}}}}\n");
  test::setAtPath(doc["spec"], path, value);
  return YAML::Dump(doc);
}

std::vector<FieldError> errorsOf(const std::string& text) {
  try {
    parseDistBenchmarkSchedule(text);
  } catch (const SpecError& e) {
    return e.errors();
  }
  return {};
}

bool accepted(const std::string& path, const std::string& value) {
  return errorsOf(scheduleWith(path, value)).empty();
}

TEST(ScheduleCrdSchemaTest, SchemaAndLibraryHaveTheSameFields) {
  std::set<std::string> schemaFields;
  for (const auto& [path, schema] : specLeaves()) schemaFields.insert(path);
  std::set<std::string> libraryKnown;
  for (const auto& [path, get] : libraryFields()) libraryKnown.insert(path);
  for (const char* composite : {"template.metadata.labels", "template.metadata.annotations",
                                "template.spec"}) {
    libraryKnown.insert(composite);
  }
  EXPECT_EQ(schemaFields, libraryKnown);
  // And the library reads each of them: none is an unknown field.
  for (const std::string& path : schemaFields) {
    const std::string value = path == "schedule" ? "'@hourly'" : path == "timeZone" ? "UTC" : "{}";
    if (libraryFields().count(path) && path != "schedule" && path != "timeZone") continue;
    for (const FieldError& e : errorsOf(scheduleWith(path, value))) {
      EXPECT_NE(e.message, "unknown field") << path;
    }
  }
}

TEST(ScheduleCrdSchemaTest, DefaultsAgree) {
  const DistBenchmarkSchedule minimal = parseDistBenchmarkSchedule(scheduleWith("suspend", "null"));
  int checked = 0;
  for (const auto& [path, schema] : specLeaves()) {
    if (!schema["default"] || !libraryFields().count(path)) continue;
    const std::string library = libraryFields().at(path)(minimal.spec);
    if (schema["type"].Scalar() == "number") {
      EXPECT_DOUBLE_EQ(std::stod(library), schema["default"].as<double>()) << path;
    } else {
      EXPECT_EQ(library, schema["default"].Scalar()) << path;
    }
    ++checked;
  }
  EXPECT_EQ(checked, 7);  // all but schedule (required) and startingDeadlineSeconds (optional)
  // Fields without a schema default are absent in the library too.
  EXPECT_FALSE(minimal.spec.startingDeadlineSeconds.has_value());
  // The baseline block defaults to {} so its fields' defaults apply.
  EXPECT_TRUE(scheduleSpecSchema()["properties"]["baseline"]["default"].IsMap());
}

TEST(ScheduleCrdSchemaTest, EnumsAgree) {
  const YAML::Node schema = specLeaves().at("concurrencyPolicy");
  std::set<std::string> values;
  for (const auto& v : schema["enum"]) {
    values.insert(v.Scalar());
    EXPECT_TRUE(accepted("concurrencyPolicy", v.Scalar())) << v.Scalar();
    EXPECT_EQ(libraryFields().at("concurrencyPolicy")(
                  parseDistBenchmarkSchedule(scheduleWith("concurrencyPolicy", v.Scalar())).spec),
              v.Scalar());
  }
  EXPECT_EQ(values, (std::set<std::string>{"Forbid", "Replace"}));
  for (const char* refused : {"Allow", "forbid", "Never"}) {
    EXPECT_FALSE(accepted("concurrencyPolicy", refused)) << refused;
  }
}

TEST(ScheduleCrdSchemaTest, BoundsAgree) {
  int checked = 0;
  for (const auto& [path, schema] : specLeaves()) {
    const std::string type = schema["type"] ? schema["type"].Scalar() : "";
    if (type != "integer" && type != "number") continue;
    const bool exclusive = schema["exclusiveMinimum"] && schema["exclusiveMinimum"].as<bool>();
    ASSERT_TRUE(schema["minimum"]) << path << " has no minimum";
    // Only the regression threshold is open above: one rule with a
    // DistBenchmark's and --threshold's (api/regression_threshold.h).
    ASSERT_EQ(!schema["maximum"], path == "baseline.thresholdPercent") << path;
    if (!schema["maximum"]) {
      EXPECT_EQ(schema["minimum"].as<double>(), 0) << path;
      EXPECT_FALSE(schema["exclusiveMinimum"]) << path;
      EXPECT_TRUE(accepted(path, "0")) << path;
      EXPECT_TRUE(accepted(path, "1e6")) << path;
      EXPECT_FALSE(accepted(path, "-0.001")) << path;
      ++checked;
      continue;
    }
    if (type == "integer") {
      const int64_t min = schema["minimum"].as<int64_t>(), max = schema["maximum"].as<int64_t>();
      EXPECT_TRUE(accepted(path, std::to_string(min))) << path;
      EXPECT_FALSE(accepted(path, std::to_string(min - 1))) << path;
      EXPECT_TRUE(accepted(path, std::to_string(max))) << path;
      EXPECT_FALSE(accepted(path, std::to_string(max + 1))) << path;
      EXPECT_FALSE(accepted(path, "1.5")) << path;
    } else {
      const double min = schema["minimum"].as<double>(), max = schema["maximum"].as<double>();
      EXPECT_EQ(accepted(path, std::to_string(min)), !exclusive) << path;
      EXPECT_TRUE(accepted(path, std::to_string(min + 0.001))) << path;
      EXPECT_TRUE(accepted(path, std::to_string(max))) << path;
      EXPECT_FALSE(accepted(path, std::to_string(max + 0.5))) << path;
    }
    ++checked;
  }
  EXPECT_EQ(checked, 5);
  // Constants in the header state the same bounds.
  EXPECT_EQ(specLeaves().at("startingDeadlineSeconds")["maximum"].as<int64_t>(),
            kMaxStartingDeadlineSeconds);
  EXPECT_EQ(specLeaves().at("baseline.runs")["maximum"].as<int>(), kMaxBaselineRuns);
  EXPECT_EQ(specLeaves().at("successfulRunsHistoryLimit")["maximum"].as<int>(),
            kMaxRunsHistoryLimit);
}

TEST(ScheduleCrdSchemaTest, RequiredFieldsAreRequiredByBoth) {
  std::set<std::string> required;
  for (const auto& r : scheduleSpecSchema()["required"]) required.insert(r.Scalar());
  EXPECT_EQ(required, (std::set<std::string>{"schedule", "template"}));
  EXPECT_FALSE(errorsOf(scheduleWith("schedule", "null")).empty());
  EXPECT_FALSE(errorsOf(scheduleWith("template", "null")).empty());
}

TEST(ScheduleCrdSchemaTest, TemplateSpecIsTheDistBenchmarkSpecSchema) {
  YAML::Node mine = YAML::Clone(scheduleSpecSchema()["properties"]["template"]["properties"]["spec"]);
  YAML::Node theirs = YAML::Clone(rootSchema(benchmarkCrd())["properties"]["spec"]);
  // Only the descriptions of the spec and of the refused baseline differ.
  for (YAML::Node* n : {&mine, &theirs}) {
    (*n).remove("description");
    (*n)["properties"]["baseline"].remove("description");
  }
  std::string where;
  EXPECT_TRUE(test::sameData(mine, theirs, "spec", where)) << "differs at " << where;
}

TEST(ScheduleCrdSchemaTest, NamesAndPrinterColumnsAreTheContracts) {
  const YAML::Node names = scheduleCrd()["spec"]["names"];
  EXPECT_EQ(names["kind"].Scalar(), kScheduleKind);
  EXPECT_EQ(names["plural"].Scalar(), kSchedulePlural);
  EXPECT_EQ(names["shortNames"][0].Scalar(), "dbsched");
  EXPECT_EQ(scheduleCrd()["metadata"]["name"].Scalar(), std::string(kSchedulePlural) + ".distbench.io");
  std::vector<std::string> columns;
  for (const auto& c : scheduleCrd()["spec"]["versions"][0]["additionalPrinterColumns"]) {
    columns.push_back(c["name"].Scalar() + " " + c["jsonPath"].Scalar());
    // Every column reads a field the schema has.
    const std::string path = c["jsonPath"].Scalar();
    if (path.rfind(".metadata.", 0) == 0) continue;
    YAML::Node at = rootSchema(scheduleCrd());
    std::size_t start = 1;
    while (start < path.size()) {
      const std::size_t dot = path.find('.', start);
      const std::string key = path.substr(start, dot == std::string::npos ? dot : dot - start);
      at.reset(at["properties"][key]);
      ASSERT_TRUE(at) << path;
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
  }
  EXPECT_EQ(columns, (std::vector<std::string>{
                         "Schedule .spec.schedule", "Suspend .spec.suspend",
                         "Last Run .status.lastScheduleTime", "p50 .status.lastRun.p50",
                         "Verdict .status.lastRun.verdict", "Age .metadata.creationTimestamp"}));
}

}  // namespace
}  // namespace distbench::api
