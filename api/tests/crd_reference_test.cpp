// Keeps docs/crd-reference.md honest: its examples parse, and its table names
// every field the API writes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "distbench/api/presets.h"
#include "distbench/api/schedule_spec.h"
#include "test_util.h"

namespace distbench::api {
namespace {

std::string readReference() {
  std::ifstream in(DISTBENCH_CRD_REFERENCE);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> yamlBlocks(const std::string& markdown) {
  std::vector<std::string> blocks;
  const std::string open = "```yaml\n";
  for (std::size_t at = markdown.find(open); at != std::string::npos;
       at = markdown.find(open, at)) {
    at += open.size();
    const std::size_t end = markdown.find("```", at);
    blocks.push_back(markdown.substr(at, end - at));
    at = end;
  }
  return blocks;
}

// Leaves by dotted path; a list of objects (tolerations) adds "path[]" and
// descends into its entries.
void leafPaths(const YAML::Node& node, const std::string& path, std::vector<std::string>& out) {
  if (node.IsSequence() && node.size() > 0 && node[0].IsMap()) {
    for (const YAML::Node& item : node) leafPaths(item, path + "[]", out);
    return;
  }
  if (!node.IsMap() || (node.size() == 0 && !path.empty())) {
    out.push_back(path);
    return;
  }
  for (const auto& entry : node) {
    const std::string key = entry.first.Scalar();
    leafPaths(entry.second, path.empty() ? key : path + "." + key, out);
  }
}

TEST(CrdReferenceTest, ExamplesAreTheGpuExampleTheSmallestResourceAndTheTutorialPreset) {
  const std::vector<std::string> blocks = yamlBlocks(readReference());
  ASSERT_EQ(blocks.size(), 4u);
  EXPECT_EQ(parseDistBenchmark(blocks[0]),
            loadDistBenchmarkFile(std::string(DISTBENCH_EXAMPLES_DIR) + "/gpu-ddp.yaml"));
  EXPECT_EQ(blocks[1], test::kMinimal);
  EXPECT_EQ(parseDistBenchmark(blocks[1]), test::minimalBenchmark());
  EXPECT_EQ(parseDistBenchmark(blocks[2]), preset("tutorial"));
}

// The roles' templates are one table: spec.podTemplates.<role>.image.
std::string oneRole(std::string path) {
  const std::string prefix = "spec.podTemplates.";
  if (path.rfind(prefix, 0) != 0) return path;
  const std::size_t roleEnd = path.find('.', prefix.size());
  return prefix + "<role>" + path.substr(roleEnd);
}

TEST(CrdReferenceTest, TableNamesEveryField) {
  const std::string reference = readReference();
  std::vector<std::string> raw;
  // Each kind writes only its own section: walk one resource of each.
  for (const char* name : {"default", "ddp", "collectives", "fabric"}) {
    leafPaths(YAML::Load(toYaml(preset(name))), "", raw);
  }
  // And one with the optional fields set, a toleration's included.
  DistBenchmark full = preset("default");
  full.spec.runtime.gpusPerRank = 2;
  full.spec.runPolicy.activeDeadlineSeconds = 600;
  full.spec.runPolicy.ttlSecondsAfterFinished = 60;
  DistBenchmark pinned = preset("fabric");
  pinned.spec.benchmark.fabric.nodes = {"a", "b", "c", "d", "e", "f"};
  leafPaths(YAML::Load(toYaml(pinned)), "", raw);
  for (PodTemplate* t : {&full.spec.podTemplates.master, &full.spec.podTemplates.parameterServer,
                         &full.spec.podTemplates.trainer}) {
    t->tolerations = {{"gpu", "Equal", "a", "NoExecute", 30}};
    t->podSecurityContext = {false, 0, 0, 0, SeccompProfile{"Localhost", "gpu.json"}};
    t->securityContext = {true, false, std::vector<std::string>{"IPC_LOCK"},
                          std::vector<std::string>{"ALL"}};
  }
  leafPaths(YAML::Load(toYaml(full)), "", raw);
  std::vector<std::string> paths;
  for (const std::string& path : raw) paths.push_back(oneRole(path));
  std::sort(paths.begin(), paths.end());
  paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
  // 61 before runPolicy (4) and a role's template (5, 5 per toleration, and
  // 12 for the security overrides: each object empty, and its 10 leaves).
  ASSERT_EQ(paths.size(), 87u);  // the walk reached every field
  for (const std::string& path : paths) {
    EXPECT_THAT(reference, ::testing::HasSubstr("| `" + path + "` |"));
  }
}

const std::string kScheduleHeading = "# DistBenchmarkSchedule reference";

TEST(CrdReferenceTest, ScheduleExampleIsAValidSchedule) {
  const std::string reference = readReference();
  const std::size_t section = reference.find(kScheduleHeading);
  ASSERT_NE(section, std::string::npos);
  const std::vector<std::string> blocks = yamlBlocks(reference.substr(section));
  ASSERT_EQ(blocks.size(), 1u);
  const DistBenchmarkSchedule schedule = parseDistBenchmarkSchedule(blocks[0]);
  EXPECT_EQ(schedule.spec.timeZone, "Europe/Berlin");
  EXPECT_EQ(schedule.spec.template_.spec.benchmark.kind, BenchmarkKind::DDP);
}

// Every field of the schedule's spec schema (the template's spec as one
// entry) has its row in the schedule section.
void schemaPaths(const YAML::Node& schema, const std::string& path, std::vector<std::string>& out) {
  const YAML::Node properties = schema["properties"];
  if (!properties || path == "spec.template.spec") {
    out.push_back(path);
    return;
  }
  for (const auto& p : properties) schemaPaths(p.second, path + "." + p.first.Scalar(), out);
}

TEST(CrdReferenceTest, ScheduleTableNamesEveryField) {
  const std::string reference = readReference();
  const std::size_t section = reference.find(kScheduleHeading);
  ASSERT_NE(section, std::string::npos);
  const std::string schedule = reference.substr(section);
  const YAML::Node root = YAML::LoadFile(DISTBENCH_SCHEDULE_CRD)["spec"]["versions"][0]["schema"]
                                        ["openAPIV3Schema"];
  std::vector<std::string> paths = {"metadata.name"};
  schemaPaths(root["properties"]["spec"], "spec", paths);
  ASSERT_EQ(paths.size(), 13u);  // the walk reached every field
  for (const std::string& path : paths) {
    EXPECT_THAT(schedule, ::testing::HasSubstr("| `" + path + "` |"));
  }
  for (const auto& p : root["properties"]["status"]["properties"]) {
    EXPECT_THAT(schedule, ::testing::HasSubstr("| `status." + p.first.Scalar() + "` |"));
  }
}

}  // namespace
}  // namespace distbench::api
