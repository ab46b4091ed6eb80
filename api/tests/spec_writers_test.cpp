// toYaml and toJson are two syntaxes over one tree (spec_tree.h); these tests
// fail if either ever carries a field, or a value, that the other does not.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <map>
#include <string>

#include "distbench/api/presets.h"
#include "test_util.h"

namespace distbench::api {
namespace {

// Every scalar in a document by its path ("spec.runtime.masterPort",
// "spec.benchmark.ddp.models[0]"), with empty collections as "{}" or "[]" so
// that they count as fields too. JSON is YAML, so one reader flattens both.
void flatten(const YAML::Node& node, const std::string& path,
             std::map<std::string, std::string>& out) {
  if (node.IsMap()) {
    if (node.size() == 0) out[path] = "{}";
    for (const auto& entry : node) {
      const std::string key = entry.first.as<std::string>();
      flatten(entry.second, path.empty() ? key : path + "." + key, out);
    }
  } else if (node.IsSequence()) {
    if (node.size() == 0) out[path] = "[]";
    for (std::size_t i = 0; i < node.size(); ++i) {
      flatten(node[i], path + "[" + std::to_string(i) + "]", out);
    }
  } else {
    out[path] = node.Scalar();
  }
}

std::map<std::string, std::string> fields(const std::string& text) {
  std::map<std::string, std::string> out;
  flatten(YAML::Load(text), "", out);
  return out;
}

void expectSameFields(const DistBenchmark& b) {
  SCOPED_TRACE(b.metadata.name);
  const auto yaml = fields(toYaml(b));
  const auto json = fields(toJson(b));
  for (const auto& [path, value] : yaml) {
    auto it = json.find(path);
    if (it == json.end()) {
      ADD_FAILURE() << path << " is in the YAML, not in the JSON";
    } else {
      EXPECT_EQ(it->second, value) << path;
    }
  }
  for (const auto& [path, value] : json) {
    EXPECT_TRUE(yaml.count(path)) << path << " is in the JSON, not in the YAML";
  }
  EXPECT_GT(yaml.size(), 40u) << "flattened too little to mean anything";
}

TEST(SpecWritersTest, YamlAndJsonCarryTheSameFieldsForEveryPreset) {
  for (const std::string& name : presetNames()) expectSameFields(preset(name));
}

TEST(SpecWritersTest, YamlAndJsonCarryTheSameOptionalFields) {
  DistBenchmark b = test::minimalBenchmark();
  b.metadata.labels = {{"team", "yes"}, {"n", "1"}};
  b.metadata.annotations = {{"note", "a \"quoted\"\nline"}};
  b.spec.benchmark.hybridDDPRPC.denseLayers = {"64", "relu", "032"};
  b.spec.runPolicy.activeDeadlineSeconds = 600;
  b.spec.runPolicy.ttlSecondsAfterFinished = 60;
  Toleration t;
  t.key = "gpu";
  t.operator_ = "Exists";
  t.effect = "NoSchedule";
  t.tolerationSeconds = 30;
  b.spec.podTemplates.trainer.tolerations = {t};
  b.spec.podTemplates.trainer.requests = {{"cpu", "2"}};
  b.spec.podTemplates.master.podSecurityContext.runAsUser = 1000;
  b.spec.podTemplates.master.podSecurityContext.seccompProfile = SeccompProfile{"Localhost", "p"};
  b.spec.podTemplates.master.securityContext.readOnlyRootFilesystem = false;
  b.spec.podTemplates.master.securityContext.capabilitiesDrop = std::vector<std::string>{"ALL"};
  expectSameFields(b);
  // The optional fields did go out, in both.
  const auto json = fields(toJson(b));
  EXPECT_EQ(json.at("spec.runPolicy.activeDeadlineSeconds"), "600");
  EXPECT_EQ(json.at("spec.podTemplates.trainer.tolerations[0].tolerationSeconds"), "30");
  EXPECT_EQ(json.at("spec.podTemplates.master.securityContext.capabilities.drop[0]"), "ALL");
}

}  // namespace
}  // namespace distbench::api
