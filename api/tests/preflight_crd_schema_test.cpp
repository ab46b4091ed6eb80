// Keeps crds/distbench.io_distbenchpreflightpolicies.yaml and the api library
// in agreement: every field the schema gives the policy, its default, enum
// values and bounds are put to parseDistBenchPreflightPolicy; the template's
// spec schema must be DistBenchmark's. (That the file is what
// scripts/gen-preflight-policy-crd.py writes is the ctest
// preflight_policy_crd_generated.)
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "crd_schema_util.h"
#include "distbench/api/preflight_policy.h"

namespace distbench::api {
namespace {

using test::rootSchema;

const YAML::Node& policyCrd() {
  static const YAML::Node node = YAML::LoadFile(DISTBENCH_PREFLIGHT_POLICY_CRD);
  return node;
}
const YAML::Node& benchmarkCrd() {
  static const YAML::Node node = YAML::LoadFile(DISTBENCH_CRD);
  return node;
}
YAML::Node policySpecSchema() { return rootSchema(policyCrd())["properties"]["spec"]; }

std::map<std::string, YAML::Node> specLeaves() {
  std::map<std::string, YAML::Node> out;
  test::schemaLeaves(policySpecSchema(), "", {"template.spec"}, out);
  return out;
}

using Getter = std::function<std::string(const PreflightPolicySpec&)>;
const std::map<std::string, Getter>& libraryFields() {
  static const std::map<std::string, Getter> fields = {
      {"attempts", [](const PreflightPolicySpec& s) { return std::to_string(s.attempts); }},
      {"retryDelaySeconds",
       [](const PreflightPolicySpec& s) { return std::to_string(s.retryDelaySeconds); }},
      {"timeoutSeconds",
       [](const PreflightPolicySpec& s) { return std::to_string(s.timeoutSeconds); }},
      {"inconclusive",
       [](const PreflightPolicySpec& s) { return std::string(toString(s.inconclusive)); }},
      {"unassigned",
       [](const PreflightPolicySpec& s) { return std::string(toString(s.unassigned)); }},
      {"suspectNodes",
       [](const PreflightPolicySpec& s) { return std::string(toString(s.suspectNodes)); }},
      {"ranksPerNode",
       [](const PreflightPolicySpec& s) { return std::string(toString(s.ranksPerNode)); }},
  };
  return fields;
}

std::string policyWith(const std::string& path, const std::string& value) {
  YAML::Node doc = YAML::Load(
      "apiVersion: distbench.io/v1alpha1\nkind: DistBenchPreflightPolicy\n"
      "metadata: {name: gate}\n"
      "spec: {template: {spec: {benchmark: {kind: Fabric}}}}\n");
  test::setAtPath(doc["spec"], path, value);
  return YAML::Dump(doc);
}

bool accepted(const std::string& path, const std::string& value) {
  try {
    parseDistBenchPreflightPolicy(policyWith(path, value));
  } catch (const SpecError&) {
    return false;
  }
  return true;
}

TEST(PreflightCrdSchemaTest, SchemaAndLibraryHaveTheSameFields) {
  std::set<std::string> schemaFields, libraryKnown;
  for (const auto& [path, schema] : specLeaves()) schemaFields.insert(path);
  for (const auto& [path, get] : libraryFields()) libraryKnown.insert(path);
  for (const char* composite :
       {"template.metadata.labels", "template.metadata.annotations", "template.spec"}) {
    libraryKnown.insert(composite);
  }
  EXPECT_EQ(schemaFields, libraryKnown);
}

TEST(PreflightCrdSchemaTest, DefaultsAgree) {
  const DistBenchPreflightPolicy minimal = parseDistBenchPreflightPolicy(policyWith("template.metadata", "{}"));
  int checked = 0;
  for (const auto& [path, schema] : specLeaves()) {
    if (!schema["default"] || !libraryFields().count(path)) continue;
    EXPECT_EQ(libraryFields().at(path)(minimal.spec), schema["default"].Scalar()) << path;
    ++checked;
  }
  EXPECT_EQ(checked, 7);
}

TEST(PreflightCrdSchemaTest, EnumsAgree) {
  int checked = 0;
  for (const auto& [path, schema] : specLeaves()) {
    if (!schema["enum"]) continue;
    for (const auto& v : schema["enum"]) {
      ASSERT_TRUE(accepted(path, v.Scalar())) << path << " " << v.Scalar();
      EXPECT_EQ(libraryFields().at(path)(
                    parseDistBenchPreflightPolicy(policyWith(path, v.Scalar())).spec),
                v.Scalar());
    }
    EXPECT_FALSE(accepted(path, "Maybe")) << path;
    ++checked;
  }
  EXPECT_EQ(checked, 4);
}

TEST(PreflightCrdSchemaTest, BoundsAgree) {
  int checked = 0;
  for (const auto& [path, schema] : specLeaves()) {
    if (!schema["type"] || schema["type"].Scalar() != "integer") continue;
    const int64_t min = schema["minimum"].as<int64_t>(), max = schema["maximum"].as<int64_t>();
    EXPECT_TRUE(accepted(path, std::to_string(min))) << path;
    EXPECT_FALSE(accepted(path, std::to_string(min - 1))) << path;
    EXPECT_TRUE(accepted(path, std::to_string(max))) << path;
    EXPECT_FALSE(accepted(path, std::to_string(max + 1))) << path;
    ++checked;
  }
  EXPECT_EQ(checked, 3);
  EXPECT_EQ(specLeaves().at("attempts")["maximum"].as<int>(), kMaxPreflightAttempts);
  EXPECT_EQ(specLeaves().at("retryDelaySeconds")["maximum"].as<int64_t>(),
            kMaxPreflightRetryDelaySeconds);
  EXPECT_EQ(specLeaves().at("timeoutSeconds")["maximum"].as<int64_t>(),
            kMaxPreflightTimeoutSeconds);
}

TEST(PreflightCrdSchemaTest, TemplateSpecIsTheDistBenchmarkSpecSchema) {
  YAML::Node mine =
      YAML::Clone(policySpecSchema()["properties"]["template"]["properties"]["spec"]);
  YAML::Node theirs = YAML::Clone(rootSchema(benchmarkCrd())["properties"]["spec"]);
  for (YAML::Node* n : {&mine, &theirs}) {
    (*n).remove("description");
    (*n)["properties"]["baseline"].remove("description");
  }
  std::string where;
  EXPECT_TRUE(test::sameData(mine, theirs, "spec", where)) << "differs at " << where;
}

TEST(PreflightCrdSchemaTest, NamesAreTheContracts) {
  const YAML::Node names = policyCrd()["spec"]["names"];
  EXPECT_EQ(names["kind"].Scalar(), kPreflightPolicyKind);
  EXPECT_EQ(names["plural"].Scalar(), kPreflightPolicyPlural);
  EXPECT_EQ(policyCrd()["spec"]["scope"].Scalar(), "Cluster");
  EXPECT_EQ(policyCrd()["metadata"]["name"].Scalar(),
            std::string(kPreflightPolicyPlural) + ".distbench.io");
}

}  // namespace
}  // namespace distbench::api
