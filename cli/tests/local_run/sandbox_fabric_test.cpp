// The Fabric kind under `distbench run --links/--slow` for real (root only,
// label sandbox): six nodes, one of them given a slower link or a capped
// CPU, and the verdict in the report must name that node, for that reason,
// and no other. Each run well under a minute.
#include <cpprest/json.h>

#include <cstdio>
#include <set>
#include <string>

#include "distbench/report/fabric.h"
#include "local_run/sandbox_run_support.h"

namespace distbench::cli {
namespace {

using namespace sandbox_testing;
using web::json::value;

// examples/fabric.yaml, smaller: six nodes, two sizes.
constexpr const char* kFabricSpec = R"(apiVersion: distbench.io/v1alpha1
kind: DistBenchmark
metadata: {name: sandbox-fabric}
spec:
  topology: {trainers: 6}
  benchmark:
    kind: Fabric
    fabric: {messageBytes: [4096, 1048576], samplesPerPair: 6, allreduceBytes: 1048576,
             allreduceIterations: 5}
  runtime: {rendezvousTimeoutSeconds: 60}
)";

struct Named {
  std::string what;
  std::string status;
  std::set<int> nodes;
  std::string where;
};

std::vector<Named> suspectsOf(const report::Report& r) {
  const value results = value::parse(r.resultsJson);
  std::vector<Named> out;
  for (const value& s : results.at("fabricVerdict").at("suspects").as_array()) {
    Named n{s.at("what").as_string(), s.at("status").as_string(), {}, s.at("where").as_string()};
    for (const value& i : s.at("nodes").as_array()) n.nodes.insert(i.as_integer());
    out.push_back(n);
  }
  return out;
}

std::string describe(const std::vector<Named>& suspects) {
  std::string text;
  for (const Named& s : suspects) text += "\n  " + s.status + " " + s.what + " " + s.where;
  return text.empty() ? " (none)" : text;
}

class SandboxFabric : public SandboxRun {
 protected:
  // The spec with `flags`; its report once it has exited 0.
  report::Report runFabric(const std::string& flags, const std::string& name) {
    const std::string spec = write(name + ".yaml", kFabricSpec);
    CliRun run(dir(), spec + " " + flags + " --report " + report(name + ".json"));
    EXPECT_EQ(run.wait(), 0) << run.err();
    std::printf("[ figure ] fabric, 6 nodes, %s: %.1f s wall\n", flags.c_str(), run.wallSeconds());
    EXPECT_LT(run.wallSeconds(), 60.0);
    std::printf("%s", run.out().c_str());
    return readReport(report(name + ".json"));
  }
};

TEST_F(SandboxFabric, NamesTheNodeWithTheSlowLinkAndOnlyIt) {
  const report::Report r = runFabric("--links 'bandwidth=200mbit;trainer3=50mbit'", "fabric-links");
  const report::FabricMeasurements m = report::parseFabric(r.resultsJson);
  ASSERT_EQ(m.nodes.size(), 6u);
  EXPECT_EQ(m.pairs.size(), 15u * 2);  // every pair of six, at both sizes
  const std::vector<Named> suspects = suspectsOf(r);
  bool trainer3 = false;
  for (const Named& s : suspects) {
    trainer3 |= s.what == "node" && s.status == "slow" && s.nodes == std::set<int>{3};
    EXPECT_EQ(s.nodes.count(3), 1u) << "a suspect without trainer3:" << describe(suspects);
    EXPECT_NE(s.what, "compute") << describe(suspects);
  }
  EXPECT_TRUE(trainer3) << "trainer3 not named slow:" << describe(suspects);
}

// One pair's link at a quarter of the others' (a per-pair htb class at both
// ends): that link is named, and neither of its nodes, which are fine with
// their other peers.
TEST_F(SandboxFabric, NamesTheSlowLinkAndClearsBothItsNodes) {
  const report::Report r =
      runFabric("--links 'bandwidth=200mbit;trainer1-trainer4=50mbit'", "fabric-pair");
  const std::vector<Named> suspects = suspectsOf(r);
  bool link = false;
  for (const Named& s : suspects) {
    if (s.status != "slow") continue;
    link |= s.what == "link" && s.nodes == std::set<int>{1, 4};
    EXPECT_EQ(s.what, "link") << "a node named for one slow link:" << describe(suspects);
    EXPECT_EQ(s.nodes, (std::set<int>{1, 4})) << "another link named:" << describe(suspects);
  }
  EXPECT_TRUE(link) << "trainer1-trainer4 not named slow:" << describe(suspects);
}

TEST_F(SandboxFabric, NamesTheCappedNodesCompute) {
  const report::Report r = runFabric("--slow 'trainer2=cpu:25%'", "fabric-slow");
  const std::vector<Named> suspects = suspectsOf(r);
  bool trainer2 = false;
  for (const Named& s : suspects) {
    if (s.status == "slow") {
      EXPECT_EQ(s.what, "compute") << "a capped CPU named as a link or node:" << describe(suspects);
    }
    if (s.what != "compute") continue;
    trainer2 |= s.status == "slow" && s.nodes == std::set<int>{2};
    EXPECT_EQ(s.nodes, std::set<int>{2}) << "another node's compute named:" << describe(suspects);
  }
  EXPECT_TRUE(trainer2) << "trainer2's compute not named slow:" << describe(suspects);
}

}  // namespace
}  // namespace distbench::cli
