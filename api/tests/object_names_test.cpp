// Child names: one builder, and never shared
// between two benchmarks of one namespace (the "col" / "col-master" pair:
// col's master Service used to be col-master's headless Service).
#include "distbench/api/object_names.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "distbench/api/renderer.h"

namespace distbench::api {
namespace {

// Every child name of `benchmark` per kind, for a gang of `ranks` per role.
std::map<std::string, std::set<std::string>> childrenOf(const std::string& benchmark, int ranks) {
  std::map<std::string, std::set<std::string>> kinds;
  kinds["ConfigMap"] = {configMapName(benchmark), reportConfigMapName(benchmark)};
  kinds["Service"] = {workersServiceName(benchmark), masterServiceName(benchmark)};
  kinds["NetworkPolicy"] = {networkPolicyName(benchmark)};
  kinds["Pod"].insert(podName(benchmark, Role::Master, 0));
  for (int i = 0; i < ranks; ++i) {
    kinds["Pod"].insert(podName(benchmark, Role::ParameterServer, i));
    kinds["Pod"].insert(podName(benchmark, Role::Trainer, i));
  }
  return kinds;
}

TEST(ObjectNames, NoTwoBenchmarksShareAChildName) {
  // Names built from each other's suffixes, the way a collision would arise.
  const std::vector<std::string> names = {
      "col",        "col-master", "col-workers", "col-config",    "col-gang",     "col-report", "col-report-config", "col-config-report",     "col-ps",
      "col-ps-1",   "col-trainer", "col-trainer-1", "col-master-0", "col-master-master",
      "a",          "a-1",        "a-11",        "a-trainer-1-trainer"};
  std::map<std::string, std::map<std::string, std::string>> owner;  // kind -> name -> benchmark
  for (const std::string& b : names) {
    for (const auto& [kind, children] : childrenOf(b, 12)) {
      for (const std::string& child : children) {
        auto [it, inserted] = owner[kind].emplace(child, b);
        EXPECT_TRUE(inserted) << kind << " " << child << " of " << b << " is also "
                              << it->second << "'s";
      }
    }
  }
}

TEST(ObjectNames, TheNamesPodsAndServicesGet) {
  EXPECT_EQ(podName("b", Role::Master, 0), "b-master-0");
  EXPECT_EQ(podName("b", Role::ParameterServer, 2), "b-ps-2");
  EXPECT_EQ(podName("b", Role::Trainer, 7), "b-trainer-7");
  EXPECT_EQ(workersServiceName("b"), "b-workers");
  EXPECT_EQ(masterServiceName("b"), "b-master");
  EXPECT_EQ(configMapName("b"), "b-config");
  EXPECT_EQ(networkPolicyName("b"), "b-gang");
  EXPECT_EQ(reportConfigMapName("b"), "b-report");
}

}  // namespace
}  // namespace distbench::api
