// Keeps docs/crd-reference.md honest: its examples parse, and its table names
// every field the API writes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "distbench/api/presets.h"
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

void leafPaths(const YAML::Node& node, const std::string& path, std::vector<std::string>& out) {
  if (!node.IsMap() || (node.size() == 0 && !path.empty())) {
    out.push_back(path);
    return;
  }
  for (const auto& entry : node) {
    const std::string key = entry.first.Scalar();
    leafPaths(entry.second, path.empty() ? key : path + "." + key, out);
  }
}

TEST(CrdReferenceTest, ExamplesAreTheSmallestResourceAndTheTutorialPreset) {
  const std::vector<std::string> blocks = yamlBlocks(readReference());
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_EQ(blocks[0], test::kMinimal);
  EXPECT_EQ(parseDistBenchmark(blocks[0]), test::minimalBenchmark());
  EXPECT_EQ(parseDistBenchmark(blocks[1]), preset("tutorial"));
}

TEST(CrdReferenceTest, TableNamesEveryField) {
  const std::string reference = readReference();
  std::vector<std::string> paths;
  // Each kind writes only its own section: walk one resource of each.
  for (const char* name : {"default", "ddp", "collectives"}) {
    leafPaths(YAML::Load(toYaml(preset(name))), "", paths);
  }
  std::sort(paths.begin(), paths.end());
  paths.erase(std::unique(paths.begin(), paths.end()), paths.end());
  ASSERT_EQ(paths.size(), 49u);  // the walk reached every field
  for (const std::string& path : paths) {
    EXPECT_THAT(reference, ::testing::HasSubstr("| `" + path + "` |"));
  }
}

}  // namespace
}  // namespace distbench::api
